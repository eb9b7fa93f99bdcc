// The bilateral family on the GPU. What a tap weighs and how sums
// accumulate is core's (bilateral_math.h: BilateralSum, BilateralStatistics,
// adaptive_ratio, rescue_pixel, the variant dispatcher), the same code the
// CPU runs per SIMD lane; this file only decides how threads walk the window.
//
// Tiled kernels: a block stages a (32 + 2r) x (32 + 2r) tile of scaled
// samples in shared memory as float4 (three colours and alpha); each thread
// computes kRowsPerThread vertically adjacent outputs, so every shared-memory
// load feeds that many taps. Samples are scaled by params.scale at staging,
// so for the Gaussian a tap's exponent is spatial - d0^2 - d1^2 - d2^2, one
// FMA chain, and a tap costs one ex2.approx. The joint Gaussian of three
// channels stages its samples centred, with their bias, for the expanded
// form (bilateral_math.h, expanded_exponent) where sigma-r allows it: 9
// instructions a tap instead of 11 (12 with alpha); rgb r = 7 on the H100 at
// 2.36 T taps/s, was 1.96.
#include <cuda_runtime.h>

#include <algorithm>

#include "bilateral_cuda.h"
#include "bilateral_math.h"
#include "color_lab.h"

namespace edgewise::cuda {

namespace {

constexpr int kTileWidth = 32;
constexpr int kThreadRows = 8;

// Outputs per thread and the occupancy asked of ptxas, per mode. Joint modes
// do ~11 instructions per tap, so the per-row load, table read and loop cost
// matter: 8 rows (80 registers, 3 blocks/SM) ran rgb r=7 at 1.97 T taps/s
// against 1.85 for 4 rows (H100, 24 MP). Per-channel taps cost three
// exponentials and 4 rows did better there: 1.14 against 1.03.
// Radii below 4 have windows shorter than 8 rows and use 4.
// The adaptive filter (4 rows) is held to 80 registers, 3 blocks per SM:
// the joint RGBA variant took 87 registers otherwise, so 2 blocks, and ran
// rgb r=7 at 6.47 ms against 5.67 before the shared math (H100, 24 MP).
// Its sigma map is a variant of its own (WithSigma), for the same reason.
template <int Rows, bool Adaptive = false, bool WithSigma = false>
struct TileShape {
  static constexpr int rows_per_thread = Rows;
  static constexpr int min_blocks = Rows == 8 || (Adaptive && !WithSigma) ? 3 : 1;
  static constexpr int height = kThreadRows * Rows;
};
constexpr int kMaxTaps = (2 * kMaxTiledRadius + 1) * (2 * kMaxTiledRadius + 1);

__constant__ float c_spatial[kMaxTaps];

// Reads padded-band sample (x, y) scaled for distances, alpha unscaled.
template <int Channels, bool Alpha>
__device__ __forceinline__ float4 load_scaled(const DeviceBand& in, int x, int y, float scale) {
  const size_t at = size_t(y) * size_t(in.width) + size_t(x);
  float4 v;
  v.x = in.data[at] * scale;
  v.y = Channels == 3 ? in.data[in.plane_stride + at] * scale : 0.0f;
  v.z = Channels == 3 ? in.data[2 * in.plane_stride + at] * scale : 0.0f;
  v.w = Alpha ? in.data[size_t(Channels) * in.plane_stride + at] : 1.0f;
  return v;
}

// Pixels whose weights all underflowed (a transparent pixel among far
// colours) are recomputed exactly with core's rescue_pixel, from the
// unscaled band in global memory. Called after a thread's outputs are
// stored, when its accumulators are dead, and kept out of line so the rare
// slow path costs the hot loop no registers.
__device__ __noinline__ void rescue_outputs(const BilateralParams& params, const DeviceBand& in,
                                            const DeviceOutput& out, int x, int y0, unsigned rows,
                                            const float (*ratios)[3]) {
  const int r = params.radius;
  for (int k = 0; rows >> k; ++k) {
    if (!((rows >> k) & 1u)) continue;
    const int y = y0 + k;
    const size_t centre_at = size_t(y + r) * size_t(in.width) + size_t(x + r);
    float centre[3], result[3];
    for (int c = 0; c < params.color_channels; ++c) centre[c] = in.plane(c)[centre_at];
    auto fetch = [&](int dx, int dy, float* colour, float& alpha) {
      const size_t at = centre_at + size_t(ptrdiff_t(dy) * in.width + dx);
      for (int c = 0; c < params.color_channels; ++c) colour[c] = in.plane(c)[at];
      alpha = params.has_alpha ? in.plane(params.color_channels)[at] : 1.0f;
    };
    rescue_pixel(params, ratios ? ratios[k] : nullptr, centre, fetch, result);
    for (int c = 0; c < params.color_channels; ++c) out.plane(c)[size_t(y) * out.row_stride + size_t(x)] = result[c];
  }
}

// The adaptive filter's first walk for group g of output (x, y), recomputed
// with core's rescue_statistics where its weight sum fell below
// kRescueWeightSum: (sum w q, sum w). Out of line and by value, so the rare
// slow path costs the hot loop no registers and no local memory.
__device__ __noinline__ float2 rescue_first_walk(const BilateralParams& params, const DeviceBand& in, int x, int y,
                                                 int g) {
  const int r = params.radius;
  const size_t centre_at = size_t(y + r) * size_t(in.width) + size_t(x + r);
  float centre[3];
  for (int c = 0; c < params.color_channels; ++c) centre[c] = in.plane(c)[centre_at];
  auto fetch = [&](int dx, int dy, float* colour, float& alpha) {
    const size_t at = centre_at + size_t(ptrdiff_t(dy) * in.width + dx);
    for (int c = 0; c < params.color_channels; ++c) colour[c] = in.plane(c)[at];
    alpha = params.has_alpha ? in.plane(params.color_channels)[at] : 1.0f;
  };
  float2 sums;
  rescue_statistics(params, centre, g, fetch, sums.x, sums.y);
  return sums;
}

// Stores an output pixel; returns whether it needs rescue_outputs.
template <class Sum, int Channels>
__device__ __forceinline__ bool store_output(const DeviceOutput& out, int x, int y, const Sum& sum,
                                             float inverse_scale) {
  const size_t out_at = size_t(y) * out.row_stride + size_t(x);
  bool rescue = false;
#pragma unroll
  for (int ch = 0; ch < Channels; ++ch) {
    rescue |= !(sum.group_weight(ch) >= kRescueWeightSum);
    out.data[size_t(ch) * out.plane_stride + out_at] = sum.result(ch, inverse_scale);
  }
  return rescue;
}

// Walks a thread's kRowsPerThread outputs over the window in the staged
// tile, calling visit(k, spatial term, neighbour) for every tap of output k.
// Tile row j is neighbour dy = j - k of output k (valid for 0 <= j-k <
// window); rows valid for every output run without checks.
template <int kRowsPerThread, class Visit>
__device__ __forceinline__ void walk_tile(const float4* tile, int tile_width, int tx, int ty, int window,
                                          Visit&& visit) {
  for (int dx = 0; dx < window; ++dx) {
    const float4* column = tile + ty * tile_width + tx + dx;
    const float* spatial_column = c_spatial + dx;
    if (window < kRowsPerThread) {
      // r <= 1: too short for the pipelined walk below.
      for (int j = 0; j < window + kRowsPerThread - 1; ++j) {
        const float4 n = column[j * tile_width];
#pragma unroll
        for (int k = 0; k < kRowsPerThread; ++k)
          if (j - k >= 0 && j - k < window) visit(k, spatial_column[(j - k) * window], n);
      }
      continue;
    }
    // spatial[k] holds the tap's spatial term for output k; moving to row
    // j+1 shifts it down one output, so each row needs one new table read.
    float spatial[kRowsPerThread];
#pragma unroll
    for (int j = 0; j < kRowsPerThread - 1; ++j) {  // head: outputs k <= j
#pragma unroll
      for (int k = kRowsPerThread - 1; k > 0; --k) spatial[k] = spatial[k - 1];
      spatial[0] = spatial_column[j * window];
      const float4 n = column[j * tile_width];
#pragma unroll
      for (int k = 0; k <= j; ++k) visit(k, spatial[k], n);
    }
    // Body rows in chunks of the row count, unrolled, so the shift of
    // spatial[] is register renaming; then any remaining rows one by one.
    // (A "#pragma unroll N" on the plain loop left r = 7 in the rolled
    // remainder loop: 13.9 instead of 11.7 instructions per tap.)
    auto body_row = [&](int j) {
#pragma unroll
      for (int k = kRowsPerThread - 1; k > 0; --k) spatial[k] = spatial[k - 1];
      spatial[0] = spatial_column[j * window];
      const float4 n = column[j * tile_width];
#pragma unroll
      for (int k = 0; k < kRowsPerThread; ++k) visit(k, spatial[k], n);
    };
    int j = kRowsPerThread - 1;
    for (; j + kRowsPerThread <= window; j += kRowsPerThread) {
#pragma unroll
      for (int u = 0; u < kRowsPerThread; ++u) body_row(j + u);
    }
    for (; j < window; ++j) body_row(j);
#pragma unroll
    for (int t = 1; t < kRowsPerThread; ++t) {  // tail: outputs k >= t
#pragma unroll
      for (int k = kRowsPerThread - 1; k > 0; --k) spatial[k] = spatial[k - 1];
      const float4 n = column[(window - 1 + t) * tile_width];
#pragma unroll
      for (int k = t; k < kRowsPerThread; ++k) visit(k, spatial[k], n);
    }
  }
}

template <class V, int Rows, bool WithSigma>
__global__ void __launch_bounds__(kTileWidth* kThreadRows, TileShape<Rows, V::kAdaptive, WithSigma>::min_blocks)
    bilateral_tiled_kernel(DeviceBand in, DeviceOutput out, DeviceOutput sigma, int sigma_offset,
                           BilateralParams params) {
  constexpr RangeKernel K = V::kKernel;
  constexpr int Channels = V::kChannels;
  constexpr bool Joint = V::kJoint, Alpha = V::kAlpha, Adaptive = V::kAdaptive;
  // The joint Gaussian of three channels in expanded form (bilateral_math.h,
  // expanded_exponent): the tile holds centred samples and each one's bias.
  constexpr bool Expanded = K == RangeKernel::gaussian && Joint && Channels == 3 && !Adaptive;
  using Sum = BilateralSum<float, K, Channels, Joint, Alpha>;
  constexpr int kGroups = Sum::kGroups;
  const int r = params.radius;
  constexpr int kRowsPerThread = TileShape<Rows>::rows_per_thread;
  constexpr int kTileHeight = TileShape<Rows>::height;
  extern __shared__ float4 tile[];
  const int tile_width = kTileWidth + 2 * r;
  const int tile_rows = kTileHeight + 2 * r;
  const int x0 = blockIdx.x * kTileWidth, y0 = blockIdx.y * kTileHeight;

  // Stage the tile; positions past the band repeat its last sample and feed
  // only outputs that are not stored.
  // Rows by warps, columns by lanes: coalesced reads, no division per sample.
  // Expanded: centred on expanded_reference, with the bias in w, where the
  // plan's sigma-r allows it (uniform over the launch).
  const bool expanded = Expanded && expanded_form_allowed(params);
  float reference[3];
  expanded_reference(params, reference);
  // A thread's loads of kStageRows rows are issued before their stores: one
  // load at a time, staging was 26 % of the stall samples of rgb r = 7 (ncu,
  // H100), every warp of a block waiting on global memory before its walk.
  constexpr int kStageRows = 4;
  for (int ty0 = threadIdx.y; ty0 < tile_rows; ty0 += kThreadRows * kStageRows)
    for (int tx = threadIdx.x; tx < tile_width; tx += kTileWidth) {
      const int x = min(x0 + tx, in.width - 1);
      float4 staged[kStageRows];
#pragma unroll
      for (int b = 0; b < kStageRows; ++b)  // rows past the tile load its last row again, unused
        staged[b] = load_scaled<Channels, Alpha>(
            in, x, min(y0 + min(ty0 + b * kThreadRows, tile_rows - 1), in.rows - 1), params.scale);
#pragma unroll
      for (int b = 0; b < kStageRows; ++b) {
        const int ty = ty0 + b * kThreadRows;
        if (ty >= tile_rows) break;
        float4 v = staged[b];
        if (expanded) {
          const float n[3] = {v.x - reference[0], v.y - reference[1], v.z - reference[2]};
          v = make_float4(n[0], n[1], n[2], expanded_bias<Alpha>(n, v.w));
        }
        tile[ty * tile_width + tx] = v;
      }
    }
  __syncthreads();

  const int tx = threadIdx.x, ty = threadIdx.y * kRowsPerThread;
  const int window = 2 * r + 1;
  float centre[kRowsPerThread][3];
  Sum acc[kRowsPerThread];
  float ratio[Adaptive ? kRowsPerThread : 1][3];
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const float4 c = tile[(ty + k + r) * tile_width + tx + r];
    centre[k][0] = c.x;
    centre[k][1] = c.y;
    centre[k][2] = c.z;
    acc[k].clear();
  }

  if constexpr (Adaptive) {
    // First walk: each output's weighted variance, hence its ratio.
    BilateralStatistics<float, K, Channels, Joint, Alpha> stats[kRowsPerThread];
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) stats[k].clear();
    walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
      const float nv[3] = {n.x, n.y, n.z};
      stats[k].add(spatial, nv, n.w, centre[k]);
    });
    const int x = x0 + tx;
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) {
#pragma unroll
      for (int g = 0; g < kGroups; ++g)
        if (!(stats[k].weight[g] >= kRescueWeightSum) && x < out.width && y0 + ty + k < out.rows) {
          const float2 sums = rescue_first_walk(params, in, x, y0 + ty + k, g);
          stats[k].weighted_d2[g] = sums.x;
          stats[k].weight[g] = sums.y;
        }
#pragma unroll
      for (int g = 0; g < 3; ++g)
        ratio[k][g] = g < kGroups ? adaptive_ratio(params, stats[k].weighted_d2[g], stats[k].weight[g]) : 1.0f;
      const int y = y0 + ty + k, sigma_row = y - sigma_offset;
      if (WithSigma && x < out.width && y < out.rows && sigma_row >= 0 && sigma_row < sigma.rows)
#pragma unroll
        for (int g = 0; g < kGroups; ++g)
          sigma.plane(g)[size_t(sigma_row) * sigma.row_stride + size_t(x)] =
              adaptive_sigma(params, stats[k].weighted_d2[g], stats[k].weight[g]) / params.adapt_max;
    }
    walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
      const float nv[3] = {n.x, n.y, n.z};
      acc[k].add(spatial, nv, n.w, centre[k], ratio[k]);
    });
  } else {
    if (Expanded && expanded) {
      // Weights 2^|c'|^2 times the true ones (bilateral_math.h); a pixel
      // with |c'|^2 past the limit (outside the nominal range) is rescued.
      ExpandedCentre expanded_centre[kRowsPerThread];
#pragma unroll
      for (int k = 0; k < kRowsPerThread; ++k) expanded_centre[k] = ExpandedCentre(centre[k]);
      walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
        const float nv[3] = {n.x, n.y, n.z};
        acc[k].accumulate(ew_exp2(expanded_exponent(spatial, n.w, expanded_centre[k], nv)), nv, 0);
      });
      const int x = x0 + tx;
      unsigned rescue_rows = 0;
#pragma unroll
      for (int k = 0; k < kRowsPerThread; ++k) {
        const int y = y0 + ty + k;
        if (x >= out.width || y >= out.rows) continue;
        const size_t out_at = size_t(y) * out.row_stride + size_t(x);
        const float weight = acc[k].weight[0], norm2 = expanded_centre[k].norm2();
        if (!(norm2 <= kExpandedNormLimit && weight * exp2f(-norm2) >= kRescueWeightSum)) rescue_rows |= 1u << k;
#pragma unroll
        for (int ch = 0; ch < 3; ++ch)
          out.data[size_t(ch) * out.plane_stride + out_at] =
              (acc[k].sum[ch] / weight + reference[ch]) * params.inverse_scale;
      }
      if (rescue_rows) rescue_outputs(params, in, out, x, y0 + ty, rescue_rows, nullptr);
      return;
    }
    walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
      const float nv[3] = {n.x, n.y, n.z};
      acc[k].add(spatial, nv, n.w, centre[k]);
    });
  }

  const int x = x0 + tx;
  unsigned rescue_rows = 0;
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int y = y0 + ty + k;
    if (x < out.width && y < out.rows && store_output<Sum, Channels>(out, x, y, acc[k], params.inverse_scale))
      rescue_rows |= 1u << k;
  }
  if (rescue_rows) rescue_outputs(params, in, out, x, y0 + ty, rescue_rows, Adaptive ? ratio : nullptr);
}

// Any radius: one output per thread, samples read from global memory.
template <class V>
__global__ void bilateral_wide_kernel(DeviceBand in, DeviceOutput out, BilateralParams params, const float* spatial) {
  constexpr int Channels = V::kChannels;
  using Sum = BilateralSum<float, V::kKernel, Channels, V::kJoint, V::kAlpha>;
  const int r = params.radius;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  const int window = 2 * r + 1;
  const float4 c = load_scaled<Channels, V::kAlpha>(in, x + r, y + r, params.scale);
  const float centre[3] = {c.x, c.y, c.z};
  Sum acc;
  acc.clear();
  for (int dy = 0; dy < window; ++dy)
    for (int dx = 0; dx < window; ++dx) {
      const float4 n = load_scaled<Channels, V::kAlpha>(in, x + dx, y + dy, params.scale);
      const float nv[3] = {n.x, n.y, n.z};
      acc.add(spatial[dy * window + dx], nv, n.w, centre);
    }
  if (store_output<Sum, Channels>(out, x, y, acc, params.inverse_scale))
    rescue_outputs(params, in, out, x, y, 1u, nullptr);
}

__global__ void to_lab_kernel(float* r, float* g, float* b, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    rgb_to_lab(r[i], g[i], b[i], r[i], g[i], b[i]);
}

__global__ void from_lab_kernel(DeviceOutput out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  const size_t at = size_t(y) * out.row_stride + size_t(x);
  float* L = out.plane(0) + at;
  float* a = out.plane(1) + at;
  float* b = out.plane(2) + at;
  lab_to_rgb(*L, *a, *b, *L, *a, *b);
}

// The linear working space: colour planes decoded to linear light before a
// pass and encoded back after it, as the CPU does (color_lab.h's curve).
__global__ void to_linear_kernel(float* planes, size_t plane_stride, int colours) {
  const size_t count = plane_stride * size_t(colours);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    planes[i] = srgb_to_linear(planes[i]);
}

__global__ void from_linear_kernel(DeviceOutput out, int colours) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  const size_t at = size_t(y) * out.row_stride + size_t(x);
  for (int c = 0; c < colours; ++c) out.plane(c)[at] = linear_to_srgb(out.plane(c)[at]);
}

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
}

template <class V, int Rows, bool WithSigma = false>
void launch_tiled(const DeviceBand& in, const DeviceOutput& out, const DeviceOutput& sigma, int sigma_offset,
                  const BilateralParams& params, cudaStream_t stream) {
  const int r = params.radius;
  const dim3 block(kTileWidth, kThreadRows);
  constexpr int tile_height = TileShape<Rows>::height;
  const dim3 grid((out.width + kTileWidth - 1) / kTileWidth, (out.rows + tile_height - 1) / tile_height);
  const size_t shared = size_t(kTileWidth + 2 * r) * size_t(tile_height + 2 * r) * sizeof(float4);
  auto kernel = bilateral_tiled_kernel<V, Rows, WithSigma>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
        "raising the bilateral kernel's shared-memory limit");
  kernel<<<grid, block, shared, stream>>>(in, out, sigma, sigma_offset, params);
  check(cudaGetLastError(), "launching the bilateral kernel");
}

template <class V>
void launch_variant(const BilateralPlan& plan, const DeviceBand& in, const DeviceOutput& out, const DeviceOutput& sigma,
                    int sigma_offset, const float* device_table, cudaStream_t stream) {
  const BilateralParams& p = plan.params;
  if (plan.radius <= kMaxTiledRadius) {
    // 8 rows spill registers for the Lorentz and Huber kernels' divisions.
    constexpr bool wide_rows =
        V::kJoint && !V::kAdaptive && (V::kKernel == RangeKernel::gaussian || V::kKernel == RangeKernel::tukey);
    if constexpr (wide_rows) {
      if (plan.radius >= 4) return launch_tiled<V, 8>(in, out, sigma, sigma_offset, p, stream);
    }
    if constexpr (V::kAdaptive) {
      if (sigma.data) return launch_tiled<V, 4, true>(in, out, sigma, sigma_offset, p, stream);
    }
    return launch_tiled<V, 4>(in, out, sigma, sigma_offset, p, stream);
  }
  if constexpr (!V::kAdaptive) {  // unsupported() keeps the adaptive filter within the tiled radius
    const dim3 block(32, 4);
    bilateral_wide_kernel<V><<<grid_for(out.width, out.rows, block), block, 0, stream>>>(in, out, p, device_table);
    check(cudaGetLastError(), "launching the bilateral kernel");
  }
}

// The family's band: each iteration is a pass within the band, as on the
// CPU (cpu_fallback/bilateral_cpu.cpp): pass k computes the image rows the
// later passes still need, and rows beyond the image are clamped copies.
class BilateralDeviceKernel : public DeviceBandKernel {
 public:
  explicit BilateralDeviceKernel(const BilateralPlan& plan) : plan_(plan) {
    if (plan.radius > kMaxTiledRadius)
      check(cudaMalloc(&table_, plan.spatial_term.size() * sizeof(float)), "allocating the spatial table");
    upload_spatial_table(plan, table_, nullptr);
    check(cudaStreamSynchronize(nullptr), "uploading the spatial table");
  }
  ~BilateralDeviceKernel() override {
    if (table_) cudaFree(table_);
  }

  void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>& extras, float* scratch,
           cudaStream_t stream) override {
    const BilateralParams& p = plan_.params;
    const int passes = plan_.passes, r = plan_.radius, height = plan_.shape.height;
    DeviceBand source = input;
    float* spare = scratch;
    for (int pass = 1; pass <= passes; ++pass) {
      const bool last = pass == passes;
      const int halo = (passes - pass) * r;
      if (p.lab) {
        to_lab_kernel<<<264, 256, 0, stream>>>(source.plane(0), source.plane(1), source.plane(2), source.plane_stride);
        check(cudaGetLastError(), "launching the Lab conversion");
      }
      if (p.linear) {
        to_linear_kernel<<<264, 256, 0, stream>>>(source.plane(0), source.plane_stride, p.color_channels);
        check(cudaGetLastError(), "launching the linear-light conversion");
      }
      DeviceBand next;
      DeviceOutput target = output;
      if (!last) {
        next = describe_device_band(spare, output.first_row - halo, output.rows + 2 * halo, output.width, plan_.pad);
        target = inside_of(next, 0, next.rows);
      }
      const int first = std::max(0, -target.first_row);
      const int count = std::min(target.rows, height - target.first_row) - first;
      const DeviceOutput rows = from_row(target, first, count);
      const DeviceOutput sigma = pass == 1 && !extras.empty() ? extras[0] : DeviceOutput{};
      launch_filter(plan_, from_row(source, first, count + 2 * r), rows, sigma, halo - first, table_, stream);
      if (p.lab) {
        const dim3 block(32, 8);
        from_lab_kernel<<<grid_for(rows.width, rows.rows, block), block, 0, stream>>>(rows);
        check(cudaGetLastError(), "launching the Lab conversion");
      }
      if (p.linear) {
        const dim3 block(32, 8);
        from_linear_kernel<<<grid_for(rows.width, rows.rows, block), block, 0, stream>>>(rows, p.color_channels);
        check(cudaGetLastError(), "launching the linear-light conversion");
      }
      if (p.has_alpha) launch_copy_plane(source, first + r, rows, p.color_channels, stream);
      if (last) break;
      launch_repad(next, plan_.shape.channels, first, count, stream);
      spare = source.data;
      source = next;
    }
  }

 private:
  const BilateralPlan& plan_;
  float* table_ = nullptr;
};

}  // namespace

std::string bilateral_unsupported(const Plan& plan) {
  const auto& bilateral = static_cast<const BilateralPlan&>(plan);
  // The adaptive walk exists only in the shared-memory kernels.
  if (bilateral.params.adaptive && bilateral.radius > kMaxTiledRadius)
    return "the adaptive filter runs on the GPU up to radius " + std::to_string(kMaxTiledRadius);
  return "";
}

std::unique_ptr<DeviceBandKernel> make_bilateral_device_kernel(const Plan& plan) {
  return std::make_unique<BilateralDeviceKernel>(static_cast<const BilateralPlan&>(plan));
}

void upload_spatial_table(const BilateralPlan& plan, float* device_table, cudaStream_t stream) {
  const size_t bytes = plan.spatial_term.size() * sizeof(float);
  if (plan.radius <= kMaxTiledRadius)
    check(cudaMemcpyToSymbolAsync(c_spatial, plan.spatial_term.data(), bytes, 0, cudaMemcpyHostToDevice, stream),
          "uploading the spatial table");
  else
    check(cudaMemcpyAsync(device_table, plan.spatial_term.data(), bytes, cudaMemcpyHostToDevice, stream),
          "uploading the spatial table");
}

void launch_filter(const BilateralPlan& plan, const DeviceBand& in, const DeviceOutput& out, const DeviceOutput& sigma,
                   int sigma_offset, const float* device_table, cudaStream_t stream) {
  visit_bilateral_variant(plan.params, [&](auto variant) {
    launch_variant<decltype(variant)>(plan, in, out, sigma, sigma_offset, device_table, stream);
  });
}

}  // namespace edgewise::cuda
