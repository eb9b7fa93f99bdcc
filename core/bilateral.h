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
};

// Weight of one tap from the plan's spatial term for that tap and the squared
// colour difference d2 in working units (0..1 samples, or Lab).
//  gaussian: spatial_term = -|p-q|^2 / (2 sigma_s^2) * log2(e) and
//            range_coefficient = unit^2 / (2 sigma_r^2) * log2(e): the spatial
//            and range Gaussians fold into one 2^x per tap, in every mode.
//  others:   spatial_term = exp(-|p-q|^2 / (2 sigma_s^2)) and
//            range_coefficient = unit^2 / sigma_r^2, so q = (x / sigma_r)^2.
// unit is 255 for code values (per-channel, rgb, grey) and 1 for Delta E.
template <RangeKernel K, class T>
EW_HD T tap_weight(T spatial_term, T d2, float range_coefficient) {
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

}  // namespace edgewise
