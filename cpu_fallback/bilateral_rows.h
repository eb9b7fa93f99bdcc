// The CPU backend's inner loops: N output pixels of one row per SIMD vector
// (GCC vector extensions, so one source serves SSE2, AVX2 and AVX-512), all
// taps of the window accumulated in registers. Included by one translation
// unit per instruction set (bilateral_rows_*.cpp); runtime dispatch picks one.
//
// Each instruction set uses its own vector width (4, 8, 16), so the inline
// templates of core/ are instantiated with distinct types per translation
// unit and no AVX-512 code can be shared into the generic path.
//
// Every lane performs the same operations in the same order whatever its
// position, so a pixel's value does not depend on the band, the thread or
// the lane it was computed in.
#pragma once

#include "band.h"
#include "bilateral.h"
#include "bilateral_cpu.h"
#include "lanes.h"

namespace edgewise::cpu::EW_ISA_NAMESPACE {

template <int N>
using vec = float_lanes<N>;

template <int N>
inline vec<N> load(const float* p) {
  vec<N> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

template <int N>
inline vec<N> splat(float x) { return vec<N>{} + x; }

// Writes the first `count` lanes: the row's last vector may overhang.
template <int N>
inline void store(float* p, vec<N> v, int count) {
  if (count == N) {
    __builtin_memcpy(p, &v, sizeof v);
  } else {
    for (int i = 0; i < count; ++i) p[i] = v[i];
  }
}

// Recomputes, with core's rescue_pixel, the pixels of a stored vector whose
// weight sum fell below kRescueWeightSum (see bilateral.h).
template <int N>
void rescue_lanes(const Plan& plan, const PaddedBand& in, const OutputBand& out, int y, int x0, int count,
                  const vec<N>* weight_sums, int groups) {
  const BilateralParams& p = plan.params;
  const int r = plan.radius, pw = in.width;
  for (int lane = 0; lane < count; ++lane) {
    bool needed = false;
    for (int g = 0; g < groups; ++g) needed |= !(weight_sums[g][lane] >= kRescueWeightSum);
    if (!needed) continue;
    const int x = x0 + lane;
    const size_t centre_at = size_t(y + r) * size_t(pw) + size_t(x + r);
    float centre[3], result[3];
    for (int c = 0; c < p.color_channels; ++c) centre[c] = in.plane(c)[centre_at];
    auto fetch = [&](int dx, int dy, float* colour, float& alpha) {
      const size_t at = centre_at + size_t(ptrdiff_t(dy) * pw + dx);
      for (int c = 0; c < p.color_channels; ++c) colour[c] = in.plane(c)[at];
      alpha = p.has_alpha ? in.plane(p.color_channels)[at] : 1.0f;
    };
    rescue_pixel(p, centre, fetch, result);
    for (int c = 0; c < p.color_channels; ++c) out.plane(c)[size_t(y) * size_t(out.width) + size_t(x)] = result[c];
  }
}

// One weight per tap from the distance over all colour channels (rgb, lab,
// grey). C is 1 or 3.
template <int N, RangeKernel K, int C, bool Alpha>
void joint_rows(const Plan& plan, const PaddedBand& in, const OutputBand& out, int row_begin, int row_end) {
  const int r = plan.radius, window = plan.window(), pw = in.width;
  const float* spatial_term = plan.spatial_term.data();
  const float coefficient = plan.params.range_coefficient;
  const float* alpha = Alpha ? in.plane(C) : nullptr;

  for (int y = row_begin; y < row_end; ++y) {
    for (int x0 = 0; x0 < out.width; x0 += N) {
      const size_t centre_at = size_t(y + r) * size_t(pw) + size_t(x0 + r);
      vec<N> centre[C], sum[C];
      for (int c = 0; c < C; ++c) {
        centre[c] = load<N>(in.plane(c) + centre_at);
        sum[c] = vec<N>{};
      }
      vec<N> weight_sum{};
      for (int dy = 0; dy < window; ++dy) {
        const size_t row_at = size_t(y + dy) * size_t(pw) + size_t(x0);
        const float* rows[C];
        for (int c = 0; c < C; ++c) rows[c] = in.plane(c) + row_at;
        for (int dx = 0; dx < window; ++dx) {
          vec<N> neighbour[C];
          vec<N> distance2{};
          for (int c = 0; c < C; ++c) {
            neighbour[c] = load<N>(rows[c] + dx);
            const vec<N> diff = neighbour[c] - centre[c];
            distance2 += diff * diff;
          }
          const int tap = dy * window + dx;
          vec<N> w = tap_weight<K>(splat<N>(spatial_term[tap]), distance2, coefficient);
          if constexpr (Alpha) w *= load<N>(alpha + row_at + size_t(dx));
          for (int c = 0; c < C; ++c) sum[c] += w * neighbour[c];
          weight_sum += w;
        }
      }
      const int count = out.width - x0 < N ? out.width - x0 : N;
      const size_t out_at = size_t(y) * size_t(out.width) + size_t(x0);
      for (int c = 0; c < C; ++c) store<N>(out.plane(c) + out_at, normalise(sum[c], weight_sum, centre[c]), count);
      rescue_lanes<N>(plan, in, out, y, x0, count, &weight_sum, 1);
    }
  }
}

// Three colour channels, each weighted by its own difference.
template <int N, RangeKernel K, bool Alpha>
void per_channel_rows(const Plan& plan, const PaddedBand& in, const OutputBand& out, int row_begin, int row_end) {
  constexpr int C = 3;
  const int r = plan.radius, window = plan.window(), pw = in.width;
  const float* spatial_term = plan.spatial_term.data();
  const float coefficient = plan.params.range_coefficient;
  const float* alpha = Alpha ? in.plane(C) : nullptr;

  for (int y = row_begin; y < row_end; ++y) {
    for (int x0 = 0; x0 < out.width; x0 += N) {
      const size_t centre_at = size_t(y + r) * size_t(pw) + size_t(x0 + r);
      vec<N> centre[C], sum[C], weight_sum[C];
      for (int c = 0; c < C; ++c) {
        centre[c] = load<N>(in.plane(c) + centre_at);
        sum[c] = weight_sum[c] = vec<N>{};
      }
      for (int dy = 0; dy < window; ++dy) {
        const size_t row_at = size_t(y + dy) * size_t(pw) + size_t(x0);
        for (int dx = 0; dx < window; ++dx) {
          const int tap = dy * window + dx;
          const vec<N> spatial = splat<N>(spatial_term[tap]);
          const vec<N> a = Alpha ? load<N>(alpha + row_at + size_t(dx)) : splat<N>(1.0f);
          for (int c = 0; c < C; ++c) {
            const vec<N> neighbour = load<N>(in.plane(c) + row_at + size_t(dx));
            const vec<N> diff = neighbour - centre[c];
            vec<N> w = tap_weight<K>(spatial, diff * diff, coefficient);
            if constexpr (Alpha) w *= a;
            sum[c] += w * neighbour;
            weight_sum[c] += w;
          }
        }
      }
      const int count = out.width - x0 < N ? out.width - x0 : N;
      const size_t out_at = size_t(y) * size_t(out.width) + size_t(x0);
      for (int c = 0; c < C; ++c)
        store<N>(out.plane(c) + out_at, normalise(sum[c], weight_sum[c], centre[c]), count);
      rescue_lanes<N>(plan, in, out, y, x0, count, weight_sum, C);
    }
  }
}

template <int N, RangeKernel K>
RowFunction select_for_kernel(const BilateralParams& p) {
  if (p.color_channels == 1)
    return p.has_alpha ? joint_rows<N, K, 1, true> : joint_rows<N, K, 1, false>;
  if (p.joint)
    return p.has_alpha ? joint_rows<N, K, 3, true> : joint_rows<N, K, 3, false>;
  return p.has_alpha ? per_channel_rows<N, K, true> : per_channel_rows<N, K, false>;
}

template <int N>
RowFunction select_rows(const BilateralParams& p) {
  switch (p.kernel) {
    case RangeKernel::gaussian: return select_for_kernel<N, RangeKernel::gaussian>(p);
    case RangeKernel::tukey: return select_for_kernel<N, RangeKernel::tukey>(p);
    case RangeKernel::lorentz: return select_for_kernel<N, RangeKernel::lorentz>(p);
    case RangeKernel::huber: return select_for_kernel<N, RangeKernel::huber>(p);
  }
  return nullptr;
}

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
