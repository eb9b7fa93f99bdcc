// The non-local-means bilateral filter's per-pixel math, written once for
// every backend: the CPU instantiates it with floats in vectorised loops,
// the CUDA kernel with one float per thread. Backends decide how they get a
// patch's box sum (the CPU from separable sums of a tile's difference
// image, the GPU from shared memory); what an offset weighs and the rescue
// of a pixel whose weights all underflow are here.
#pragma once

#include <math.h>

#include "fast_exp.h"
#include "nlm.h"
#include "range_kernels.h"

namespace edgewise {

// The noise profile's ratio for channel c at intensity v (scaled samples):
// linear between knots, constant beyond them (NaN reads the first).
EW_HD float nlm_noise_ratio_at(const NlmParams& p, int c, float v) {
  float x = v * p.noise_knot_scale;
  x = x > 0.f ? x : 0.f;
  x = x < float(kNlmNoiseKnots - 1) ? x : float(kNlmNoiseKnots - 1);
  const int k = int(x) < kNlmNoiseKnots - 2 ? int(x) : kNlmNoiseKnots - 2;
  const float t = x - float(k), low = p.noise_ratio[c][k];
  return low + t * (p.noise_ratio[c][k + 1] - low);
}

// What pixel p's patch distances are multiplied by for weight group g:
// patch_norm, divided by r(p) (nlm.h) with the noise profile.
// fetch(x, y, colour, alpha) reads the scaled sample at offset (x, y) from
// the pixel; the patch is summed in one order on every backend.
template <class Fetch>
EW_HD float nlm_distance_scale(const NlmParams& p, Fetch fetch, int g) {
  if (!p.noise_profile) return p.patch_norm;
  const int f = p.patch_radius, first = p.joint ? 0 : g, last = p.joint ? p.color_channels : g + 1;
  float sum[3] = {0.f, 0.f, 0.f};
  for (int ty = -f; ty <= f; ++ty)
    for (int tx = -f; tx <= f; ++tx) {
      float colour[3], unused;
      fetch(tx, ty, colour, unused);
      for (int c = first; c < last; ++c) sum[c] += colour[c];
    }
  float ratio = 0.f;
  for (int c = first; c < last; ++c) ratio += nlm_noise_ratio_at(p, c, sum[c] * p.patch_mean_norm);
  // The mean ratio, divided exactly, so that a flat profile (ratios 1) is
  // the filter without one to the last bit.
  return p.patch_norm / (ratio / float(last - first));
}

// Log2 of the spatial term of offset (dx, dy).
EW_HD float nlm_spatial_log2(const NlmParams& p, int dx, int dy) {
  return -float(dx * dx + dy * dy) * p.spatial_log2_coefficient;
}

// The log2 exponent of an offset's weight without the range factor of the
// non-Gaussian kernels: the patch term from the patch's box sum of squared
// differences (scaled samples) times the pixel's distance scale
// (nlm_distance_scale), the spatial term and, for the Gaussian, the range
// term from the centre pixels' squared difference.
template <RangeKernel K, class T>
EW_HD T nlm_exponent(const NlmParams& p, T box_sum, T centre_d2, float spatial_log2, T distance_scale) {
  T e = T{} + spatial_log2;
  if (p.patch_term) e = e - ew_max(box_sum * distance_scale - p.noise_floor, T{}) * p.patch_log2_coefficient;
  if constexpr (K == RangeKernel::gaussian)
    if (p.range_term) e = e - centre_d2 * p.range_coefficient;
  return e;
}

// The non-Gaussian range kernels' factor (1 when the range term is off).
template <RangeKernel K, class T>
EW_HD T nlm_range_factor(const NlmParams& p, T centre_d2) {
  if constexpr (K == RangeKernel::gaussian) {
    return T{} + 1.0f;
  } else {
    if (!p.range_term) return T{} + 1.0f;
    const T q = centre_d2 * p.range_coefficient;
    if constexpr (K == RangeKernel::tukey) return range_tukey(q);
    if constexpr (K == RangeKernel::lorentz) return range_lorentz(q);
    return range_huber(q);
  }
}

template <RangeKernel K, class T>
EW_HD T nlm_weight(const NlmParams& p, T box_sum, T centre_d2, float spatial_log2, T distance_scale) {
  return ew_exp2(nlm_exponent<K>(p, box_sum, centre_d2, spatial_log2, distance_scale)) *
         nlm_range_factor<K>(p, centre_d2);
}

// Below this total weight a float sum may have lost the window to
// underflow (the centre alone weighs its alpha, so only a (nearly)
// transparent pixel gets here): such pixels are recomputed by
// nlm_rescue_pixel.
constexpr float kNlmRescueWeightSum = 1e-30f;

// Log2 of an offset's whole weight without alpha (-inf where the range
// kernel is zero), for the rescue.
EW_HD float nlm_log2_weight(const NlmParams& p, float box_sum, float centre_d2, int dx, int dy, float distance_scale) {
  const float spatial = nlm_spatial_log2(p, dx, dy);
  switch (p.kernel) {
    case RangeKernel::gaussian:
      return nlm_exponent<RangeKernel::gaussian>(p, box_sum, centre_d2, spatial, distance_scale);
    case RangeKernel::tukey:
      return nlm_exponent<RangeKernel::tukey>(p, box_sum, centre_d2, spatial, distance_scale) +
             log2f(nlm_range_factor<RangeKernel::tukey>(p, centre_d2));
    case RangeKernel::lorentz:
      return nlm_exponent<RangeKernel::lorentz>(p, box_sum, centre_d2, spatial, distance_scale) +
             log2f(nlm_range_factor<RangeKernel::lorentz>(p, centre_d2));
    default:
      return nlm_exponent<RangeKernel::huber>(p, box_sum, centre_d2, spatial, distance_scale) +
             log2f(nlm_range_factor<RangeKernel::huber>(p, centre_d2));
  }
}

// The filter for one pixel with weights scaled by 2^-M, M the largest log2
// weight of the window, so nothing underflows; a window whose weights are
// all zero even in double precision (or transparent) keeps the pixel.
// fetch(x, y, colour, alpha) reads the scaled sample at band-relative
// offset (x, y) from the pixel (any offset within S + f); writes scaled
// results for weight group g's channels (all when joint). Slow (the
// patches are summed directly, twice) and used only below
// kNlmRescueWeightSum.
template <class Fetch>
EW_HD void nlm_rescue_pixel(const NlmParams& p, Fetch fetch, int g, float* out) {
  const int S = p.search_radius, f = p.patch_radius, channels = p.color_channels;
  const int first = p.joint ? 0 : g, last = p.joint ? channels : g + 1;
  float centre[3], centre_alpha;
  fetch(0, 0, centre, centre_alpha);
  const float distance_scale = nlm_distance_scale(p, fetch, g);
  float largest = -INFINITY;
  float sum[3] = {0.f, 0.f, 0.f}, weight_sum = 0.f;
  for (int pass = 0; pass < 2; ++pass) {
    for (int dy = -S; dy <= S; ++dy)
      for (int dx = -S; dx <= S; ++dx) {
        float colour[3], alpha;
        fetch(dx, dy, colour, alpha);
        if (!(alpha > 0.f)) continue;
        float box = 0.f, centre_d2 = 0.f;
        for (int ty = -f; ty <= f; ++ty)
          for (int tx = -f; tx <= f; ++tx) {
            float a[3], b[3], unused;
            fetch(tx, ty, a, unused);
            fetch(dx + tx, dy + ty, b, unused);
            for (int c = first; c < last; ++c) box += (a[c] - b[c]) * (a[c] - b[c]);
          }
        for (int c = first; c < last; ++c) centre_d2 += (colour[c] - centre[c]) * (colour[c] - centre[c]);
        const float e = nlm_log2_weight(p, box, centre_d2, dx, dy, distance_scale);
        if (pass == 0) {
          largest = e > largest ? e : largest;
          continue;
        }
        const float w = ew_exp2(e - largest) * alpha;
        for (int c = first; c < last; ++c) sum[c] += w * colour[c];
        weight_sum += w;
      }
    if (pass == 0 && !(largest >= -1074.0f)) {  // also NaN-safe
      for (int c = first; c < last; ++c) out[c] = centre[c];
      return;
    }
  }
  for (int c = first; c < last; ++c) out[c] = sum[c] / weight_sum;
}

}  // namespace edgewise
