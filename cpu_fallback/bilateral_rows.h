// The CPU's walk over the window: N output pixels of one row per SIMD vector
// (GCC vector extensions, so one source serves SSE2, AVX2 and AVX-512), all
// taps accumulated in registers by core's BilateralSum (the same code the
// CUDA kernels run per thread). Included by one translation unit per
// instruction set (bilateral_rows_*.cpp); runtime dispatch picks one.
//
// Each instruction set uses its own vector width (4, 8, 16), so the inline
// templates of core/ are instantiated with distinct types per translation
// unit and no AVX-512 code can be shared into the generic path.
//
// Every lane performs the same operations in the same order whatever its
// position, so a pixel's value does not depend on the band, the thread or
// the lane it was computed in.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "band.h"
#include "bilateral_cpu.h"
#include "bilateral_math.h"
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

// x - 0 is x for every x (-0 and NaN included), so GCC emits one broadcast;
// 0 + x, which is not x for x = -0, costs a scalar add first, in every tap.
template <int N>
inline vec<N> splat(float x) {
  return x - vec<N>{};
}

// Writes the first `count` lanes: the row's last vector may overhang.
template <int N>
inline void store(float* p, vec<N> v, int count) {
  if (count == N) {
    __builtin_memcpy(p, &v, sizeof v);
  } else {
    for (int i = 0; i < count; ++i) p[i] = v[i];
  }
}

// Whether every lane of v is at least `bound` (NaN lanes are not): one
// compare and a mask test per 16 pixels. Testing the lanes one by one in
// rescue_lanes cost 2 % of rgb r = 2 (a call and a 16-step loop per vector).
template <int N>
inline bool all_at_least(vec<N> v, float bound) {
#if defined(__AVX512F__)
  if constexpr (N == 16) return _mm512_cmp_ps_mask(__m512(v), _mm512_set1_ps(bound), _CMP_GE_OQ) == 0xffff;
#endif
#if defined(__AVX__)
  if constexpr (N == 8) return _mm256_movemask_ps(_mm256_cmp_ps(__m256(v), _mm256_set1_ps(bound), _CMP_GE_OQ)) == 0xff;
#endif
#if defined(__SSE__)
  if constexpr (N == 4) return _mm_movemask_ps(_mm_cmpge_ps(__m128(v), _mm_set1_ps(bound))) == 0xf;
#endif
  bool all = true;
  for (int i = 0; i < N; ++i) all &= v[i] >= bound;
  return all;
}

// The unscaled samples around one output pixel, as core's rescue
// functions read them: centre, and fetch(dx, dy, colour, alpha).
struct UnscaledWindow {
  const BilateralParams& p;
  const PaddedBand& band;
  size_t centre_at;
  float centre[3];

  UnscaledWindow(const BilateralPlan& plan, const PaddedBand& unscaled, int x, int y)
      : p(plan.params),
        band(unscaled),
        centre_at(size_t(y + plan.radius) * size_t(unscaled.width) + size_t(x + plan.radius)) {
    for (int c = 0; c < p.color_channels; ++c) centre[c] = band.plane(c)[centre_at];
  }

  void operator()(int dx, int dy, float* colour, float& alpha) const {
    const size_t at = centre_at + size_t(ptrdiff_t(dy) * band.width + dx);
    for (int c = 0; c < p.color_channels; ++c) colour[c] = band.plane(c)[at];
    alpha = p.has_alpha ? band.plane(p.color_channels)[at] : 1.0f;
  }
};

// Recomputes, with core's rescue_pixel, the pixels of a stored vector whose
// weight sum fell below kRescueWeightSum. `ratios` holds the adaptive
// filter's per-pixel ratios (one vector per weight group), or is null.
template <int N>
void rescue_lanes(const BilateralPlan& plan, const PaddedBand& unscaled, const OutputBand& out, int y, int x0,
                  int count, const vec<N>* weight_sums, int groups, const vec<N>* ratios) {
  const BilateralParams& p = plan.params;
  for (int lane = 0; lane < count; ++lane) {
    bool needed = false;
    for (int g = 0; g < groups; ++g) needed |= !(weight_sums[g][lane] >= kRescueWeightSum);
    if (!needed) continue;
    const int x = x0 + lane;
    const UnscaledWindow window(plan, unscaled, x, y);
    float result[3], lane_ratios[3];
    for (int g = 0; ratios && g < groups; ++g) lane_ratios[g] = ratios[g][lane];
    rescue_pixel(p, ratios ? lane_ratios : nullptr, window.centre, window, result);
    for (int c = 0; c < p.color_channels; ++c) out.row(c, y)[x] = result[c];
  }
}

// Recomputes, with core's rescue_statistics, the adaptive filter's first
// walk for the lanes whose weight sum fell below kRescueWeightSum.
template <int N, int Groups>
void rescue_statistics_lanes(const BilateralPlan& plan, const PaddedBand& unscaled, int y, int x0, int count,
                             vec<N> (&weighted_d2)[Groups], vec<N> (&weight)[Groups]) {
  for (int lane = 0; lane < count; ++lane)
    for (int g = 0; g < Groups; ++g) {
      if (weight[g][lane] >= kRescueWeightSum) continue;
      const UnscaledWindow window(plan, unscaled, x0 + lane, y);
      float lane_weighted_d2, lane_weight;
      rescue_statistics(plan.params, window.centre, g, window, lane_weighted_d2, lane_weight);
      weighted_d2[g][lane] = lane_weighted_d2;
      weight[g][lane] = lane_weight;
    }
}

// Calls tap(spatial, neighbour, alpha) for every tap of the window of the N
// output pixels starting at (x0, y).
template <int N, int C, bool Alpha, class Tap>
inline void walk_window(const BilateralPlan& plan, const PaddedBand& in, int y, int x0, Tap&& tap) {
  const int window = plan.window(), pw = in.width;
  const float* spatial_term = plan.spatial_term.data();
  const float* alpha = Alpha ? in.plane(C) : nullptr;
  for (int dy = 0; dy < window; ++dy) {
    const size_t row_at = size_t(y + dy) * size_t(pw) + size_t(x0);
    for (int dx = 0; dx < window; ++dx) {
      const vec<N> spatial = splat<N>(spatial_term[dy * window + dx]);
      const vec<N> a = Alpha ? load<N>(alpha + row_at + size_t(dx)) : splat<N>(1.0f);
      vec<N> neighbour[C];
      for (int c = 0; c < C; ++c) neighbour[c] = load<N>(in.plane(c) + row_at + size_t(dx));
      tap(spatial, neighbour, a);
    }
  }
}

// The filter for rows [row_begin, row_end) of a pass, for one variant
// (core's BilateralVariant: range kernel, channels, joint, alpha, adaptive).
// Adaptive: a first walk measures each pixel's local variance and sets its
// ratio (adaptive_ratio in core), a second one filters with it.
template <int N, class V>
void filter_rows(const BilateralPlan& plan, const PaddedBand& scaled, const PaddedBand& unscaled, const OutputBand& out,
                 const SigmaTarget& sigma, int row_begin, int row_end) {
  constexpr RangeKernel K = V::kKernel;
  constexpr int C = V::kChannels;
  constexpr bool Joint = V::kJoint, Alpha = V::kAlpha;
  using Sum = BilateralSum<vec<N>, K, C, Joint, Alpha>;
  constexpr int groups = Sum::kGroups;
  const BilateralParams& p = plan.params;
  const int r = plan.radius, pw = scaled.width;
  for (int y = row_begin; y < row_end; ++y) {
    for (int x0 = 0; x0 < out.width; x0 += N) {
      const size_t centre_at = size_t(y + r) * size_t(pw) + size_t(x0 + r);
      vec<N> centre[C];
      for (int c = 0; c < C; ++c) centre[c] = load<N>(scaled.plane(c) + centre_at);
      const int count = out.width - x0 < N ? out.width - x0 : N;
      Sum sum;
      sum.clear();
      vec<N> ratio[groups];
      if constexpr (V::kAdaptive) {
        BilateralStatistics<vec<N>, K, C, Joint, Alpha> statistics;
        statistics.clear();
        walk_window<N, C, Alpha>(plan, scaled, y, x0, [&](vec<N> spatial, const vec<N>* n, vec<N> a) {
          statistics.add(spatial, n, a, centre);
        });
        bool weighed = true;
        for (int g = 0; g < groups; ++g) weighed &= all_at_least<N>(statistics.weight[g], kRescueWeightSum);
        if (!weighed)
          rescue_statistics_lanes<N>(plan, unscaled, y, x0, count, statistics.weighted_d2, statistics.weight);
        for (int g = 0; g < groups; ++g) ratio[g] = adaptive_ratio(p, statistics.weighted_d2[g], statistics.weight[g]);
        const int sigma_row = y - sigma.row_offset;
        if (sigma.band && sigma_row >= 0 && sigma_row < sigma.band->rows)
          for (int g = 0; g < groups; ++g)
            store<N>(sigma.band->row(g, sigma_row) + x0,
                     adaptive_sigma(p, statistics.weighted_d2[g], statistics.weight[g]) / p.adapt_max, count);
        walk_window<N, C, Alpha>(plan, scaled, y, x0, [&](vec<N> spatial, const vec<N>* n, vec<N> a) {
          sum.add(spatial, n, a, centre, ratio);
        });
      } else {
        walk_window<N, C, Alpha>(plan, scaled, y, x0,
                                 [&](vec<N> spatial, const vec<N>* n, vec<N> a) { sum.add(spatial, n, a, centre); });
      }
      for (int c = 0; c < C; ++c) store<N>(out.row(c, y) + x0, sum.result(c, p.inverse_scale), count);
      bool weighed = true;
      for (int g = 0; g < groups; ++g) weighed &= all_at_least<N>(sum.weight[g], kRescueWeightSum);
      if (!weighed)
        rescue_lanes<N>(plan, unscaled, out, y, x0, count, sum.weight, groups, V::kAdaptive ? ratio : nullptr);
    }
  }
}

template <int N>
RowFunction select_rows(const BilateralParams& params) {
  return visit_bilateral_variant(params, [](auto variant) -> RowFunction { return filter_rows<N, decltype(variant)>; });
}

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
