// The exact bilateral filter (Tomasi & Manduchi, "Bilateral filtering for
// gray and color images", ICCV 1998), whole image, clamp-to-edge:
//   out(p) = sum_q w(p,q) I(q) / sum_q w(p,q),  q in the (2r+1)^2 square,
//   w(p,q) = exp(-|p-q|^2 / (2 sigma_s^2)) * R(d(p,q)) * alpha(q).
// Everything that decides an output pixel is here; backends only iterate.
#pragma once

#include "fast_exp.h"
#include "filter_spec.h"
#include "range_kernels.h"

namespace edgewise {

// Plain values a backend needs per pass, built once by make_plan().
struct BilateralParams {
  int radius;               // window half-width
  int color_channels;       // 1 (grey) or 3 (RGB, or Lab after conversion)
  bool has_alpha;           // an alpha plane follows the colour planes
  bool joint;               // one weight per tap (rgb, lab, grey) or per channel
  bool lab;                 // colour planes are converted to Lab around the filter
  RangeKernel kernel;
  float range_coefficient;  // see tap_weight
  float spatial_log2_coefficient;  // log2(e) / (2 sigma_s^2), for rescue_pixel
  // The variance-adaptive filter (see adaptive_coefficient).
  bool adaptive;
  float adapt_k, adapt_eps, adapt_min, adapt_max;
  float normalized_unit2;    // (normalized units per working unit)^2: 1, or 1e-4 for Delta E
  float coefficient_factor;  // 0.5 log2(e) for the folded Gaussian, 1 for the other kernels
  bool output_sigma;         // adaptive: output sigma_r' instead of the filtered colour
};

// The variance-adaptive bilateral filter's per-pixel range coefficient (the
// value range_coefficient has for sigma_r'(p)). From a first pass over the
// window with the user's weights: v = sum w d^2 / sum w (d^2 in working
// units, weighted_d2 = sum w d^2), sigma_r' = clamp(k (sqrt(v) + eps), min,
// max) in normalized units. A window without weight counts as v = 0.
template <class T>
EW_HD T adaptive_sigma(const BilateralParams& p, T weighted_d2, T weight_sum) {
  const T v = weight_sum > 0.0f ? weighted_d2 / weight_sum * p.normalized_unit2 : T{};
  const T root = ew_sqrt(v);
  const T sigma = (root + p.adapt_eps) * p.adapt_k;
  return ew_min(ew_max(sigma, T{} + p.adapt_min), T{} + p.adapt_max);
}

// The range coefficient for a range sigma in normalized units (code values
// / 255, or Delta E / 100). One formula for the plan's sigma_r and the
// adaptive filter's sigma_r'(p), so that equal sigmas weigh alike to the
// last bit (the adaptive filter at k = 0 is the plain one at sigma_r = min).
template <class T>
EW_HD T range_coefficient_for(const BilateralParams& p, T sigma) {
  return p.coefficient_factor * p.normalized_unit2 / (sigma * sigma);
}

template <class T>
EW_HD T adaptive_coefficient(const BilateralParams& p, T weighted_d2, T weight_sum) {
  return range_coefficient_for(p, adaptive_sigma(p, weighted_d2, weight_sum));
}

// Weight of one tap from the plan's spatial term for that tap and the squared
// colour difference d2 in working units (0..1 samples, or Lab).
//  gaussian: spatial_term = -|p-q|^2 / (2 sigma_s^2) * log2(e) and
//            range_coefficient = unit^2 / (2 sigma_r^2) * log2(e): the spatial
//            and range Gaussians fold into one 2^x per tap, in every mode.
//  others:   spatial_term = exp(-|p-q|^2 / (2 sigma_s^2)) and
//            range_coefficient = unit^2 / sigma_r^2, so q = (x / sigma_r)^2.
// unit is 255 for code values (per-channel, rgb, grey) and 1 for Delta E.
template <RangeKernel K, class T, class Coefficient>
EW_HD T tap_weight(T spatial_term, T d2, Coefficient range_coefficient) {
  if constexpr (K == RangeKernel::gaussian) {
    return ew_exp2(spatial_term - d2 * range_coefficient);
  } else if constexpr (K == RangeKernel::tukey) {
    return spatial_term * range_tukey(d2 * range_coefficient);
  } else if constexpr (K == RangeKernel::lorentz) {
    return spatial_term * range_lorentz(d2 * range_coefficient);
  } else {
    return spatial_term * range_huber(d2 * range_coefficient);
  }
}

// A window whose weights all vanish (every neighbour transparent, or a Tukey
// kernel with nothing in range) keeps the pixel's own value.
template <class T>
EW_HD T normalise(T weighted_sum, T weight_sum, T centre) {
  return weight_sum > 0.0f ? weighted_sum / weight_sum : centre;
}

// Below this total weight a float sum may have lost every tap to underflow:
// a transparent pixel whose neighbours all lie far outside sigma_r has
// weights like 2^-300 that are tiny but not zero. Backends recompute such
// pixels with rescue_pixel; with any visible centre the sum is far above.
constexpr float kRescueWeightSum = 1e-30f;

// Log2 of one tap's weight without alpha; -inf when the range kernel is
// zero. coefficient is the range coefficient (the plan's, or a pixel's own
// in the adaptive filter).
EW_HD float tap_log2_weight(const BilateralParams& p, float coefficient, int dx, int dy, float d2) {
  const float spatial = -float(dx * dx + dy * dy) * p.spatial_log2_coefficient;
  switch (p.kernel) {
    case RangeKernel::gaussian: return spatial - d2 * coefficient;
    case RangeKernel::tukey: return spatial + log2f(range_tukey(d2 * coefficient));
    case RangeKernel::lorentz: return spatial + log2f(range_lorentz(d2 * coefficient));
    default: return spatial + log2f(range_huber(d2 * coefficient));
  }
}

// The filter for one pixel with weights scaled by 2^-M, M the largest log2
// weight in the window, so nothing underflows. A window whose weights are
// all below 2^-1074 (zero even in double precision) or transparent keeps the
// pixel's value. fetch(dx, dy, colour, alpha) reads the working-unit sample
// at offset (dx, dy); channel c is filtered alone unless p.joint.
// coefficients holds one range coefficient per weight group (the adaptive
// filter's own for the pixel), or is null for the plan's. Slow (two passes,
// log2 per tap) and used only below kRescueWeightSum.
template <class Fetch>
EW_HD void rescue_pixel(const BilateralParams& p, const float* coefficients, const float* centre, Fetch fetch,
                        float* out) {
  const int r = p.radius, channels = p.color_channels;
  const int groups = p.joint ? 1 : channels;
  for (int g = 0; g < groups; ++g) {
    const float coefficient = coefficients ? coefficients[g] : p.range_coefficient;
    float largest = -INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
      float sum[3] = {0.f, 0.f, 0.f}, weight_sum = 0.f;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          float colour[3], alpha;
          fetch(dx, dy, colour, alpha);
          if (!(alpha > 0.f)) continue;
          float d2 = 0.f;
          for (int c = 0; c < channels; ++c)
            if (p.joint || c == g) d2 += (colour[c] - centre[c]) * (colour[c] - centre[c]);
          const float e = tap_log2_weight(p, coefficient, dx, dy, d2);
          if (pass == 0) {
            largest = e > largest ? e : largest;
            continue;
          }
          const float w = ew_exp2(e - largest) * alpha;
          for (int c = 0; c < channels; ++c) sum[c] += w * colour[c];
          weight_sum += w;
        }
      if (pass == 0 && !(largest >= -1074.0f)) {  // also NaN-safe
        for (int c = 0; c < channels; ++c)
          if (p.joint || c == g) out[c] = centre[c];
        break;
      }
      if (pass == 1)
        for (int c = 0; c < channels; ++c)
          if (p.joint || c == g) out[c] = sum[c] / weight_sum;
    }
  }
}

}  // namespace edgewise
