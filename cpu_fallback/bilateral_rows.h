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
// weight sum fell below kRescueWeightSum (see bilateral.h). `coefficients`
// holds the adaptive filter's per-pixel range coefficients (one vector per
// weight group), or is null for the plan's own.
template <int N>
void rescue_lanes(const Plan& plan, const PaddedBand& in, const OutputBand& out, int y, int x0, int count,
                  const vec<N>* weight_sums, int groups, const vec<N>* coefficients) {
  const BilateralParams& p = plan.params;
  const int r = plan.radius, pw = in.width;
  for (int lane = 0; lane < count; ++lane) {
    bool needed = false;
    for (int g = 0; g < groups; ++g) needed |= !(weight_sums[g][lane] >= kRescueWeightSum);
    if (!needed) continue;
    const int x = x0 + lane;
    const size_t centre_at = size_t(y + r) * size_t(pw) + size_t(x + r);
    float centre[3], result[3], lane_coefficients[3];
    for (int c = 0; c < p.color_channels; ++c) centre[c] = in.plane(c)[centre_at];
    auto fetch = [&](int dx, int dy, float* colour, float& alpha) {
      const size_t at = centre_at + size_t(ptrdiff_t(dy) * pw + dx);
      for (int c = 0; c < p.color_channels; ++c) colour[c] = in.plane(c)[at];
      alpha = p.has_alpha ? in.plane(p.color_channels)[at] : 1.0f;
    };
    for (int g = 0; coefficients && g < groups; ++g) lane_coefficients[g] = coefficients[g][lane];
    rescue_pixel(p, coefficients ? lane_coefficients : nullptr, centre, fetch, result);
    for (int c = 0; c < p.color_channels; ++c) out.plane(c)[size_t(y) * size_t(out.width) + size_t(x)] = result[c];
  }
}

// Walks the window of N output pixels starting at (x0, y), calling
// visit(w, neighbour, channel) per tap and weight group: one group over all
// C channels (Joint) or one per channel. coefficient is the range
// coefficient, the plan's (float) or per pixel (adaptive, vector).
template <int N, RangeKernel K, int C, bool Joint, bool Alpha, class Coefficient, class Visit>
inline void walk_window(const Plan& plan, const PaddedBand& in, int y, int x0, const vec<N>* centre,
                        const Coefficient* coefficient, Visit&& visit) {
  const int window = plan.window(), pw = in.width;
  const float* spatial_term = plan.spatial_term.data();
  const float* alpha = Alpha ? in.plane(C) : nullptr;
  for (int dy = 0; dy < window; ++dy) {
    const size_t row_at = size_t(y + dy) * size_t(pw) + size_t(x0);
    for (int dx = 0; dx < window; ++dx) {
      const vec<N> spatial = splat<N>(spatial_term[dy * window + dx]);
      const vec<N> a = Alpha ? load<N>(alpha + row_at + size_t(dx)) : splat<N>(1.0f);
      vec<N> neighbour[C], d2[C];
      for (int c = 0; c < C; ++c) {
        neighbour[c] = load<N>(in.plane(c) + row_at + size_t(dx));
        const vec<N> diff = neighbour[c] - centre[c];
        d2[c] = diff * diff;
      }
      if constexpr (Joint) {
        vec<N> distance2 = d2[0];
        for (int c = 1; c < C; ++c) distance2 += d2[c];
        vec<N> w = tap_weight<K>(spatial, distance2, coefficient[0]);
        if constexpr (Alpha) w *= a;
        visit(w, neighbour, distance2, 0);
      } else {
        for (int c = 0; c < C; ++c) {
          vec<N> w = tap_weight<K>(spatial, d2[c], coefficient[c]);
          if constexpr (Alpha) w *= a;
          visit(w, neighbour, d2[c], c);
        }
      }
    }
  }
}

// The filter for rows [row_begin, row_end) of a band. C is 1 or 3 colour
// channels; Joint: one weight per tap from the distance over all of them
// (rgb, lab, grey), else one per channel (per-channel). Adaptive: a first
// walk measures each pixel's local variance and sets its range coefficient
// (adaptive_coefficient in core), a second one filters with it.
template <int N, RangeKernel K, int C, bool Joint, bool Alpha, bool Adaptive>
void filter_rows(const Plan& plan, const PaddedBand& in, const OutputBand& out, int row_begin, int row_end) {
  constexpr int groups = Joint ? 1 : C;
  const int r = plan.radius, pw = in.width;
  const float plan_coefficient[3] = {plan.params.range_coefficient, plan.params.range_coefficient,
                                     plan.params.range_coefficient};
  for (int y = row_begin; y < row_end; ++y) {
    for (int x0 = 0; x0 < out.width; x0 += N) {
      const size_t centre_at = size_t(y + r) * size_t(pw) + size_t(x0 + r);
      vec<N> centre[C], sum[C], weight_sum[groups];
      for (int c = 0; c < C; ++c) {
        centre[c] = load<N>(in.plane(c) + centre_at);
        sum[c] = vec<N>{};
      }
      for (int g = 0; g < groups; ++g) weight_sum[g] = vec<N>{};
      auto accumulate = [&](vec<N> w, const vec<N>* neighbour, vec<N>, int group) {
        if constexpr (Joint) {
          for (int c = 0; c < C; ++c) sum[c] += w * neighbour[c];
        } else {
          sum[group] += w * neighbour[group];
        }
        weight_sum[group] += w;
      };
      vec<N> coefficient[groups];
      if constexpr (Adaptive) {
        vec<N> weighted_d2[groups], total[groups];
        for (int g = 0; g < groups; ++g) weighted_d2[g] = total[g] = vec<N>{};
        walk_window<N, K, C, Joint, Alpha>(plan, in, y, x0, centre, plan_coefficient,
                                            [&](vec<N> w, const vec<N>*, vec<N> d2, int group) {
                                              weighted_d2[group] += w * d2;
                                              total[group] += w;
                                            });
        if (plan.params.output_sigma) {  // the sigma_r' map instead of the filter
          const int count = out.width - x0 < N ? out.width - x0 : N;
          const size_t out_at = size_t(y) * size_t(out.width) + size_t(x0);
          for (int c = 0; c < C; ++c)
            store<N>(out.plane(c) + out_at, adaptive_sigma(plan.params, weighted_d2[Joint ? 0 : c], total[Joint ? 0 : c]),
                     count);
          continue;
        }
        for (int g = 0; g < groups; ++g) coefficient[g] = adaptive_coefficient(plan.params, weighted_d2[g], total[g]);
        walk_window<N, K, C, Joint, Alpha>(plan, in, y, x0, centre, coefficient, accumulate);
      } else {
        walk_window<N, K, C, Joint, Alpha>(plan, in, y, x0, centre, plan_coefficient, accumulate);
      }
      const int count = out.width - x0 < N ? out.width - x0 : N;
      const size_t out_at = size_t(y) * size_t(out.width) + size_t(x0);
      for (int c = 0; c < C; ++c)
        store<N>(out.plane(c) + out_at, normalise(sum[c], weight_sum[Joint ? 0 : c], centre[c]), count);
      rescue_lanes<N>(plan, in, out, y, x0, count, weight_sum, groups, Adaptive ? coefficient : nullptr);
    }
  }
}

template <int N, RangeKernel K, bool Adaptive>
RowFunction select_for_kernel(const BilateralParams& p) {
  if (p.color_channels == 1)
    return p.has_alpha ? filter_rows<N, K, 1, true, true, Adaptive> : filter_rows<N, K, 1, true, false, Adaptive>;
  if (p.joint)
    return p.has_alpha ? filter_rows<N, K, 3, true, true, Adaptive> : filter_rows<N, K, 3, true, false, Adaptive>;
  return p.has_alpha ? filter_rows<N, K, 3, false, true, Adaptive> : filter_rows<N, K, 3, false, false, Adaptive>;
}

template <int N, RangeKernel K>
RowFunction select_for_filter(const BilateralParams& p) {
  return p.adaptive ? select_for_kernel<N, K, true>(p) : select_for_kernel<N, K, false>(p);
}

template <int N>
RowFunction select_rows(const BilateralParams& p) {
  switch (p.kernel) {
    case RangeKernel::gaussian: return select_for_filter<N, RangeKernel::gaussian>(p);
    case RangeKernel::tukey: return select_for_filter<N, RangeKernel::tukey>(p);
    case RangeKernel::lorentz: return select_for_filter<N, RangeKernel::lorentz>(p);
    case RangeKernel::huber: return select_for_filter<N, RangeKernel::huber>(p);
  }
  return nullptr;
}

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
