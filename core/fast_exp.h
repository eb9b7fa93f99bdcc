// The exponential used for every filter weight, in base 2 (the constant
// log2(e) is folded into the plan's tables, so the hardware-friendly 2^x is
// all a tap needs).
//
// On the GPU: the hardware ex2.approx (2 ulp). On the CPU: a polynomial that
// vectorises. 2^x = 2^n * 2^f with n = round(x), f in [-1/2, 1/2]; 2^f is a
// degree-5 fit (relative error 2.2e-7 in float, least squares on Chebyshev
// nodes), and 2^n is added into the exponent field. Rounding uses the
// 1.5*2^23 trick, whose float bits hold n in their low mantissa bits, so n
// never goes through a float-to-int conversion. Weights differ from exact
// ones by under 1e-6 relative, far inside the 1e-4 tolerance on outputs.
#pragma once

#include "lanes.h"

#if !defined(__CUDACC__) && defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#endif

namespace edgewise {

template <class T>
EW_HD T exp2_poly(T x) {
  // Below -125 the weight is negligible; the clamp keeps 2^n a normal float.
  x = ew_max(x, T{} + -125.0f);
  const T shifted = x + 12582912.0f;  // 1.5 * 2^23
  const T n = shifted - 12582912.0f;
  const T f = x - n;
  T p = T{} + 1.326697515e-03f;
  p = p * f + 9.675464578e-03f;
  p = p * f + 5.550742646e-02f;
  p = p * f + 2.402212166e-01f;
  p = p * f + 6.931469491e-01f;
  p = p * f + 1.000000071e+00f;
  return bits_float(float_bits(p) + (float_bits(shifted) << 23));
}

EW_HD float ew_exp2(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return exp2_poly(x);
#endif
}

// log2 for per-sample (not per-tap) work: the hardware's lg2.approx on the
// GPU (absolute error about 2^-22 on (0, 1]), log2f elsewhere; -inf at 0.
EW_HD float ew_log2(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return log2f(x);
#endif
}

#if !defined(__CUDACC__) && defined(EW_LANE_WIDTH)
// Units of one lane width may build different definitions (the bilateral
// rows with AVX-512 DQ, the others without): each in an inline namespace
// named after it, so no two units' copies of different code share a name.
#if EW_LANE_WIDTH == 16 && defined(__AVX512F__) && defined(__AVX512DQ__)
inline namespace exp2_scalef {
// AVX-512 (a translation unit built with -mavx512dq): n and f = x - n come
// from VRNDSCALEPS and VREDUCEPS, and VSCALEFPS multiplies by 2^n, taking
// weights below 2^-126 through the subnormals to 0 (x = -inf gives f = 0,
// then 0) with no clamp: 8 instructions where exp2_poly takes 12, the same
// polynomial on the same f, so the same values down to 2^-125. Measured
// on Zen 4, one thread, 25-tap loop in L1: rgb 4.72 -> 4.14 ns per 16-lane
// tap, per-channel 9.22 -> 7.67 (no subnormal penalty with all weights tiny).
inline float_lanes<16> ew_exp2(float_lanes<16> x) {
  // The zero-masked forms with all lanes set are the plain instructions;
  // GCC 12 warns of the unmasked forms' undefined pass-through operand.
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  constexpr __mmask16 kAll = 0xffff;
  const __m512 n = _mm512_maskz_roundscale_ps(kAll, __m512(x), kNearest);
  const float_lanes<16> f = float_lanes<16>(_mm512_maskz_reduce_ps(kAll, __m512(x), kNearest));
  float_lanes<16> p = float_lanes<16>{} + 1.326697515e-03f;
  p = p * f + 9.675464578e-03f;
  p = p * f + 5.550742646e-02f;
  p = p * f + 2.402212166e-01f;
  p = p * f + 6.931469491e-01f;
  p = p * f + 1.000000071e+00f;
  return float_lanes<16>(_mm512_maskz_scalef_ps(kAll, __m512(p), n));
}
}  // namespace exp2_scalef
#else
inline namespace exp2_polynomial {
inline float_lanes<EW_LANE_WIDTH> ew_exp2(float_lanes<EW_LANE_WIDTH> x) { return exp2_poly(x); }
}  // namespace exp2_polynomial
#endif
#endif

constexpr float kLog2e = 1.4426950408889634f;

}  // namespace edgewise
