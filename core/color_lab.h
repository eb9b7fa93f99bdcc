// R'G'B' (sRGB-encoded, 0..1) <-> CIE L*a*b* as GIMP defines it: babl's
// "CIE Lab float", i.e. D50 white, sRGB primaries Bradford-adapted to D50.
// The matrix is babl's own (read off babl 0.1.98 by converting the unit
// linear-RGB vectors to "CIE XYZ float"); its inverse was computed in double.
// tests/test_color_lab.cpp checks this file against babl on random colours.
#pragma once

#include <cstdint>

#include "fast_exp.h"
#include "hostdevice.h"
#include "lanes.h"

// The CPU instantiates these templates on GCC vectors in one translation
// unit per instruction set (cpu_fallback/color_rows_*.cpp), compiled with
// different flags; an inline namespace per instruction set keeps their
// out-of-line copies apart (as fourier_math.h explains).
#if defined(EW_ISA_NAMESPACE)
#define EW_COLOR_MATH_PASTE(a, b) a##b
#define EW_COLOR_MATH_NAME(isa) EW_COLOR_MATH_PASTE(colour_, isa)
#define EW_COLOR_MATH EW_COLOR_MATH_NAME(EW_ISA_NAMESPACE)
#else
#define EW_COLOR_MATH colour_shared
#endif

namespace edgewise {
inline namespace EW_COLOR_MATH {

// The conversions' powers (the sRGB curve's 2.4 and 1/2.4, Lab's cube
// root) as 2^(p log2 x) with polynomials, not powf and cbrtf: the same
// formula then runs on a float (CUDA threads, scalar host code) and on GCC
// vectors (the CPU's row conversions, cpu_fallback/color_rows.h: 38 ms for
// a 4 MP round trip with 16 AVX-512 lanes against 190 with powf and cbrtf),
// so every backend computes the same conversion. Relative error about 3e-7 (the 2^x
// polynomial's 2.2e-7 and log2's rounding), far inside the 1e-3 Delta E
// that tests/test_color_lab.cpp holds the conversion to against babl.

// The bits of a float or of each lane (the lanes of the translation unit's
// width, EW_LANE_WIDTH), here in the per-instruction-set namespace.
EW_HD uint32_t lab_bits(float x) { return float_bits(x); }
EW_HD float lab_float(uint32_t bits) { return bits_float(bits); }
#if !defined(__CUDACC__) && defined(EW_LANE_WIDTH)
inline uint_lanes<EW_LANE_WIDTH> lab_bits(float_lanes<EW_LANE_WIDTH> x) { return (uint_lanes<EW_LANE_WIDTH>)x; }
inline float_lanes<EW_LANE_WIDTH> lab_float(uint_lanes<EW_LANE_WIDTH> bits) { return (float_lanes<EW_LANE_WIDTH>)bits; }
#endif

// log2 x for positive normal x: x = m 2^e with m in [sqrt(1/2), sqrt(2)),
// log2 m = 2 / ln 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172, by its
// odd series to s^9 (next term below 1e-9).
template <class T>
EW_HD T lab_log2(T x) {
  const auto bits = lab_bits(x);
  const T exponent = lab_float(((bits >> 23) & 0xffu) | 0x4b000000u) - (8388608.0f + 127.0f);
  const T mantissa = lab_float((bits & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const auto high = mantissa > 1.41421356f;
  const T m = high ? mantissa * 0.5f : mantissa;
  const T e = high ? exponent + 1.0f : exponent;
  const T s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
  return e + s * (2.88539008f + s2 * (0.961796694f + s2 * (0.577078016f + s2 * (0.412198583f + s2 * 0.320598898f))));
}

// 2^x for the powers: 2^n 2^f, n = round(x), |f| <= 1/2, 2^f by its Taylor
// series to f^7 (error 5e-9: the weights' degree-5 fit, 2.2e-7, moved
// colours by 1.1e-5 over a round trip). On the GPU the hardware's ex2
// (2 ulp). Limited above, so that huge float samples give a huge value, not
// wrapped exponent bits; below, as the weights' (fast_exp.h).
template <class T>
EW_HD T lab_exp2(T x) {
  x = ew_min(ew_max(x, T{} + -125.0f), T{} + 126.0f);
  const T shifted = x + 12582912.0f;  // 1.5 * 2^23: rounds, and its bits hold n
  const T f = x - (shifted - 12582912.0f);
  const T g = f * 0.693147181f;
  const T p =
      1.0f +
      g * (1.0f + g * (0.5f + g * (1.0f / 6 + g * (1.0f / 24 + g * (1.0f / 120 + g * (1.0f / 720 + g * (1.0f / 5040)))))));
  return lab_float(lab_bits(p) + (lab_bits(shifted) << 23));
}
#if defined(__CUDA_ARCH__)
EW_HD float lab_exp2(float x) { return ew_exp2(ew_min(ew_max(x, -125.0f), 126.0f)); }
#endif

// x^p for x > 0.
template <class T>
EW_HD T lab_pow(T x, float p) {
  return lab_exp2(lab_log2(x) * p);
}

// sRGB transfer curve, mirrored for negative values as babl does, so
// out-of-gamut floats survive a round trip. A NaN stays NaN.
template <class T>
EW_HD T srgb_to_linear(T v) {
  const auto negative = v < 0.0f;
  const T a = negative ? -v : v;
  const T low = a * (1.0f / 12.92f);
  const T lin = a <= 0.04045f ? low : lab_pow((ew_max(a, T{} + 0.04045f) + 0.055f) * (1.0f / 1.055f), 2.4f);
  const T mirrored = negative ? -lin : lin;
  return v == v ? mirrored : v;
}

template <class T>
EW_HD T linear_to_srgb(T v) {
  const auto negative = v < 0.0f;
  const T a = negative ? -v : v;
  const T low = a * 12.92f;
  const T enc = a <= 0.0031308f ? low : 1.055f * lab_pow(ew_max(a, T{} + 0.0031308f), 1.0f / 2.4f) - 0.055f;
  const T mirrored = negative ? -enc : enc;
  return v == v ? mirrored : v;
}

// CIE constants: epsilon = 216/24389, kappa = 24389/27.
template <class T>
EW_HD T lab_f(T t) {
  const T linear = (24389.0f / 27.0f * t + 16.0f) * (1.0f / 116.0f);
  return t > 216.0f / 24389.0f ? lab_pow(ew_max(t, T{} + 216.0f / 24389.0f), 1.0f / 3.0f) : linear;
}

template <class T>
EW_HD T lab_f_inverse(T f) {
  const T cube = f * f * f;
  return cube > 216.0f / 24389.0f ? cube : (116.0f * f - 16.0f) * (27.0f / 24389.0f);
}

// The D50 white is the matrix's row sums, so R'G'B' white maps to L = 100,
// a = b = 0 exactly as in babl.
template <class T>
EW_HD void rgb_to_lab(T r_enc, T g_enc, T b_enc, T& L, T& a, T& b) {
  const T r = srgb_to_linear(r_enc), g = srgb_to_linear(g_enc), bl = srgb_to_linear(b_enc);
  const T x = 0.4360348582f * r + 0.3851166666f * g + 0.1430513710f * bl;
  const T y = 0.2224879414f * r + 0.7169038653f * g + 0.0606082566f * bl;
  const T z = 0.0139158843f * r + 0.0970605090f * g + 0.7139289379f * bl;
  const T fx = lab_f(x * (1.0f / 0.9642028958f));
  const T fy = lab_f(y * (1.0f / 1.0000000633f));
  const T fz = lab_f(z * (1.0f / 0.8249053312f));
  L = 116.0f * fy - 16.0f;
  a = 500.0f * (fx - fy);
  b = 200.0f * (fy - fz);
}

template <class T>
EW_HD void lab_to_rgb(T L, T a, T b, T& r_enc, T& g_enc, T& b_enc) {
  const T fy = (L + 16.0f) * (1.0f / 116.0f);
  const T fx = fy + a * (1.0f / 500.0f);
  const T fz = fy - b * (1.0f / 200.0f);
  const T x = lab_f_inverse(fx) * 0.9642028958f;
  const T y = lab_f_inverse(fy) * 1.0000000633f;
  const T z = lab_f_inverse(fz) * 0.8249053312f;
  const T r = 3.1342755479f * x - 1.6172765710f * y - 0.4907240514f * z;
  const T g = -0.9787935428f * x + 1.9161604069f * y + 0.0334523723f * z;
  const T bl = 0.0719763283f * x - 0.2289831132f * y + 1.4057168740f * z;
  r_enc = linear_to_srgb(r);
  g_enc = linear_to_srgb(g);
  b_enc = linear_to_srgb(bl);
}

}  // namespace EW_COLOR_MATH
}  // namespace edgewise
