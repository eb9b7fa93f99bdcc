// The multiresolution bilateral filter's band kernel on the CPU. A band
// computes, on every level, only the rows its output rows depend on
// (pyramid_band_rows): G_k by REDUCE, then per level the Laplacian in a
// padded band, the bilateral family's row functions on it (the exact
// filter's SIMD code, bilateral_rows.h), and the collapse from the top.
// Rows are indexed on the image's grid, every index clamped to its level,
// so a row's value is the same in every band (bit for bit); the fine
// level's filtering, the bulk of the work, runs on the output rows only.
// Threading is OpenMP over rows, each row computed by one thread.
#include "pyramid_cpu.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "bilateral_cpu.h"
#include "color_rows.h"
#include "pyramid_math.h"

namespace edgewise::cpu {

namespace {

// Below this many samples a loop runs on the calling thread (bilateral_cpu.cpp says why).
constexpr size_t kParallelSamples = 32768;

// Rows [rows.first, rows.last] of one level, planar: colour planes, then alpha.
struct Level {
  PyramidRange rows{0, -1};
  int width = 0;
  std::vector<float> data;

  int count() const { return rows.last - rows.first + 1; }
  size_t plane_stride() const { return size_t(count()) * size_t(width); }
  float* row(int plane, int level_row) {
    return data.data() + size_t(plane) * plane_stride() + size_t(level_row - rows.first) * size_t(width);
  }
  void hold(PyramidRange range, int level_width, int planes) {
    rows = range;
    width = level_width;
    const size_t floats = plane_stride() * size_t(planes) + kBandOverhangFloats;
    if (data.size() < floats) data.resize(floats);
  }
};

// REDUCE of fine rows around 2 i (clamped to fine_height) into `out`
// (coarse_width samples); `line` holds fine_width + 4 floats.
void reduce_row(Level& fine, int fine_height, int plane, int i, float* line, float* out, int coarse_width) {
  const int fine_width = fine.width;
  const float* r0 = fine.row(plane, pyramid_clamp(2 * i - 2, fine_height));
  const float* r1 = fine.row(plane, pyramid_clamp(2 * i - 1, fine_height));
  const float* r2 = fine.row(plane, pyramid_clamp(2 * i, fine_height));
  const float* r3 = fine.row(plane, pyramid_clamp(2 * i + 1, fine_height));
  const float* r4 = fine.row(plane, pyramid_clamp(2 * i + 2, fine_height));
  float* inner = line + 2;
  for (int x = 0; x < fine_width; ++x) inner[x] = pyramid_reduce(r0[x], r1[x], r2[x], r3[x], r4[x]);
  line[0] = line[1] = inner[0];
  line[fine_width + 2] = line[fine_width + 3] = inner[fine_width - 1];
  for (int x = 0; x < coarse_width; ++x) {
    const float* t = line + 2 * x;
    out[x] = pyramid_reduce(t[0], t[1], t[2], t[3], t[4]);
  }
}

// EXPAND of the coarse level at fine row i into `out` (fine_width
// samples); `line` holds the coarse width + 2 floats.
void expand_row(Level& coarse, int coarse_height, int plane, int i, float* line, float* out, int fine_width) {
  const int j = i / 2, cw = coarse.width;
  float* inner = line + 1;
  const float* at = coarse.row(plane, j);
  const float* after = coarse.row(plane, pyramid_clamp(j + 1, coarse_height));
  if (i % 2 == 0) {
    const float* before = coarse.row(plane, pyramid_clamp(j - 1, coarse_height));
    for (int x = 0; x < cw; ++x) inner[x] = pyramid_expand_even(before[x], at[x], after[x]);
  } else {
    for (int x = 0; x < cw; ++x) inner[x] = pyramid_expand_odd(at[x], after[x]);
  }
  line[0] = inner[0];
  line[cw + 1] = inner[cw - 1];
  for (int m = 0; 2 * m < fine_width; ++m) {
    out[2 * m] = pyramid_expand_even(line[m], line[m + 1], line[m + 2]);
    if (2 * m + 1 < fine_width) out[2 * m + 1] = pyramid_expand_odd(line[m + 1], line[m + 2]);
  }
}

class PyramidKernel : public BandKernel {
 public:
  PyramidKernel(const PyramidPlan& plan, const KernelContext& context)
      : plan_(plan), context_(context), levels_(size_t(plan.levels)) {
    planes_ = plan.color_channels + (plan.has_alpha ? 1 : 0);
    for (const std::vector<PyramidPass>& passes : plan.passes) {
      std::vector<RowFunction> functions;
      for (const PyramidPass& pass : passes) functions.push_back(select_row_function(pass.bilateral.params));
      rows_.push_back(functions);
    }
    scratch_floats_ = 2 * size_t(plan.shape.width) + 8;
  }

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>&) override {
    const int levels = plan_.levels;
    const PyramidBandRows need =
        pyramid_band_rows({output.first_row, output.first_row + output.rows - 1}, levels, plan_.radius, plan_.heights);
    build_base(input, need.gaussian[0]);
    for (int k = 0; k + 1 < levels; ++k) reduce_level(k, need.gaussian[size_t(k) + 1]);
    for (int k = 0; k < levels; ++k) filter_level(k, need.laplacian[size_t(k)], need.result[size_t(k)]);
    for (int k = levels - 2; k >= 0; --k) collapse_level(k, need.result[size_t(k)]);
    write_output(input, output);
  }

 private:
  // body(row, scratch) for rows [first, last], each on one thread.
  template <class Body>
  void for_rows(PyramidRange range, int width, Body&& body) {
    const int first = range.first, last = range.last;
    const bool parallel = size_t(last - first + 1) * size_t(width) >= kParallelSamples;
    const size_t scratch_floats = scratch_floats_;
#pragma omp parallel num_threads(context_.threads) if (parallel)
    {
      std::vector<float> scratch(scratch_floats);
#pragma omp for schedule(static)
      for (int i = first; i <= last; ++i) body(i, scratch.data());
    }
  }

  // G_0: the band's input rows, in Lab in lab mode.
  void build_base(const PaddedBand& input, PyramidRange range) {
    Level& base = levels_[0];
    base.hold(range, plan_.widths[0], planes_);
    const bool lab = plan_.lab;
    const int planes = planes_, width = base.width;
    for_rows(range, width, [&](int i, float*) {
      for (int p = 0; p < planes; ++p)
        std::memcpy(base.row(p, i), input.row(p, i - input.first_row) + input.pad, size_t(width) * sizeof(float));
      if (lab) color_rows().to_lab(base.row(0, i), base.row(1, i), base.row(2, i), size_t(width));
    });
  }

  void reduce_level(int k, PyramidRange range) {
    Level &fine = levels_[size_t(k)], &coarse = levels_[size_t(k) + 1];
    coarse.hold(range, plan_.widths[size_t(k) + 1], planes_);
    const int fine_height = plan_.heights[size_t(k)], planes = planes_;
    for_rows(range, fine.width, [&](int i, float* line) {
      for (int p = 0; p < planes; ++p) reduce_row(fine, fine_height, p, i, line, coarse.row(p, i), coarse.width);
    });
  }

  // The level's Laplacian (the residual on the top level) over `rows` in a
  // padded band, filtered by each pass over `result`, written over G_k's
  // colour planes there (G_k is not read again).
  void filter_level(int k, PyramidRange rows, PyramidRange result) {
    const int r = plan_.radius, count = rows.last - rows.first + 1, colours = plan_.color_channels;
    const bool top = k + 1 == plan_.levels, gaussian_weights = plan_.gaussian_weights;
    Level& level = levels_[size_t(k)];
    const int width = level.width, planes = planes_;
    padded_.resize(std::max(padded_.size(), padded_band_floats(count + 2 * r, width, r, planes)));
    PaddedBand laplacian = describe_padded_band(rows.first - r, count + 2 * r, width, r, planes, padded_.data());
    Level* coarse = top ? nullptr : &levels_[size_t(k) + 1];
    const int coarse_height = top ? 0 : plan_.heights[size_t(k) + 1];
    // The first pass's scaled samples are written beside the level, one
    // sweep fewer over it (repad copies values, so scaling before it is exact).
    const std::vector<PyramidPass>& passes = plan_.passes[size_t(k)];
    const float first_scale = passes.empty() ? 0.0f : passes[0].bilateral.params.scale;
    scaled_.resize(std::max(scaled_.size(), padded_band_floats(count + 2 * r, width, r, planes)));
    PaddedBand scaled = laplacian;
    scaled.data = scaled_.data();
    for_rows(rows, width, [&](int i, float* line) {
      const int band_row = i - rows.first + r;
      for (int c = 0; c < colours; ++c) {
        float* target = laplacian.row(c, band_row) + r;
        const float* gaussian = level.row(c, i);
        if (top || gaussian_weights) {
          std::memcpy(target, gaussian, size_t(width) * sizeof(float));
        } else {
          expand_row(*coarse, coarse_height, c, i, line, target, width);
          for (int x = 0; x < width; ++x) target[x] = gaussian[x] - target[x];
        }
        float* to = scaled.row(c, band_row) + r;
        for (int x = 0; x < width; ++x) to[x] = target[x] * first_scale;
      }
      if (planes > colours) {
        std::memcpy(laplacian.row(colours, band_row) + r, level.row(colours, i), size_t(width) * sizeof(float));
        std::memcpy(scaled.row(colours, band_row) + r, level.row(colours, i), size_t(width) * sizeof(float));
      }
    });
    repad(laplacian, r, count, context_.parallel);
    if (!passes.empty()) repad(scaled, r, count, context_.parallel);

    // Channels no pass filters (strength 0) keep the level as it is.
    int filtered = 0;
    for (const PyramidPass& pass : passes) filtered += pass.planes;
    if (filtered < colours)
      for_rows(result, width, [&](int i, float*) {
        for (int c = 0; c < colours; ++c)
          std::memcpy(level.row(c, i), laplacian.row(c, i - rows.first + r) + r, size_t(width) * sizeof(float));
      });
    for (size_t s = 0; s < passes.size(); ++s)
      run_pass(passes[s], rows_[size_t(k)][s], laplacian, s == 0, level, rows, result);
    if (!gaussian_weights || k == 0) return;
    // With G_k's weights the collapse needs no Laplacian: since
    // R_k = B_k(G_k) - EXPAND(G_{k+1}) + EXPAND(R_{k+1}) and EXPAND is linear,
    // R_k = B_k(G_k) + EXPAND(C_{k+1}) with C_k = R_k - G_k. Levels above the
    // finest keep C_k (their filtered samples minus G_k, which the padded
    // band still holds), the finest B_0(G_0); collapse_level adds the
    // expanded level above either way. One EXPAND per level instead of two.
    for_rows(result, width, [&](int i, float*) {
      for (int c = 0; c < colours; ++c) {
        const float* gaussian = laplacian.row(c, i - rows.first + r) + r;
        float* target = level.row(c, i);
        for (int x = 0; x < width; ++x) target[x] -= gaussian[x];
      }
    });
  }

  // One bilateral pass; `scaled_ready`: scaled_ holds this pass's scaled samples.
  void run_pass(const PyramidPass& pass, RowFunction function, const PaddedBand& laplacian, bool scaled_ready,
                Level& level, PyramidRange rows, PyramidRange result) {
    const BilateralPlan& bilateral = pass.bilateral;
    const float scale = bilateral.params.scale;
    const int colours = plan_.color_channels, planes = planes_, width = level.width;
    PaddedBand scaled = laplacian;
    scaled.data = scaled_.data();
    const size_t padded_width = size_t(laplacian.width);
    if (!scaled_ready)
      for_rows({0, laplacian.rows - 1}, width, [&](int i, float*) {
        for (int c = 0; c < colours; ++c) {
          const float* from = laplacian.row(c, i);
          float* to = scaled.row(c, i);
          for (size_t x = 0; x < padded_width; ++x) to[x] = from[x] * scale;
        }
        if (planes > colours)
          std::memcpy(scaled.row(colours, i), laplacian.row(colours, i), padded_width * sizeof(float));
      });

    // Output row j is level row rows.first + j (it reads band rows j..j+2r).
    const int count = rows.last - rows.first + 1;
    const bool whole = pass.first_plane == 0 && pass.planes == colours;
    OutputBand target;
    if (whole) {
      target.first_row = rows.first;
      target.rows = count;
      target.width = width;
      target.planes = colours;
      target.row_stride = size_t(width);
      target.plane_stride = level.plane_stride();
      target.data = level.row(0, rows.first);
    } else {
      spare_.resize(std::max(spare_.size(), size_t(count) * size_t(width) * size_t(colours) + kBandOverhangFloats));
      target = describe_output_band(rows.first, count, width, colours, spare_.data());
    }
    const int begin = result.first - rows.first, end = result.last - rows.first + 1;
    const SigmaTarget no_sigma;
#pragma omp parallel for schedule(dynamic, 1) num_threads(context_.threads) if (end - begin > 1)
    for (int j = begin; j < end; ++j) function(bilateral, scaled, laplacian, target, no_sigma, j, j + 1);
    if (whole) return;
    for_rows(result, width, [&](int i, float*) {
      for (int c = pass.first_plane; c < pass.first_plane + pass.planes; ++c)
        std::memcpy(level.row(c, i), target.row(c, i - rows.first), size_t(width) * sizeof(float));
    });
  }

  // R_k = B_k(L_k) + EXPAND(R_{k+1}) over `result`.
  void collapse_level(int k, PyramidRange result) {
    Level &level = levels_[size_t(k)], &coarse = levels_[size_t(k) + 1];
    const int colours = plan_.color_channels, width = level.width, coarse_height = plan_.heights[size_t(k) + 1];
    for_rows(result, width, [&](int i, float* line) {
      float* expanded = line + coarse.width + 2;
      for (int c = 0; c < colours; ++c) {
        expand_row(coarse, coarse_height, c, i, line, expanded, width);
        float* target = level.row(c, i);
        for (int x = 0; x < width; ++x) target[x] += expanded[x];
      }
    });
  }

  void write_output(const PaddedBand& input, const OutputBand& output) {
    Level& base = levels_[0];
    const int colours = plan_.color_channels, width = output.width, first = output.first_row;
    const bool lab = plan_.lab, alpha = plan_.has_alpha;
    for_rows({first, first + output.rows - 1}, width, [&](int i, float*) {
      const int j = i - first;
      for (int c = 0; c < colours; ++c) std::memcpy(output.row(c, j), base.row(c, i), size_t(width) * sizeof(float));
      if (lab) color_rows().from_lab(output.row(0, j), output.row(1, j), output.row(2, j), size_t(width));
      if (alpha)
        std::memcpy(output.row(colours, j), input.row(colours, i - input.first_row) + input.pad,
                    size_t(width) * sizeof(float));
    });
  }

  const PyramidPlan& plan_;
  KernelContext context_;
  int planes_ = 1;
  size_t scratch_floats_ = 0;
  std::vector<Level> levels_;
  std::vector<std::vector<RowFunction>> rows_;
  std::vector<float> padded_, scaled_, spare_;
};

}  // namespace

BandCost pyramid_own_cost(const Plan& plan) {
  // The band's pyramid (4/3 of its rows, halo included), the padded and
  // scaled Laplacian of the fine level and a spare output for lab's passes.
  const size_t row = size_t(plan.shape.width) * size_t(plan.shape.channels);
  return {3 * size_t(plan.reach) * row, 5 * row};
}

std::unique_ptr<BandKernel> make_pyramid_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<PyramidKernel>(static_cast<const PyramidPlan&>(plan), context);
}

}  // namespace edgewise::cpu
