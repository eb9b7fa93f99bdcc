// Range kernels R as functions of q = (x / sigma_r)^2, so that no backend
// needs the square root of a distance except Huber. Branch-free forms, so
// they work per SIMD lane and per CUDA thread without divergence.
#pragma once

#include "fast_exp.h"

namespace edgewise {

// gaussian exp(-x^2 / (2 sigma^2)). The backends fold it with the spatial
// term into one 2^x per tap (filters/bilateral_math.h); this form is for reference.
template <class T>
EW_HD T range_gaussian(T q) {
  return ew_exp2(q * (-0.5f * kLog2e));
}

// Tukey's biweight: (1 - (x/s)^2)^2 / 2 inside |x| <= s, zero outside.
template <class T>
EW_HD T range_tukey(T q) {
  const T t = ew_max(1.0f - q, T{});
  return 0.5f * t * t;
}

// Lorentz (Cauchy): 2 / (2 + (x/s)^2).
template <class T>
EW_HD T range_lorentz(T q) {
  return 2.0f / (2.0f + q);
}

// Huber: 1 inside |x| <= s, s/|x| outside. At q = 0 the division gives +inf
// and the min gives 1.
template <class T>
EW_HD T range_huber(T q) {
  return ew_min(T{} + 1.0f, 1.0f / ew_sqrt(q));
}

}  // namespace edgewise
