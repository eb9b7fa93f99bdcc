// The multiresolution bilateral filter on the GPU (Membarth, Hannig, Teich
// & Kostler, SAMOS 2009; core/filters/pyramid.h states it): the CPU band
// kernel's algorithm (cpu_fallback/pyramid_cpu.cpp) with core's math, the
// taps of pyramid_math.h, color_lab.h's conversions and the bilateral
// family's own launcher on every level. A band computes, per level, only
// the rows its output rows depend on (pyramid_band_rows):
//   1. G_0 from the input band (in Lab in lab mode), then G_{k+1} =
//      REDUCE(G_k), each level in a band padded by the filter's radius
//      (columns, and rows above and below repeating the level's held edge
//      rows, as launch_repad would), so launch_filter reads it as it is;
//   2. per level the bilateral passes into R_k (R_0: the output), reading
//      G_k with the Gaussian guide and on the top level, else the Laplacian
//      L_k = G_k - EXPAND(G_{k+1}) built in a padded band of its own;
//      planes no pass filters (strength 0) are copied through, lab's luma
//      and chroma passes keep their own planes;
//   3. the collapse from the top, one kernel per level in place:
//      R_k + EXPAND(R_{k+1}); with the Gaussian guide levels above the
//      finest hold C_k = R_k - G_k (the CPU's trick: one EXPAND a level),
//      the subtraction fused into the level's collapse (the top level's
//      alone); the finest level's collapse converts Lab back.
// Every sample is computed by one thread from clamped image-grid indices
// (pyramid_clamp) in the CPU's order of operations, so a row's value does
// not depend on the band it is computed in: bit for bit across band heights.
// The elementwise kernels are memory-bound sweeps on 32 x 8 blocks, as
// the other families' (not tuned yet; bench_pyramid_cuda counts their
// bytes). Device memory per band in flight, held per stream (not in the
// backend's budget, which has no hook for a kernel's own memory; as
// fourier.cu): the padded Gaussian pyramid of the band's rows (about 4/3
// of the input band), R_k of the levels above the finest (1/3 of the
// output), the Laplacian of one level (laplacian guide: about the input
// band) and a spare output for lab's second pass.
#include <algorithm>
#include <map>
#include <vector>

#include "bilateral_cuda.h"
#include "color_lab.h"
#include "device_resources.h"
#include "pyramid_cuda.h"
#include "pyramid_math.h"

namespace edgewise::cuda {

namespace {

// One level's samples as EXPAND reads them: level row i, column x at
// data + (i - first_row) * row_stride + column_offset + x, planes apart by
// plane_stride; width and height are the whole level's (for the clamps).
struct LevelView {
  const float* data = nullptr;
  int first_row = 0;
  size_t row_stride = 0, plane_stride = 0;
  int column_offset = 0;
  int width = 0, height = 0;
};

LevelView view_of(const DeviceBand& band, int height) {
  return {band.data, band.first_row, size_t(band.width), band.plane_stride, band.pad, band.width - 2 * band.pad,
          height};
}

LevelView view_of(const DeviceOutput& out, int height) {
  return {out.data, out.first_row, out.row_stride, out.plane_stride, 0, out.width, height};
}

// The level row a padded band's row holds: its padding rows repeat the
// first and last rows it computes.
__device__ int held_row(const DeviceBand& band, int band_row) {
  return min(max(band.first_row + band_row, band.first_row + band.pad), band.first_row + band.rows - 1 - band.pad);
}

// The level column a padded band's column holds.
__device__ int held_column(const DeviceBand& band, int band_column) {
  return min(max(band_column - band.pad, 0), band.width - 2 * band.pad - 1);
}

__device__ size_t band_at(const DeviceBand& band, int level_row, int x) {
  return size_t(level_row - band.first_row) * size_t(band.width) + size_t(x + band.pad);
}

// EXPAND of `coarse` at fine row i, column x, as the CPU's expand_row: the
// coarse columns interpolated between rows first, then along the row.
__device__ float expanded(const LevelView& coarse, int plane, int i, int x) {
  const float* base = coarse.data + size_t(plane) * coarse.plane_stride + coarse.column_offset;
  const int j = i / 2, m = x / 2;
  const bool even_row = i % 2 == 0;
  auto row = [&](int level_row) { return base + size_t(level_row - coarse.first_row) * coarse.row_stride; };
  const float* at = row(j);
  const float* after = row(pyramid_clamp(j + 1, coarse.height));
  const float* before = row(even_row ? pyramid_clamp(j - 1, coarse.height) : j);
  auto column = [&](int n) {
    return even_row ? pyramid_expand_even(before[n], at[n], after[n]) : pyramid_expand_odd(at[n], after[n]);
  };
  const int right = pyramid_clamp(m + 1, coarse.width);
  if (x % 2 == 0) return pyramid_expand_even(column(pyramid_clamp(m - 1, coarse.width)), column(m), column(right));
  return pyramid_expand_odd(column(m), column(right));
}

// G_0 over its padded band from the input band (unpadded or not), in Lab in lab mode.
__global__ void pyramid_base_kernel(DeviceBand input, DeviceBand base, int colours, int planes, bool lab) {
  const int xx = blockIdx.x * blockDim.x + threadIdx.x, ii = blockIdx.y * blockDim.y + threadIdx.y;
  if (xx >= base.width || ii >= base.rows) return;
  const int i = held_row(base, ii), x = held_column(base, xx);
  const size_t from = size_t(i - input.first_row) * size_t(input.width) + size_t(x + input.pad);
  const size_t to = size_t(ii) * size_t(base.width) + size_t(xx);
  float v[3];
  for (int c = 0; c < colours; ++c) v[c] = input.plane(c)[from];
  if (lab) rgb_to_lab(v[0], v[1], v[2], v[0], v[1], v[2]);
  for (int c = 0; c < colours; ++c) base.plane(c)[to] = v[c];
  if (planes > colours) base.plane(colours)[to] = input.plane(colours)[from];
}

// G_{k+1} = REDUCE(G_k) over its padded band, every plane (alpha's pyramid
// weighs the levels' taps): down the fine level's columns first, then
// along the row, as the CPU's reduce_row.
__global__ void pyramid_reduce_kernel(DeviceBand fine, int fine_height, DeviceBand coarse, int planes) {
  const int xx = blockIdx.x * blockDim.x + threadIdx.x, ii = blockIdx.y * blockDim.y + threadIdx.y;
  if (xx >= coarse.width || ii >= coarse.rows) return;
  const int i = held_row(coarse, ii), x = held_column(coarse, xx);
  const int fine_width = fine.width - 2 * fine.pad;
  size_t rows[5];
  int columns[5];
  for (int t = 0; t < 5; ++t) {
    rows[t] = size_t(pyramid_clamp(2 * i - 2 + t, fine_height) - fine.first_row) * size_t(fine.width);
    columns[t] = pyramid_clamp(2 * x - 2 + t, fine_width) + fine.pad;
  }
  const size_t to = size_t(ii) * size_t(coarse.width) + size_t(xx);
  for (int p = 0; p < planes; ++p) {
    const float* plane = fine.plane(p);
    float down[5];
    for (int t = 0; t < 5; ++t) {
      const float* column = plane + columns[t];
      down[t] = pyramid_reduce(column[rows[0]], column[rows[1]], column[rows[2]], column[rows[3]], column[rows[4]]);
    }
    coarse.plane(p)[to] = pyramid_reduce(down[0], down[1], down[2], down[3], down[4]);
  }
}

// L_k = G_k - EXPAND(G_{k+1}) over its padded band; alpha is G_k's.
__global__ void pyramid_laplacian_kernel(DeviceBand gaussian, LevelView coarse, DeviceBand laplacian, int colours,
                                         int planes) {
  const int xx = blockIdx.x * blockDim.x + threadIdx.x, ii = blockIdx.y * blockDim.y + threadIdx.y;
  if (xx >= laplacian.width || ii >= laplacian.rows) return;
  const int i = held_row(laplacian, ii), x = held_column(laplacian, xx);
  const size_t from = band_at(gaussian, i, x), to = size_t(ii) * size_t(laplacian.width) + size_t(xx);
  for (int c = 0; c < colours; ++c) laplacian.plane(c)[to] = gaussian.plane(c)[from] - expanded(coarse, c, i, x);
  if (planes > colours) laplacian.plane(colours)[to] = gaussian.plane(colours)[from];
}

// The top level with the Gaussian guide: C = R - G.
__global__ void pyramid_subtract_kernel(DeviceOutput level, DeviceBand gaussian, int colours) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= level.width || y >= level.rows) return;
  const size_t at = size_t(y) * level.row_stride + size_t(x), from = band_at(gaussian, level.first_row + y, x);
  for (int c = 0; c < colours; ++c) level.plane(c)[at] -= gaussian.plane(c)[from];
}

// One level of the collapse, in place: R (minus G where `gaussian` has
// data: C_k with the Gaussian guide) plus EXPAND of the level above (where
// `coarse` has data), converted from Lab on the finest level in lab mode.
__global__ void pyramid_collapse_kernel(DeviceOutput level, DeviceBand gaussian, LevelView coarse, int colours,
                                        bool lab) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= level.width || y >= level.rows) return;
  const int i = level.first_row + y;
  const size_t at = size_t(y) * level.row_stride + size_t(x);
  float v[3];
  for (int c = 0; c < colours; ++c) {
    v[c] = level.plane(c)[at];
    if (gaussian.data) v[c] -= gaussian.plane(c)[band_at(gaussian, i, x)];
    if (coarse.data) v[c] += expanded(coarse, c, i, x);
  }
  if (lab) lab_to_rgb(v[0], v[1], v[2], v[0], v[1], v[2]);
  for (int c = 0; c < colours; ++c) level.plane(c)[at] = v[c];
}

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3((unsigned(width) + block.x - 1) / block.x, (unsigned(rows) + block.y - 1) / block.y);
}

const dim3 kBlock(32, 8);

int count_of(PyramidRange rows) { return rows.last - rows.first + 1; }

// Hands out pieces of one allocation, 256-byte aligned; over no memory it
// only counts.
class Carver {
 public:
  explicit Carver(float* base) : base_(base) {}
  float* take(size_t floats) {
    float* piece = base_ ? base_ + used_ : nullptr;
    used_ += (floats + 63) / 64 * 64;
    return piece;
  }
  size_t used() const { return used_; }

 private:
  float* base_;
  size_t used_ = 0;
};

// Where a band's levels live.
struct BandLevels {
  std::vector<DeviceBand> gaussian;  // G_k over the band's rows of level k, padded by the radius
  std::vector<DeviceOutput> result;  // R_k (k >= 1; R_0 is the output)
  float* laplacian = nullptr;        // L_k's padded band, level by level (laplacian guide)
  float* spare = nullptr;            // a second pass's output, before its planes are kept
};

// The stream's scratch (one band in flight per stream), grown as needed.
struct Scratch {
  DeviceMemory memory;
  size_t floats = 0;
};

class PyramidDeviceKernel : public DeviceBandKernel {
 public:
  explicit PyramidDeviceKernel(const PyramidPlan& plan)
      : plan_(plan), planes_(plan.color_channels + (plan.has_alpha ? 1 : 0)) {
    // Every pass has the same spatial table (pyramid_unsupported checks):
    // one upload serves all levels.
    for (const std::vector<PyramidPass>& passes : plan.passes)
      if (!passes.empty() && !first_pass_) first_pass_ = &passes.front().bilateral;
    if (!first_pass_) return;
    if (first_pass_->radius > kMaxTiledRadius) table_ = DeviceMemory(first_pass_->spatial_term.size() * sizeof(float));
    upload_spatial_table(*first_pass_, table_.as<float>(), nullptr);
    check(cudaStreamSynchronize(nullptr), "uploading the spatial table");
  }

  void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>&, float*,
           cudaStream_t stream) override {
    const int levels = plan_.levels, colours = plan_.color_channels;
    const PyramidBandRows need =
        pyramid_band_rows({output.first_row, output.first_row + output.rows - 1}, levels, plan_.radius, plan_.heights);
    Carver counter(nullptr);
    carve(need, counter);
    Carver carver(scratch(stream, counter.used()));
    const BandLevels at = carve(need, carver);

    const DeviceBand& base = at.gaussian[0];
    pyramid_base_kernel<<<grid_for(base.width, base.rows, kBlock), kBlock, 0, stream>>>(input, base, colours, planes_,
                                                                                        plan_.lab);
    check(cudaGetLastError(), "launching the pyramid's base level");
    for (int k = 0; k + 1 < levels; ++k) {
      const DeviceBand& coarse = at.gaussian[size_t(k) + 1];
      pyramid_reduce_kernel<<<grid_for(coarse.width, coarse.rows, kBlock), kBlock, 0, stream>>>(
          at.gaussian[size_t(k)], plan_.heights[size_t(k)], coarse, planes_);
      check(cudaGetLastError(), "launching the pyramid's REDUCE");
    }
    for (int k = 0; k < levels; ++k) filter_level(k, need, at, output, stream);
    for (int k = levels - 2; k >= 1; --k)
      collapse(at.result[size_t(k)], plan_.gaussian_weights ? at.gaussian[size_t(k)] : DeviceBand{},
               view_of(at.result[size_t(k) + 1], plan_.heights[size_t(k) + 1]), false, stream);
    if (levels > 1 || plan_.lab)
      collapse(output, DeviceBand{}, levels > 1 ? view_of(at.result[1], plan_.heights[1]) : LevelView{}, plan_.lab,
               stream);
    if (plan_.has_alpha) launch_copy_plane(input, output.first_row - input.first_row, output, colours, stream);
  }

 private:
  // The band's levels laid out by `carver` (counting only, over no memory).
  BandLevels carve(const PyramidBandRows& need, Carver& carver) const {
    const int levels = plan_.levels, r = plan_.radius, colours = plan_.color_channels;
    BandLevels at;
    size_t laplacian_floats = 0, spare_floats = 0;
    for (int k = 0; k < levels; ++k) {
      const int width = plan_.widths[size_t(k)];
      const PyramidRange held = need.gaussian[size_t(k)], result = need.result[size_t(k)];
      const int rows = count_of(held) + 2 * r;
      const size_t band_floats = size_t(planes_) * size_t(rows) * size_t(width + 2 * r);
      at.gaussian.push_back(describe_device_band(carver.take(band_floats), held.first - r, rows, width, r));
      const size_t result_floats = size_t(colours) * size_t(count_of(result)) * size_t(width);
      if (k > 0) {
        DeviceOutput level;
        level.data = carver.take(result_floats);
        level.first_row = result.first;
        level.rows = count_of(result);
        level.width = width;
        level.row_stride = size_t(width);
        level.plane_stride = size_t(level.rows) * size_t(width);
        at.result.push_back(level);
      } else {
        at.result.push_back(DeviceOutput{});  // the output
      }
      if (k + 1 < levels && !plan_.gaussian_weights)
        laplacian_floats =
            std::max(laplacian_floats,
                     size_t(planes_) * size_t(count_of(need.laplacian[size_t(k)]) + 2 * r) * size_t(width + 2 * r));
      if (plan_.passes[size_t(k)].size() > 1) spare_floats = std::max(spare_floats, result_floats);
    }
    if (laplacian_floats) at.laplacian = carver.take(laplacian_floats);
    if (spare_floats) at.spare = carver.take(spare_floats);
    return at;
  }

  // The level's passes from G_k (or L_k) into R_k over its result rows.
  void filter_level(int k, const PyramidBandRows& need, const BandLevels& at, const DeviceOutput& output,
                    cudaStream_t stream) {
    const int r = plan_.radius, colours = plan_.color_channels, width = plan_.widths[size_t(k)];
    const bool top = k + 1 == plan_.levels;
    const PyramidRange result = need.result[size_t(k)];
    const int count = count_of(result);
    DeviceBand source = at.gaussian[size_t(k)];
    if (!top && !plan_.gaussian_weights) {
      const PyramidRange rows = need.laplacian[size_t(k)];
      source = describe_device_band(at.laplacian, rows.first - r, count_of(rows) + 2 * r, width, r);
      pyramid_laplacian_kernel<<<grid_for(source.width, source.rows, kBlock), kBlock, 0, stream>>>(
          at.gaussian[size_t(k)], view_of(at.gaussian[size_t(k) + 1], plan_.heights[size_t(k) + 1]), source, colours,
          planes_);
      check(cudaGetLastError(), "launching the pyramid's Laplacian");
    }
    const DeviceOutput target = k == 0 ? output : at.result[size_t(k)];
    // Output row j reads window rows j .. j + 2r: level rows result.first - r on.
    const DeviceBand window = from_row(source, result.first - r - source.first_row, count + 2 * r);
    const std::vector<PyramidPass>& passes = plan_.passes[size_t(k)];
    unsigned filtered = 0;
    for (size_t s = 0; s < passes.size(); ++s) {
      const PyramidPass& pass = passes[s];
      // The first pass writes every plane of the target; a later one (lab's
      // chroma after its luma) writes beside it and keeps its own planes.
      if (s == 0) {
        launch_filter(pass.bilateral, window, target, DeviceOutput{}, 0, table_.as<float>(), stream);
      } else {
        const DeviceBand spare = describe_device_band(at.spare, result.first, count, width, 0);
        launch_filter(pass.bilateral, window, inside_of(spare, 0, count), DeviceOutput{}, 0, table_.as<float>(),
                      stream);
        for (int c = pass.first_plane; c < pass.first_plane + pass.planes; ++c)
          launch_copy_plane(spare, 0, target, c, stream);
      }
      for (int c = pass.first_plane; c < pass.first_plane + pass.planes; ++c) filtered |= 1u << c;
    }
    // Planes no pass filters (strength 0) keep the level as it is.
    for (int c = 0; c < colours; ++c)
      if (!(filtered & (1u << c))) launch_copy_plane(source, result.first - source.first_row, target, c, stream);
    if (top && k > 0 && plan_.gaussian_weights) {
      pyramid_subtract_kernel<<<grid_for(target.width, target.rows, kBlock), kBlock, 0, stream>>>(
          target, at.gaussian[size_t(k)], colours);
      check(cudaGetLastError(), "launching the pyramid's top level");
    }
  }

  void collapse(const DeviceOutput& level, const DeviceBand& gaussian, const LevelView& coarse, bool lab,
                cudaStream_t stream) {
    pyramid_collapse_kernel<<<grid_for(level.width, level.rows, kBlock), kBlock, 0, stream>>>(
        level, gaussian, coarse, plan_.color_channels, lab);
    check(cudaGetLastError(), "launching the pyramid's collapse");
  }

  // The stream's scratch, at least `floats`; earlier work on the stream may
  // still use a smaller one, which cudaFree waits for.
  float* scratch(cudaStream_t stream, size_t floats) {
    Scratch& s = scratch_[stream];
    if (s.floats < floats) {
      s.memory = DeviceMemory();
      s.memory = DeviceMemory(floats * sizeof(float));
      s.floats = floats;
    }
    return s.memory.as<float>();
  }

  const PyramidPlan& plan_;
  const int planes_;
  const BilateralPlan* first_pass_ = nullptr;
  DeviceMemory table_;  // the spatial table beyond the tiled kernels' radius
  std::map<cudaStream_t, Scratch> scratch_;
};

}  // namespace

std::string pyramid_unsupported(const Plan& plan) {
  // One spatial table for every pass: the planner gives every level the
  // same sigma-s, radius and kernel; a plan that did not would need a
  // table per pass (the tiled kernels read it from constant memory).
  const auto& pyramid = static_cast<const PyramidPlan&>(plan);
  const BilateralPlan* first = nullptr;
  for (const std::vector<PyramidPass>& passes : pyramid.passes)
    for (const PyramidPass& pass : passes) {
      if (!first) first = &pass.bilateral;
      if (pass.bilateral.radius != first->radius || pass.bilateral.spatial_term != first->spatial_term)
        return "the GPU's pyramid kernel needs one spatial table for every level";
    }
  return "";
}

std::unique_ptr<DeviceBandKernel> make_pyramid_device_kernel(const Plan& plan) {
  return std::make_unique<PyramidDeviceKernel>(static_cast<const PyramidPlan&>(plan));
}

}  // namespace edgewise::cuda
