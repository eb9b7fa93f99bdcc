// The bilateral family's per-pixel math, written once for every backend:
// the CPU instantiates it with SIMD lanes (GCC vectors of floats), the CUDA
// kernels with one float per thread. Backends only decide how they walk the
// window (tiling, unrolling, registers); what a tap weighs, how the sums
// accumulate, the adaptive filter's sigma and the underflow rescue are here.
//
// One form of the range coefficient: samples are scaled by
// p.scale = sqrt(range coefficient), so a tap's range argument q is the
// plain squared difference of scaled samples. For the Gaussian the spatial
// and range terms fold into one 2^x whose exponent is an FMA chain
// (spatial - d0^2 - d1^2 - d2^2); outputs are sums of scaled samples,
// scaled back by p.inverse_scale.
#pragma once

#include "bilateral.h"
#include "fast_exp.h"
#include "range_kernels.h"

namespace edgewise {

// Weight of a tap from its spatial term and its range argument q:
//  gaussian: spatial = -|p-q|^2 / (2 sigma_s^2) * log2(e) and
//            q = d^2 unit^2 / (2 sigma_r^2) * log2(e): one 2^x per tap.
//  others:   spatial = exp(-|p-q|^2 / (2 sigma_s^2)) and q = (x / sigma_r)^2.
// unit is 255 for code values (per-channel, rgb, grey) and 1 for Delta E.
template <RangeKernel K, class T>
EW_HD T weight_from_q(T spatial, T q) {
  if constexpr (K == RangeKernel::gaussian) {
    return ew_exp2(spatial - q);
  } else if constexpr (K == RangeKernel::tukey) {
    return spatial * range_tukey(q);
  } else if constexpr (K == RangeKernel::lorentz) {
    return spatial * range_lorentz(q);
  } else {
    return spatial * range_huber(q);
  }
}

// Squared difference of weight group g: all C channels when Joint (rgb,
// lab, grey), else channel g alone (per-channel).
template <int C, bool Joint, class T>
EW_HD T group_distance2(const T* n, const T* c, int g) {
  if constexpr (Joint) {
    T d = n[0] - c[0];
    T q = d * d;
    for (int ch = 1; ch < C; ++ch) {
      d = n[ch] - c[ch];
      q += d * d;
    }
    return q;
  } else {
    const T d = n[g] - c[g];
    return d * d;
  }
}

// The plain filter's weight of a tap for group g, from scaled samples. For
// the Gaussian the exponent is the spatial term minus each channel's
// squared difference, each subtraction one FMA.
template <RangeKernel K, int C, bool Joint, class T>
EW_HD T plain_weight(T spatial, const T* n, const T* c, int g) {
  if constexpr (K == RangeKernel::gaussian) {
    T e = spatial;
    for (int ch = Joint ? 0 : g; ch < (Joint ? C : g + 1); ++ch) {
      const T d = n[ch] - c[ch];
      e = e - d * d;
    }
    return ew_exp2(e);
  } else {
    return weight_from_q<K>(spatial, group_distance2<C, Joint>(n, c, g));
  }
}

// The adaptive filter's second walk: the group's range argument scaled by
// the pixel's ratio (adaptive_ratio), q = ratio * d^2. Two operations per
// tap fewer than scaling each difference (rgb r = 7 on the H100: 5.67 ms
// against 6.29 ms), at the price of rounding apart from the plain filter's
// exponent chain: at k = 0 the two agree within float rounding, not to the
// last bit.
template <RangeKernel K, int C, bool Joint, class T, class R>
EW_HD T adaptive_weight(T spatial, const T* n, const T* c, int g, R ratio) {
  return weight_from_q<K>(spatial, ratio * group_distance2<C, Joint>(n, c, g));
}

// The weighted sums of one output pixel (or one per lane). n and c are the
// neighbour's and the centre's scaled samples, alpha the neighbour's alpha.
template <class T, RangeKernel K, int C, bool Joint, bool Alpha>
struct BilateralSum {
  static constexpr int kGroups = Joint ? 1 : C;
  T sum[C];
  T weight[kGroups];

  EW_HD void clear() {
    for (int ch = 0; ch < C; ++ch) sum[ch] = T{};
    for (int g = 0; g < kGroups; ++g) weight[g] = T{};
  }

  EW_HD void accumulate(T w, const T* n, int g) {
    if constexpr (Joint) {
      for (int ch = 0; ch < C; ++ch) sum[ch] += w * n[ch];
    } else {
      sum[g] += w * n[g];
    }
    weight[g] += w;
  }

  // A tap of the plain filter.
  EW_HD void add(T spatial, const T* n, T alpha, const T* c) {
    for (int g = 0; g < kGroups; ++g) {
      T w = plain_weight<K, C, Joint>(spatial, n, c, g);
      if constexpr (Alpha) w = w * alpha;
      accumulate(w, n, g);
    }
  }

  // A tap of the adaptive filter's second walk, with each group's ratio.
  template <class R>
  EW_HD void add(T spatial, const T* n, T alpha, const T* c, const R* ratio) {
    for (int g = 0; g < kGroups; ++g) {
      T w = adaptive_weight<K, C, Joint>(spatial, n, c, g, ratio[g]);
      if constexpr (Alpha) w = w * alpha;
      accumulate(w, n, g);
    }
  }

  EW_HD T group_weight(int ch) const { return weight[Joint ? 0 : ch]; }
  // The output sample in working units. A weight below kRescueWeightSum
  // (zero included) gives garbage that rescue_pixel replaces.
  EW_HD T result(int ch, float inverse_scale) const { return sum[ch] / group_weight(ch) * inverse_scale; }
};

// The joint Gaussian tap in expanded form, for the GPU's tiled kernel, where
// a tap's instructions are what limits the speed. With the scaled samples
// centred on a reference z (n' = n - z, c' = c - z), the exponent of
// plain_weight plus log2(alpha) is
//   spatial - |n' - c'|^2 + log2(alpha) = spatial + b + 2 c'.n' - |c'|^2,
//   b = log2(alpha) - |n'|^2,
// with b computed once per staged neighbour and 2 c' once per output: one
// addition and three FMAs a tap, where the direct form takes three
// subtractions, three FMAs and alpha's product. |c'|^2 is the same for
// every tap of a pixel and cancels in the weighted mean, so it is left out:
// weights are 2^|c'|^2 times the true ones. That needs |c'|^2 small, for
// the range (at most kExpandedNormLimit: weights at most 2^96, every sum
// below 2^112 with at most 2^13 taps) and for the rounding, which is that
// of the chain's largest term, about |c'|^2 + |n'|^2 where a tap weighs
// anything: within 2e-5 of the direct form's exponent. So the form is used
// only where every sample of the nominal working range is that near z
// (expanded_form_allowed: sigma-r from about 19 code values in rgb, 12
// Delta E in lab), and a pixel beyond it (a float sample past 1, say) is
// recomputed exactly, as underflowing windows are (rescue_pixel). z is one
// value for the whole image, so a pixel's result does not depend on the
// tile or band it is computed in.
constexpr float kExpandedNormLimit = 96.0f;

// z: the middle of the working range (grey 0.5, or L* 50 and a* = b* = 0), scaled.
EW_HD void expanded_reference(const BilateralParams& p, float* z) {
  z[0] = (p.lab ? 50.0f : 0.5f) * p.scale;
  z[1] = z[2] = p.lab ? 0.0f : 0.5f * p.scale;
}

// The nominal working range's largest |c - z|^2 before scaling: the R'G'B'
// or linear cube [0, 1]^3, 0.75; in lab, sRGB's gamut (L* 0-100, chroma up
// to about 134), 50^2 + 134^2.
EW_HD bool expanded_form_allowed(const BilateralParams& p) {
  const float extent2 = p.lab ? 2500.0f + 134.0f * 134.0f : 0.75f;
  return extent2 * p.scale * p.scale <= kExpandedNormLimit;
}

struct ExpandedCentre {
  float twice[3];  // 2 c'

  ExpandedCentre() = default;
  EW_HD explicit ExpandedCentre(const float* centred) {
    for (int ch = 0; ch < 3; ++ch) twice[ch] = 2.0f * centred[ch];
  }
  // |c'|^2, recomputed where needed rather than held through the walk.
  EW_HD float norm2() const { return 0.25f * (twice[0] * twice[0] + twice[1] * twice[1] + twice[2] * twice[2]); }
};

// b for a staged neighbour; log2(0) = -inf gives a transparent one no weight.
template <bool Alpha>
EW_HD float expanded_bias(const float* centred, float alpha) {
  float b = -(centred[0] * centred[0] + centred[1] * centred[1] + centred[2] * centred[2]);
  if constexpr (Alpha) b += ew_log2(alpha);
  return b;
}

// The tap's exponent plus the centre's |c'|^2.
EW_HD float expanded_exponent(float spatial, float bias, const ExpandedCentre& c, const float* n) {
  return c.twice[2] * n[2] + (c.twice[1] * n[1] + (c.twice[0] * n[0] + (spatial + bias)));
}

// The adaptive filter's first walk: per group, sum w q and sum w with the
// user's weights.
template <class T, RangeKernel K, int C, bool Joint, bool Alpha>
struct BilateralStatistics {
  static constexpr int kGroups = Joint ? 1 : C;
  T weighted_d2[kGroups];
  T weight[kGroups];

  EW_HD void clear() {
    for (int g = 0; g < kGroups; ++g) weighted_d2[g] = weight[g] = T{};
  }

  EW_HD void add(T spatial, const T* n, T alpha, const T* c) {
    for (int g = 0; g < kGroups; ++g) {
      const T d2 = group_distance2<C, Joint>(n, c, g);
      T w = weight_from_q<K>(spatial, d2);
      if constexpr (Alpha) w = w * alpha;
      weighted_d2[g] += w * d2;
      weight[g] += w;
    }
  }
};

// The variance-adaptive filter's sigma_r'(p) in normalized units (code
// values / 255, or Delta E / 100), from its first walk: v = sum w d^2 /
// sum w with d^2 in working units (q over the range coefficient), then
// sigma_r' = clamp(k (sqrt(v) + eps), min, max). A window without weight
// counts as v = 0.
template <class T>
EW_HD T adaptive_sigma(const BilateralParams& p, T weighted_q, T weight_sum) {
  const T v = weight_sum > 0.0f ? weighted_q / p.range_coefficient / weight_sum * p.normalized_unit2 : T{};
  const T root = ew_sqrt(v);
  const T sigma = (root + p.adapt_eps) * p.adapt_k;
  return ew_min(ew_max(sigma, T{} + p.adapt_min), T{} + p.adapt_max);
}

// The range coefficient for a range sigma in normalized units. One formula
// for the plan's sigma_r and the adaptive filter's sigma_r'(p), so that
// equal sigmas weigh alike to the last bit (the adaptive filter at k = 0 is
// the plain one at sigma_r = min).
template <class T>
EW_HD T range_coefficient_for(const BilateralParams& p, T sigma) {
  return p.coefficient_factor * p.normalized_unit2 / (sigma * sigma);
}

// The factor by which the adaptive filter's second walk scales q: its
// pixel's range coefficient over the plan's, which the samples are scaled by.
template <class T>
EW_HD T adaptive_ratio(const BilateralParams& p, T weighted_q, T weight_sum) {
  return range_coefficient_for(p, adaptive_sigma(p, weighted_q, weight_sum)) / p.range_coefficient;
}

// Below this total weight a float sum may have lost every tap to underflow:
// a transparent pixel whose neighbours all lie far outside sigma_r has
// weights like 2^-300 that are tiny but not zero. Backends recompute such
// pixels with rescue_pixel, and such windows of the adaptive filter's first
// walk with rescue_statistics; with any visible centre the sum is far above.
constexpr float kRescueWeightSum = 1e-30f;

// Log2 of one tap's weight without alpha, from the scaled squared distance
// and the group's ratio (1 for the plain filter); -inf where the range
// kernel is zero.
EW_HD float tap_log2_weight(const BilateralParams& p, float ratio, int dx, int dy, float q) {
  const float spatial = -float(dx * dx + dy * dy) * p.spatial_log2_coefficient;
  switch (p.kernel) {
    case RangeKernel::gaussian:
      return spatial - q * ratio;
    case RangeKernel::tukey:
      return spatial + log2f(range_tukey(q * ratio));
    case RangeKernel::lorentz:
      return spatial + log2f(range_lorentz(q * ratio));
    default:
      return spatial + log2f(range_huber(q * ratio));
  }
}

// Walks group g's window of one pixel with every tap's weight scaled by
// 2^-M, M the largest log2 weight in the window, so nothing underflows:
// calls visit(w, colour, q) for each visible tap (w the scaled weight with
// alpha, colour the unscaled sample, q the scaled squared distance).
// Returns false, visiting nothing, where every weight is below 2^-1074
// (zero even in double precision) or transparent. fetch(dx, dy, colour,
// alpha) reads the unscaled working-unit sample at offset (dx, dy); centre
// is the pixel's own; ratio is the adaptive filter's (1 for the plain
// filter and the adaptive filter's first walk). Slow (two walks, log2 per
// tap): used only below kRescueWeightSum.
template <class Fetch, class Visit>
EW_HD bool walk_scaled_window(const BilateralParams& p, float ratio, const float* centre, int g, Fetch& fetch,
                              Visit&& visit) {
  const int r = p.radius, channels = p.color_channels;
  float largest = -INFINITY;
  for (int pass = 0; pass < 2; ++pass) {
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) {
        float colour[3], alpha;
        fetch(dx, dy, colour, alpha);
        if (!(alpha > 0.f)) continue;
        float q = 0.f;
        for (int c = 0; c < channels; ++c)
          if (p.joint || c == g) {
            const float d = colour[c] * p.scale - centre[c] * p.scale;
            q += d * d;
          }
        const float e = tap_log2_weight(p, ratio, dx, dy, q);
        if (pass == 0)
          largest = e > largest ? e : largest;
        else
          visit(ew_exp2(e - largest) * alpha, colour, q);
      }
    if (pass == 0 && !(largest >= -1074.0f)) return false;  // also NaN-safe
  }
  return true;
}

// The filter for one pixel whose float weight sum may have underflowed,
// through walk_scaled_window. A window without weight keeps the pixel's
// value. ratios holds one ratio per weight group (the adaptive filter's),
// or is null for the plain filter. Writes unscaled results.
template <class Fetch>
EW_HD void rescue_pixel(const BilateralParams& p, const float* ratios, const float* centre, Fetch fetch, float* out) {
  const int channels = p.color_channels;
  const int groups = p.joint ? 1 : channels;
  for (int g = 0; g < groups; ++g) {
    float sum[3] = {0.f, 0.f, 0.f}, weight_sum = 0.f;
    const bool weighed =
        walk_scaled_window(p, ratios ? ratios[g] : 1.0f, centre, g, fetch, [&](float w, const float* colour, float) {
          for (int c = 0; c < channels; ++c) sum[c] += w * colour[c];
          weight_sum += w;
        });
    for (int c = 0; c < channels; ++c)
      if (p.joint || c == g) out[c] = weighed ? sum[c] / weight_sum : centre[c];
  }
}

// The adaptive filter's first walk for group g of one pixel whose float
// weight sum may have underflowed: a subnormal sum keeps a few bits, and
// sigma_r'(p), to which the second walk's weights are very sensitive where
// they are this small, would follow the rounding. Both sums come scaled by
// the same 2^-M, which adaptive_sigma's ratio cancels; a window without
// weight gives zeros (v = 0, as in adaptive_sigma).
template <class Fetch>
EW_HD void rescue_statistics(const BilateralParams& p, const float* centre, int g, Fetch fetch, float& weighted_q,
                             float& weight) {
  weighted_q = weight = 0.f;
  walk_scaled_window(p, 1.0f, centre, g, fetch, [&](float w, const float*, float q) {
    weighted_q += w * q;
    weight += w;
  });
}

// The compile-time shape of a kernel: range kernel, colour channels (1 or
// 3), one weight per tap or per channel, an alpha plane, adaptive or plain.
template <RangeKernel K, int C, bool Joint, bool Alpha, bool Adaptive>
struct BilateralVariant {
  static constexpr RangeKernel kKernel = K;
  static constexpr int kChannels = C;
  static constexpr bool kJoint = Joint;
  static constexpr bool kAlpha = Alpha;
  static constexpr bool kAdaptive = Adaptive;
};

// The one variant dispatcher: calls visit(BilateralVariant<...>{}) for the
// variant the plan's values select. Every backend instantiates its kernels
// through it, so they cover the same variants.
template <RangeKernel K, int C, bool Joint, bool Alpha, class Visit>
decltype(auto) visit_bilateral_adaptive(const BilateralParams& p, Visit&& visit) {
  if (p.adaptive) return visit(BilateralVariant<K, C, Joint, Alpha, true>{});
  return visit(BilateralVariant<K, C, Joint, Alpha, false>{});
}

template <RangeKernel K, class Visit>
decltype(auto) visit_bilateral_layout(const BilateralParams& p, Visit&& visit) {
  if (p.color_channels == 1) {
    if (p.has_alpha) return visit_bilateral_adaptive<K, 1, true, true>(p, visit);
    return visit_bilateral_adaptive<K, 1, true, false>(p, visit);
  }
  if (p.joint) {
    if (p.has_alpha) return visit_bilateral_adaptive<K, 3, true, true>(p, visit);
    return visit_bilateral_adaptive<K, 3, true, false>(p, visit);
  }
  if (p.has_alpha) return visit_bilateral_adaptive<K, 3, false, true>(p, visit);
  return visit_bilateral_adaptive<K, 3, false, false>(p, visit);
}

template <class Visit>
decltype(auto) visit_bilateral_variant(const BilateralParams& p, Visit&& visit) {
  switch (p.kernel) {
    case RangeKernel::tukey:
      return visit_bilateral_layout<RangeKernel::tukey>(p, visit);
    case RangeKernel::lorentz:
      return visit_bilateral_layout<RangeKernel::lorentz>(p, visit);
    case RangeKernel::huber:
      return visit_bilateral_layout<RangeKernel::huber>(p, visit);
    default:
      return visit_bilateral_layout<RangeKernel::gaussian>(p, visit);
  }
}

}  // namespace edgewise
