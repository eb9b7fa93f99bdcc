// The multiresolution bilateral filter's kernel on the CPU. Output rows
// need, on every level, the rows they depend on (pyramid_band_rows): G_k by
// REDUCE from G_0, the input rows (in Lab in lab mode), then the levels
// from the top down, each in tiles (pyramid_tiles.cpp) that filter the
// level with the bilateral family's row functions (the exact filter's SIMD
// code, bilateral_rows.h) and add the expanded level above while the tile
// is in cache; the finest level's tiles write output rows, which are packed
// to the stored sample type at once.
//
// The kernel streams (cpu_kernels.h, RowStreamKernel): bands come in order,
// a band is walked in chunks of rows, and every level's rows live in a ring
// (pyramid_levels.h) from chunk to chunk, so each input row is unpacked
// once and each row of every level computed once, as a whole-image run
// would, and a chunk's new rows are still in cache when the next step reads
// them. Rows are indexed on the image's grid, every index clamped to its
// level, so a row's value does not depend on the band or chunk that
// computes it (bit for bit); the fine level's filtering, the bulk of the
// work, runs on output rows only. Threading is OpenMP over rows and tiles,
// each computed by one thread.
//
// Why (bench/RESULTS.md, issue 15): the finest level is as large as the
// image, and a sweep over it costs a trip to memory (288 MB at 24 MP RGB).
// Band by band, with copies into padded and scaled bands, the kernel made
// about twenty such sweeps a pixel against the single-scale filter's six,
// and every band unpacked and reduced half again as many rows as it output
// (its halo, the reach, is 92 rows at 5 levels and radius 2).
#include "pyramid_cpu.h"

#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "band_io.h"
#include "color_rows.h"
#include "cpu_sample_rows.h"
#include "pyramid_levels.h"
#include "pyramid_tiles.h"

namespace edgewise::cpu {

namespace {

// Below this many samples a loop runs on the calling thread (bilateral_cpu.cpp says why).
constexpr size_t kParallelSamples = 32768;

// Output rows a band is walked in. A chunk's new rows of G_0 (9 MB at
// 6000 px RGB) are still in the shared cache when REDUCE and the finest
// tiles read them, and a chunk runs about ten parallel loops, so it is not
// made smaller: 24 MP RGB, 5 levels, 2 threads, 0.32 s at 128 rows, 0.33 s
// at 64 and 256, 0.35 s at 32.
constexpr int kChunkRows = 128;

bool empty(PyramidRange rows) { return rows.last < rows.first; }

class PyramidKernel : public RowStreamKernel {
 public:
  PyramidKernel(const PyramidPlan& plan, const KernelContext& context)
      : plan_(plan), context_(context), tiles_(plan, context.threads) {
    planes_ = plan.color_channels + (plan.has_alpha ? 1 : 0);
    // Each thread's line for REDUCE and EXPAND of a whole row.
    for (int t = 0; t < std::max(1, context.threads); ++t) lines_.emplace_back(2 * size_t(plan.shape.width) + 8);
    // Not zeroed: the tiles write every sample, first touching its pages in parallel.
    output_.reset(new float[size_t(kChunkRows) * size_t(plan.shape.width) * size_t(plan.shape.channels)]);
    for (int k = 0; k < plan.levels; ++k) {
      const int width = plan.widths[size_t(k)];
      gaussian_.emplace_back(width, planes_);
      laplacian_.emplace_back(width, plan.color_channels);
      result_.emplace_back(width, plan.color_channels);
    }
  }

  void run(const RowSpan& input, int image_height, const RowSpan& output) override {
    const int last = output.first_row + output.rows - 1;
    for (int first = output.first_row; first <= last; first += kChunkRows)
      run_rows(input, image_height, output, {first, std::min(last, first + kChunkRows - 1)});
  }

 private:
  // Output rows `out`: which rows of each level are new (the rings hold
  // what earlier chunks computed) and which each ring must keep, then the
  // new rows, and the output rows packed.
  void run_rows(const RowSpan& input, int image_height, const RowSpan& output, PyramidRange out) {
    const int levels = plan_.levels, r = plan_.radius;
    const bool laplacian = !plan_.gaussian_weights;
    const PyramidBandRows need = pyramid_band_rows(out, levels, r, plan_.heights);
    const PyramidRange none{0, -1};
    const size_t n = size_t(levels);
    std::vector<PyramidRange> result(n), window(n), fresh(n), fresh_laplacian(n, none);
    for (int k = 0; k < levels; ++k) {
      const size_t at = size_t(k);
      result[at] = k == 0 ? out : result_[at].take(need.result[at]);
      window[at] = empty(result[at]) ? none : pyramid_clip(pyramid_grow(result[at], r), plan_.heights[at]);
      if (laplacian && k + 1 < levels) fresh_laplacian[at] = laplacian_[at].take(window[at]);
    }
    // The rows of G_k read: the window of its new results, REDUCE's for
    // G_{k+1}'s new rows and (--guide laplacian) EXPAND's for L_{k-1}'s.
    for (int k = levels - 1; k >= 0; --k) {
      const size_t at = size_t(k);
      PyramidRange read = window[at];
      if (k + 1 < levels && !empty(fresh[at + 1])) read = pyramid_hull(read, pyramid_reduce_source(fresh[at + 1]));
      if (k >= 1 && !empty(fresh_laplacian[at - 1]))
        read = pyramid_hull(read, pyramid_expand_source(fresh_laplacian[at - 1]));
      fresh[at] = gaussian_[at].take(pyramid_clip(read, plan_.heights[at]));
    }

    unpack_base(input, image_height, fresh[0]);
    for (int k = 1; k < levels; ++k) reduce_level(k, fresh[size_t(k)]);
    for (int k = 0; k + 1 < levels; ++k) laplacian_level(k, fresh_laplacian[size_t(k)]);
    const OutputBand finished = describe_output_band(out.first, out.last - out.first + 1, plan_.shape.width,
                                                     plan_.shape.channels, output_.get());
    const LevelRows finest = level_rows(finished);
    // From the top down: each level's collapse adds the expanded level above.
    for (int k = levels - 1; k >= 0; --k) {
      const size_t at = size_t(k);
      LevelTask task;
      task.level = k;
      task.result_rows = result[at];
      task.gaussian = &gaussian_[at].rows();
      task.source = laplacian && k + 1 < levels ? &laplacian_[at].rows() : task.gaussian;
      task.result = k == 0 ? &finest : &result_[at].rows();
      task.above = k + 1 < levels ? &result_[at + 1].rows() : nullptr;
      if (!empty(task.result_rows)) tiles_.run(task);
    }
    pack_rows(finished, output, context_.parallel, &sample_rows());
  }

  // body(row, line) for rows [first, last], each on one thread.
  template <class Body>
  void for_rows(PyramidRange range, int width, Body&& body) {
    const int first = range.first, last = range.last;
    const bool parallel = size_t(std::max(0, last - first + 1)) * size_t(width) >= kParallelSamples;
#pragma omp parallel for schedule(static) num_threads(context_.threads) if (parallel)
    for (int i = first; i <= last; ++i) body(i, lines_[size_t(omp_get_thread_num())].data());
  }

  // G_0's new rows from the input as stored, in Lab in lab mode (each
  // converted while it is in cache).
  void unpack_base(const RowSpan& rows, int image_height, PyramidRange fresh) {
    const LevelRows& base = gaussian_[0].rows();
    const bool lab = plan_.lab;
    const int width = base.width, planes = planes_;
    for_rows(fresh, width, [&](int i, float*) {
      PaddedBand row = describe_padded_band(i, 1, width, 0, planes, base.row(0, i));
      row.plane_stride = base.plane_stride;
      unpack_rows(rows, image_height, row, {}, &sample_rows());
      if (lab) color_rows().to_lab(base.row(0, i), base.row(1, i), base.row(2, i), size_t(width));
    });
  }

  void reduce_level(int k, PyramidRange fresh) {
    const LevelRows &fine = gaussian_[size_t(k) - 1].rows(), &coarse = gaussian_[size_t(k)].rows();
    const int fine_height = plan_.heights[size_t(k) - 1], planes = planes_;
    for_rows(fresh, fine.width, [&](int i, float* line) {
      for (int p = 0; p < planes; ++p) reduce_row(fine, fine_height, p, i, line, coarse.row(p, i), coarse.width);
    });
  }

  // --guide laplacian: L_k = G_k - EXPAND(G_{k+1}), colour planes.
  void laplacian_level(int k, PyramidRange fresh) {
    const LevelRows &level = gaussian_[size_t(k)].rows(), &coarse = gaussian_[size_t(k) + 1].rows();
    const LevelRows& laplacian = laplacian_[size_t(k)].rows();
    const int colours = plan_.color_channels, width = level.width, coarse_height = plan_.heights[size_t(k) + 1];
    for_rows(fresh, width, [&](int i, float* scratch) {
      float* expanded = scratch + width / 2 + 4;
      for (int c = 0; c < colours; ++c) {
        expand_columns(coarse, coarse_height, c, i, 0, width, scratch, expanded);
        const float* gaussian = level.row(c, i);
        float* target = laplacian.row(c, i);
        for (int x = 0; x < width; ++x) target[x] = gaussian[x] - expanded[x];
      }
    });
  }

  static LevelRows level_rows(const OutputBand& output) {
    LevelRows rows;
    rows.width = output.width;
    rows.origin = output.first_row;
    rows.capacity = output.rows;
    rows.row_stride = output.row_stride;
    rows.plane_stride = output.plane_stride;
    rows.data = output.data;
    return rows;
  }

  const PyramidPlan& plan_;
  KernelContext context_;
  PyramidTiles tiles_;
  int planes_ = 1;
  std::vector<std::vector<float>> lines_;  // per thread
  // Per level: G_k; L_k (--guide laplacian, below the top); R_k or C_k (above the finest).
  std::vector<LevelRing> gaussian_, laplacian_, result_;
  std::unique_ptr<float[]> output_;  // a chunk's output rows, packed as soon as they are done
};

}  // namespace

BandCost pyramid_own_cost(const Plan& plan) {
  // The rings, whatever the band's height: G_0's holds a chunk and a reach
  // of rows (and an eighth more), the levels above a third as many samples
  // again, the results and (--guide laplacian) L_k about a chunk's; the
  // chunk's output rows; each thread's tiles (counted for two threads, as
  // fourier_cpu.cpp does). The plan's band cost counts an input and an
  // output band, which the runner does not allocate for this kernel.
  const auto& pyramid = static_cast<const PyramidPlan&>(plan);
  const size_t row = size_t(plan.shape.width) * size_t(plan.shape.channels);
  const size_t rows = 2 * (size_t(plan.reach) + kChunkRows) + 16 + (pyramid.gaussian_weights ? 0 : 2 * kChunkRows);
  return {rows * row + 2 * pyramid_tile_floats(pyramid), 0};
}

std::unique_ptr<RowStreamKernel> make_pyramid_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<PyramidKernel>(static_cast<const PyramidPlan&>(plan), context);
}

}  // namespace edgewise::cpu
