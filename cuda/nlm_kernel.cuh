// The non-local-means bilateral filter's fused kernel, a template over the
// patch radius F so that a strip's squared differences stay in registers.
// Each F is compiled in its own translation unit (nlm_patch.cu.in, made six
// times by CMake), so they build in parallel; only those units include this
// file. The Gaussian range kernel has its own instantiation (its range
// term is folded into the one exponential); the other three share one, and
// alpha is a run-time choice, to keep the count at 36.
//
// One fused kernel per band, nothing per offset written to device memory.
// A block holds its tile's input region (the tile grown by S + F) in shared
// memory, one plane per channel, loaded once; then each warp works alone on
// a strip of output rows, with no block barrier in the offset loop. Lane l
// owns one column (the tile's columns grown by F) and keeps the strip's
// pixels of it in registers. For each search offset it walks the strip's
// rows and F rows above and below: reads the shifted pixel from shared
// memory, its squared difference E in registers; once 2F + 1 rows of E are
// there, the vertical box sum afresh, the horizontal one by warp shuffles
// over lanes l - F .. l + F (valid for the 32 - 2F lanes whose patch lies
// within the warp's columns), one weight and the weighted sums. Per pixel
// and offset: (rows + 2F) / rows shifted reads per channel, 2F shuffles, no
// shared-memory writes.
#pragma once

#include "nlm_layout.h"
#include "nlm_math.h"

namespace edgewise::cuda {

namespace nlm_detail {

constexpr unsigned kAllLanes = 0xffffffffu;

template <bool Gaussian>
__device__ __forceinline__ float weight(const NlmParams& p, float box, float centre_d2, float spatial,
                                        float distance_scale) {
  if constexpr (Gaussian) {
    return nlm_weight<RangeKernel::gaussian>(p, box, centre_d2, spatial, distance_scale);
  } else {
    switch (p.kernel) {  // uniform over the grid
      case RangeKernel::tukey:
        return nlm_weight<RangeKernel::tukey>(p, box, centre_d2, spatial, distance_scale);
      case RangeKernel::lorentz:
        return nlm_weight<RangeKernel::lorentz>(p, box, centre_d2, spatial, distance_scale);
      default:
        return nlm_weight<RangeKernel::huber>(p, box, centre_d2, spatial, distance_scale);
    }
  }
}

template <bool Gaussian, int C, bool Joint, int F>
__global__ void __launch_bounds__(32 * kNlmMaxWarps)
    nlm_kernel(DeviceBand in, DeviceOutput out, NlmParams p, NlmLayout layout) {
  constexpr int kGroups = Joint ? 1 : C;
  constexpr int kRows = nlm_strip_rows(C, Joint, F);
  constexpr int kDiffRows = kRows + 2 * F;  // E rows of a strip: its rows and F above and below
  extern __shared__ float region[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int S = p.search_radius, reach = S + F, W = layout.region_width, plane = layout.plane_floats();

  // Tiles sit on image rows that are multiples of the tile height whatever
  // the band's first row, so each pixel is computed by the same lane, strip
  // and instruction sequence in every band: bit-identical across band
  // heights. tile_y is output-relative and may be negative.
  const int tile_height = layout.tile_height(), shift = out.first_row % tile_height;
  const int tile_x = blockIdx.x * layout.tile_width, tile_y = int(blockIdx.y) * tile_height - shift;

  // The region: band rows tile_y .. (band row j + reach is output row j),
  // band columns tile_x .. (pad = reach), clamped to the band.
  for (int i = threadIdx.x; i < plane; i += 32 * layout.warps) {
    const int ry = i / W, rx = i - ry * W;
    const int by = max(0, min(tile_y + ry, in.rows - 1)), bx = min(tile_x + rx, in.width - 1);
    const size_t at = size_t(by) * size_t(in.width) + size_t(bx);
#pragma unroll
    for (int c = 0; c < C; ++c) region[c * plane + i] = in.plane(c)[at] * p.unit;
    if (p.has_alpha) region[C * plane + i] = in.plane(C)[at];
  }
  __syncthreads();

  // Lane l's column is output column l - F of the tile; E row r of the
  // strip (output row strip + r - F) is region row strip + r + S.
  const int strip = warp * kRows;
  const int home = (strip + S) * W + lane + S;
  float centre[kDiffRows][C];
#pragma unroll
  for (int r = 0; r < kDiffRows; ++r)
#pragma unroll
    for (int c = 0; c < C; ++c) centre[r][c] = region[c * plane + home + r * W];

  // Reads the scaled samples around region index `pixel` (the rescue's and
  // the distance scale's view of the region).
  auto fetch_around = [&](int pixel) {
    return [&, pixel](int ox, int oy, float* colour, float& a) {
      const int at_region = pixel + oy * W + ox;
      for (int c = 0; c < 3; ++c) colour[c] = c < C ? region[c * plane + at_region] : 0.f;
      a = p.has_alpha ? region[C * plane + at_region] : 1.f;
    };
  };
  // Lanes whose patch reaches past the warp's columns compute nothing of
  // use (their region reads could leave the region): they keep patch_norm.
  const bool output_lane = lane >= F && lane < 32 - F;
  float distance_scale[kRows][kGroups];
#pragma unroll
  for (int j = 0; j < kRows; ++j)
#pragma unroll
    for (int g = 0; g < kGroups; ++g)
      distance_scale[j][g] =
          output_lane ? nlm_distance_scale(p, fetch_around((strip + j + reach) * W + lane + S), g) : p.patch_norm;

  float sum[kRows][C];
  float weight_sum[kRows][kGroups];
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
#pragma unroll
    for (int c = 0; c < C; ++c) sum[j][c] = 0.f;
#pragma unroll
    for (int g = 0; g < kGroups; ++g) weight_sum[j][g] = 0.f;
  }

  for (int dy = -S; dy <= S; ++dy)
    for (int dx = -S; dx <= S; ++dx) {
      const float spatial = nlm_spatial_log2(p, dx, dy);
      const int shifted = home + dy * W + dx;
      float q[kDiffRows][C];        // fully unrolled: only a window of it is live
      float e[kDiffRows][kGroups];  // likewise
#pragma unroll
      for (int r = 0; r < kDiffRows; ++r) {
#pragma unroll
        for (int c = 0; c < C; ++c) q[r][c] = region[c * plane + shifted + r * W];
        if constexpr (Joint) {
          float d = centre[r][0] - q[r][0];
          e[r][0] = d * d;
#pragma unroll
          for (int c = 1; c < C; ++c) {
            d = centre[r][c] - q[r][c];
            e[r][0] = fmaf(d, d, e[r][0]);
          }
        } else {
#pragma unroll
          for (int c = 0; c < C; ++c) {
            const float d = centre[r][c] - q[r][c];
            e[r][c] = d * d;
          }
        }
        // Output row j = r - 2F has its patch's rows j .. j + 2F now, its
        // centre at E row j + F. Both sums in one fixed order.
        const int j = r - 2 * F;
        if (j < 0) continue;
        float alpha = 1.f;
        if (p.has_alpha) alpha = region[C * plane + shifted + (j + F) * W];
#pragma unroll
        for (int g = 0; g < kGroups; ++g) {
          float vertical = e[j][g];
#pragma unroll
          for (int k = 1; k <= 2 * F; ++k) vertical += e[j + k][g];
          float box = vertical;
#pragma unroll
          for (int t = 1; t <= F; ++t)
            box += __shfl_down_sync(kAllLanes, vertical, t) + __shfl_up_sync(kAllLanes, vertical, t);
          const float w = weight<Gaussian>(p, box, e[j + F][g], spatial, distance_scale[j][g]) * alpha;
          weight_sum[j][g] += w;
          if constexpr (Joint) {
#pragma unroll
            for (int c = 0; c < C; ++c) sum[j][c] = fmaf(w, q[j + F][c], sum[j][c]);
          } else {
            sum[j][g] = fmaf(w, q[j + F][g], sum[j][g]);
          }
        }
      }
    }

  if (!output_lane) return;
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const int x = tile_x + lane - F, y = tile_y + strip + j;
    if (x >= out.width || y < 0 || y >= out.rows) continue;
    const size_t at = size_t(y) * out.row_stride + size_t(x);
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      float value[3];
      if (weight_sum[j][g] >= kNlmRescueWeightSum) {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (Joint || c == g) value[c] = sum[j][c] / weight_sum[j][g];
      } else {
        nlm_rescue_pixel(p, fetch_around((strip + j + reach) * W + lane + S), g, value);
      }
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (Joint || c == g) out.plane(c)[at] = value[c] * p.inverse_unit;
    }
  }
}

template <bool Gaussian, int C, bool Joint, int F>
void launch(const NlmParams& p, const NlmLayout& layout, const DeviceBand& in, const DeviceOutput& out,
            cudaStream_t stream) {
  const size_t shared = layout.shared_bytes();
  auto kernel = nlm_kernel<Gaussian, C, Joint, F>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
        "raising the nlm kernel's shared-memory limit");
  const int tile_height = layout.tile_height(), shift = out.first_row % tile_height;  // see nlm_kernel
  const dim3 grid((out.width + layout.tile_width - 1) / layout.tile_width,
                  (shift + out.rows + tile_height - 1) / tile_height);
  kernel<<<grid, 32 * layout.warps, shared, stream>>>(in, out, p, layout);
  check(cudaGetLastError(), "launching the nlm kernel");
}

template <bool Gaussian, int F>
void launch_layout(const NlmParams& p, const NlmLayout& layout, const DeviceBand& in, const DeviceOutput& out,
                   cudaStream_t stream) {
  if (p.color_channels == 1) return launch<Gaussian, 1, true, F>(p, layout, in, out, stream);
  if (p.joint) return launch<Gaussian, 3, true, F>(p, layout, in, out, stream);
  return launch<Gaussian, 3, false, F>(p, layout, in, out, stream);
}

}  // namespace nlm_detail

template <int F>
void launch_nlm_patch(const NlmParams& p, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream) {
  const NlmLayout layout = nlm_layout(p);
  if (p.kernel == RangeKernel::gaussian) return nlm_detail::launch_layout<true, F>(p, layout, in, out, stream);
  nlm_detail::launch_layout<false, F>(p, layout, in, out, stream);
}

}  // namespace edgewise::cuda
