// The exact bilateral filter on the GPU. The weights come from core/
// (tap_weight, ew_exp2, the range kernels), so this file only decides how
// threads walk the window.
//
// Tiled kernels: a block stages a (32 + 2r) x (32 + 2r) tile of scaled
// samples in shared memory as float4 (three colours and alpha); each thread
// computes kRowsPerThread vertically adjacent outputs, so every shared-memory
// load feeds that many taps. Samples are pre-scaled by sqrt(range
// coefficient), which folds the range scale into the distance; for the
// Gaussian the exponent is built as spatial - sum(diff^2) in one FMA chain
// and a tap costs one ex2.approx.
#include <cuda_runtime.h>

#include <algorithm>

#include "bilateral_cuda.h"
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
template <int Rows>
struct TileShape {
  static constexpr int rows_per_thread = Rows;
  static constexpr int min_blocks = Rows == 8 ? 3 : 1;
  static constexpr int height = kThreadRows * Rows;
};
constexpr int kMaxTaps = (2 * kMaxTiledRadius + 1) * (2 * kMaxTiledRadius + 1);

__constant__ float c_spatial[kMaxTaps];

struct Accumulator3 {
  float sum[3];
  float weight[3];  // per channel; joint modes use weight[0]
};

// Weight of one tap from pre-scaled samples: q is already in kernel units.
template <RangeKernel K>
__device__ __forceinline__ float joint_weight(float spatial, float4 n, float4 c, int channels) {
  const float d0 = n.x - c.x;
  if constexpr (K == RangeKernel::gaussian) {
    // Same value as tap_weight<gaussian>(spatial, q, 1), with the sum folded
    // into the exponent's FMA chain.
    float e = spatial - d0 * d0;
    if (channels == 3) {
      const float d1 = n.y - c.y, d2 = n.z - c.z;
      e = e - d1 * d1;
      e = e - d2 * d2;
    }
    return ew_exp2(e);
  } else {
    float q = d0 * d0;
    if (channels == 3) {
      const float d1 = n.y - c.y, d2 = n.z - c.z;
      q += d1 * d1 + d2 * d2;
    }
    return tap_weight<K>(spatial, q, 1.0f);
  }
}

template <RangeKernel K, int Channels, bool Joint, bool Alpha>
__device__ __forceinline__ void accumulate(Accumulator3& acc, float spatial, float4 n, float4 c) {
  if constexpr (Joint) {
    float w = joint_weight<K>(spatial, n, c, Channels);
    if constexpr (Alpha) w *= n.w;
    acc.sum[0] += w * n.x;
    if constexpr (Channels == 3) {
      acc.sum[1] += w * n.y;
      acc.sum[2] += w * n.z;
    }
    acc.weight[0] += w;
  } else {
    const float nv[3] = {n.x, n.y, n.z}, cv[3] = {c.x, c.y, c.z};
#pragma unroll
    for (int ch = 0; ch < 3; ++ch) {
      const float d = nv[ch] - cv[ch];
      float w;
      if constexpr (K == RangeKernel::gaussian)
        w = ew_exp2(spatial - d * d);
      else
        w = tap_weight<K>(spatial, d * d, 1.0f);
      if constexpr (Alpha) w *= n.w;
      acc.sum[ch] += w * nv[ch];
      acc.weight[ch] += w;
    }
  }
}

// Squared difference of channel group g (all channels when Joint).
template <int Channels, bool Joint>
__device__ __forceinline__ float group_distance2(float4 n, float4 c, int g) {
  const float d0 = n.x - c.x, d1 = n.y - c.y, d2 = n.z - c.z;
  if constexpr (Joint) return Channels == 3 ? d0 * d0 + d1 * d1 + d2 * d2 : d0 * d0;
  return g == 0 ? d0 * d0 : g == 1 ? d1 * d1 : d2 * d2;
}

// The adaptive filter's first walk: per group, sum w d^2 and sum w with the
// user's weights (d^2 in scaled units).
struct Statistics {
  float weighted_d2[3];
  float weight[3];
};

template <RangeKernel K, int Channels, bool Joint, bool Alpha>
__device__ __forceinline__ void gather_statistics(Statistics& stats, float spatial, float4 n, float4 c) {
#pragma unroll
  for (int g = 0; g < (Joint ? 1 : 3); ++g) {
    const float d2 = group_distance2<Channels, Joint>(n, c, g);
    float w = K == RangeKernel::gaussian ? ew_exp2(spatial - d2) : tap_weight<K>(spatial, d2, 1.0f);
    if constexpr (Alpha) w *= n.w;
    stats.weighted_d2[g] += w * d2;
    stats.weight[g] += w;
  }
}

// The adaptive filter's second walk: q = ratio * d^2 with the pixel's own
// coefficient over the user's (ratio per group).
template <RangeKernel K, int Channels, bool Joint, bool Alpha>
__device__ __forceinline__ void accumulate_adaptive(Accumulator3& acc, float spatial, float4 n, float4 c,
                                                    const float* ratio) {
  const float nv[3] = {n.x, n.y, n.z};
#pragma unroll
  for (int g = 0; g < (Joint ? 1 : 3); ++g) {
    const float q = ratio[g] * group_distance2<Channels, Joint>(n, c, g);
    float w = K == RangeKernel::gaussian ? ew_exp2(spatial - q) : tap_weight<K>(spatial, q, 1.0f);
    if constexpr (Alpha) w *= n.w;
    if constexpr (Joint) {
#pragma unroll
      for (int ch = 0; ch < Channels; ++ch) acc.sum[ch] += w * nv[ch];
    } else {
      acc.sum[g] += w * nv[g];
    }
    acc.weight[g] += w;
  }
}

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
                                            const float (*coefficients)[3]) {
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
    rescue_pixel(params, coefficients ? coefficients[k] : nullptr, centre, fetch, result);
    for (int c = 0; c < params.color_channels; ++c) out.plane(c)[size_t(y) * size_t(out.width) + size_t(x)] = result[c];
  }
}

// Returns whether the pixel needs rescue_outputs (its value is left unset).
template <int Channels, bool Joint>
__device__ __forceinline__ bool store_output(const DeviceOutput& out, int x, int y, const Accumulator3& acc,
                                             float inverse_scale) {
  const size_t out_at = size_t(y) * size_t(out.width) + size_t(x);
  bool rescue = false;
#pragma unroll
  for (int ch = 0; ch < Channels; ++ch) {
    const float weight = acc.weight[Joint ? 0 : ch];
    rescue |= !(weight >= kRescueWeightSum);
    out.data[size_t(ch) * out.plane_stride + out_at] = acc.sum[ch] / weight * inverse_scale;
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
          if (j - k >= 0 && j - k < window)
            visit(k, spatial_column[(j - k) * window], n);
      }
      continue;
    }
    // Tile row j is neighbour dy = j - k of output k (valid for 0 <= j-k <
    // window). spatial[k] holds that tap's spatial term; moving to row j+1
    // shifts it down one output, so each row needs one new table read.
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

template <RangeKernel K, int Channels, bool Joint, bool Alpha, int Rows, bool Adaptive>
__global__ void __launch_bounds__(kTileWidth * kThreadRows, TileShape<Rows>::min_blocks)
    bilateral_tiled_kernel(DeviceBand in, DeviceOutput out, BilateralParams params, float scale) {
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
  for (int ty = threadIdx.y; ty < tile_rows; ty += kThreadRows) {
    const int y = min(y0 + ty, in.rows - 1);
    for (int tx = threadIdx.x; tx < tile_width; tx += kTileWidth)
      tile[ty * tile_width + tx] = load_scaled<Channels, Alpha>(in, min(x0 + tx, in.width - 1), y, scale);
  }
  __syncthreads();

  const int tx = threadIdx.x, ty = threadIdx.y * kRowsPerThread;
  const int window = 2 * r + 1;
  float4 centre[kRowsPerThread];
  Accumulator3 acc[kRowsPerThread];
  float coefficient[Adaptive ? kRowsPerThread : 1][3], ratio[Adaptive ? kRowsPerThread : 1][3];
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    centre[k] = tile[(ty + k + r) * tile_width + tx + r];
    acc[k] = Accumulator3{{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}};
  }

  if constexpr (Adaptive) {
    // First walk: each output's weighted variance, hence its coefficient;
    // ratio = that coefficient over the user's, which the tile is scaled by.
    Statistics stats[kRowsPerThread];
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) stats[k] = Statistics{{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}};
    walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
      gather_statistics<K, Channels, Joint, Alpha>(stats[k], spatial, n, centre[k]);
    });
    const float user = params.range_coefficient;
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k)
#pragma unroll
      for (int g = 0; g < 3; ++g) {
        coefficient[k][g] = adaptive_coefficient(params, stats[k].weighted_d2[g] / user, stats[k].weight[g]);
        ratio[k][g] = coefficient[k][g] / user;
      }
    walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
      accumulate_adaptive<K, Channels, Joint, Alpha>(acc[k], spatial, n, centre[k], ratio[k]);
    });
  } else {
    walk_tile<kRowsPerThread>(tile, tile_width, tx, ty, window, [&](int k, float spatial, float4 n) {
      accumulate<K, Channels, Joint, Alpha>(acc[k], spatial, n, centre[k]);
    });
  }

  const float inverse_scale = 1.0f / scale;
  const int x = x0 + tx;
  unsigned rescue_rows = 0;
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int y = y0 + ty + k;
    if (x < out.width && y < out.rows && store_output<Channels, Joint>(out, x, y, acc[k], inverse_scale))
      rescue_rows |= 1u << k;
  }
  if (rescue_rows) rescue_outputs(params, in, out, x, y0 + ty, rescue_rows, Adaptive ? coefficient : nullptr);
}

// Any radius: one output per thread, samples read from global memory.
template <RangeKernel K, int Channels, bool Joint, bool Alpha>
__global__ void bilateral_wide_kernel(DeviceBand in, DeviceOutput out, BilateralParams params, float scale,
                                      const float* spatial) {
  const int r = params.radius;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  const int window = 2 * r + 1;
  const float4 centre = load_scaled<Channels, Alpha>(in, x + r, y + r, scale);
  Accumulator3 acc{{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}};
  for (int dy = 0; dy < window; ++dy)
    for (int dx = 0; dx < window; ++dx)
      accumulate<K, Channels, Joint, Alpha>(acc, spatial[dy * window + dx],
                                            load_scaled<Channels, Alpha>(in, x + dx, y + dy, scale), centre);
  if (store_output<Channels, Joint>(out, x, y, acc, 1.0f / scale)) rescue_outputs(params, in, out, x, y, 1u, nullptr);
}

__global__ void copy_alpha_kernel(DeviceBand in, DeviceOutput out, int r, int alpha_plane) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  out.plane(alpha_plane)[size_t(y) * out.width + x] = in.plane(alpha_plane)[size_t(y + r) * in.width + x + r];
}

__global__ void to_lab_kernel(float* r, float* g, float* b, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    rgb_to_lab(r[i], g[i], b[i], r[i], g[i], b[i]);
}

__global__ void from_lab_kernel(DeviceOutput out) {
  const size_t count = size_t(out.width) * out.rows;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    float* L = out.plane(0) + i;
    float* a = out.plane(1) + i;
    float* b = out.plane(2) + i;
    lab_to_rgb(*L, *a, *b, *L, *a, *b);
  }
}

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
}

template <RangeKernel K, int Channels, bool Joint, bool Alpha, int Rows, bool Adaptive>
void launch_tiled(const DeviceOutput& out, const DeviceBand& in, const BilateralParams& params, float scale,
                  cudaStream_t stream) {
  const int r = params.radius;
  const dim3 block(kTileWidth, kThreadRows);
  constexpr int tile_height = TileShape<Rows>::height;
  const dim3 grid((out.width + kTileWidth - 1) / kTileWidth, (out.rows + tile_height - 1) / tile_height);
  const size_t shared = size_t(kTileWidth + 2 * r) * size_t(tile_height + 2 * r) * sizeof(float4);
  auto kernel = bilateral_tiled_kernel<K, Channels, Joint, Alpha, Rows, Adaptive>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
        "raising the bilateral kernel's shared-memory limit");
  kernel<<<grid, block, shared, stream>>>(in, out, params, scale);
  check(cudaGetLastError(), "launching the bilateral kernel");
}

template <RangeKernel K, int Channels, bool Joint, bool Alpha>
void launch_variant(const Plan& plan, const DeviceBand& in, const DeviceOutput& out, const float* device_table,
                    cudaStream_t stream) {
  const int r = plan.radius;
  const float scale = sqrtf(plan.params.range_coefficient);
  if (r <= kMaxTiledRadius) {
    // 8 rows spill registers for the Lorentz and Huber kernels' divisions.
    constexpr bool wide_rows = Joint && (K == RangeKernel::gaussian || K == RangeKernel::tukey);
    if (plan.params.adaptive) return launch_tiled<K, Channels, Joint, Alpha, 4, true>(out, in, plan.params, scale, stream);
    if constexpr (wide_rows) {
      if (r >= 4) return launch_tiled<K, Channels, Joint, Alpha, 8, false>(out, in, plan.params, scale, stream);
    }
    launch_tiled<K, Channels, Joint, Alpha, 4, false>(out, in, plan.params, scale, stream);
  } else {
    const dim3 block(32, 4);
    bilateral_wide_kernel<K, Channels, Joint, Alpha>
        <<<grid_for(out.width, out.rows, block), block, 0, stream>>>(in, out, plan.params, scale, device_table);
    check(cudaGetLastError(), "launching the bilateral kernel");
  }
}

template <RangeKernel K>
void launch_for_kernel(const Plan& plan, const DeviceBand& in, const DeviceOutput& out, const float* table,
                       cudaStream_t stream) {
  const BilateralParams& p = plan.params;
  if (p.color_channels == 1)
    return p.has_alpha ? launch_variant<K, 1, true, true>(plan, in, out, table, stream)
                       : launch_variant<K, 1, true, false>(plan, in, out, table, stream);
  if (p.joint)
    return p.has_alpha ? launch_variant<K, 3, true, true>(plan, in, out, table, stream)
                       : launch_variant<K, 3, true, false>(plan, in, out, table, stream);
  return p.has_alpha ? launch_variant<K, 3, false, true>(plan, in, out, table, stream)
                     : launch_variant<K, 3, false, false>(plan, in, out, table, stream);
}

}  // namespace

void launch_invalid_configuration() {
  copy_alpha_kernel<<<1, dim3(64, 64)>>>(DeviceBand{}, DeviceOutput{}, 0, 0);
  check(cudaGetLastError(), "injected failure (EDGEWISE_INJECT_GPU_FAILURE=launch)");
}

void upload_spatial_table(const Plan& plan, float* device_table, cudaStream_t stream) {
  const size_t bytes = plan.spatial_term.size() * sizeof(float);
  if (plan.radius <= kMaxTiledRadius)
    check(cudaMemcpyToSymbolAsync(c_spatial, plan.spatial_term.data(), bytes, 0, cudaMemcpyHostToDevice, stream),
          "uploading the spatial table");
  else
    check(cudaMemcpyAsync(device_table, plan.spatial_term.data(), bytes, cudaMemcpyHostToDevice, stream),
          "uploading the spatial table");
}

void launch_filter(const Plan& plan, const DeviceBand& in, const DeviceOutput& out, const float* device_table,
                   cudaStream_t stream) {
  switch (plan.params.kernel) {
    case RangeKernel::gaussian: launch_for_kernel<RangeKernel::gaussian>(plan, in, out, device_table, stream); break;
    case RangeKernel::tukey: launch_for_kernel<RangeKernel::tukey>(plan, in, out, device_table, stream); break;
    case RangeKernel::lorentz: launch_for_kernel<RangeKernel::lorentz>(plan, in, out, device_table, stream); break;
    case RangeKernel::huber: launch_for_kernel<RangeKernel::huber>(plan, in, out, device_table, stream); break;
  }
}

void launch_bilateral(const Plan& plan, const DeviceBand& in, const DeviceOutput& out, const float* device_table,
                      cudaStream_t stream) {
  const BilateralParams& p = plan.params;
  if (p.lab) {
    to_lab_kernel<<<264, 256, 0, stream>>>(in.plane(0), in.plane(1), in.plane(2), in.plane_stride);
    check(cudaGetLastError(), "launching the Lab conversion");
  }
  launch_filter(plan, in, out, device_table, stream);
  if (p.lab) {
    from_lab_kernel<<<264, 256, 0, stream>>>(out);
    check(cudaGetLastError(), "launching the Lab conversion");
  }
  if (p.has_alpha) {
    const dim3 block(32, 8);
    copy_alpha_kernel<<<grid_for(out.width, out.rows, block), block, 0, stream>>>(in, out, plan.radius,
                                                                               p.color_channels);
    check(cudaGetLastError(), "launching the alpha copy");
  }
}

}  // namespace edgewise::cuda
