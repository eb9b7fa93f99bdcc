// Element-wise helpers that the shared filter math is written with. They take
// a float (CPU scalar code, CUDA threads) or a GCC vector of floats (the CPU
// backend's SIMD lanes), so one formula serves every backend.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hostdevice.h"

namespace edgewise {

// The conditional operator is element-wise on GCC vectors, so these two
// templates serve both scalars and lanes.
template <class T>
EW_HD T ew_min(T a, T b) { return a < b ? a : b; }
template <class T>
EW_HD T ew_max(T a, T b) { return a > b ? a : b; }

EW_HD float ew_sqrt(float x) { return sqrtf(x); }

EW_HD uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

EW_HD float bits_float(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

#if !defined(__CUDACC__)
// GCC ignores vector_size on a dependent alias template, so each width is
// spelled out.
template <int N>
struct lane_types;
template <>
struct lane_types<4> {
  typedef float f __attribute__((vector_size(16)));
  typedef uint32_t u __attribute__((vector_size(16)));
};
template <>
struct lane_types<8> {
  typedef float f __attribute__((vector_size(32)));
  typedef uint32_t u __attribute__((vector_size(32)));
};
template <>
struct lane_types<16> {
  typedef float f __attribute__((vector_size(64)));
  typedef uint32_t u __attribute__((vector_size(64)));
};
template <int N>
using float_lanes = typename lane_types<N>::f;
template <int N>
using uint_lanes = typename lane_types<N>::u;

template <int N>
inline float_lanes<N> lanes_sqrt(float_lanes<N> x) {
  float_lanes<N> r = x;
  for (int i = 0; i < N; ++i) r[i] = __builtin_sqrtf(x[i]);  // becomes one vsqrtps
  return r;
}

// Only the width a translation unit asks for (EW_LANE_WIDTH, set by the CPU
// row kernels) gets overloads: wider vectors in other units would need an
// ABI their compile flags do not enable. N cannot be deduced through
// lane_types, hence overloads rather than templates. Same-size vector casts
// reinterpret the bits.
#if defined(EW_LANE_WIDTH)
inline float_lanes<EW_LANE_WIDTH> ew_sqrt(float_lanes<EW_LANE_WIDTH> x) {
  return lanes_sqrt<EW_LANE_WIDTH>(x);
}
inline uint_lanes<EW_LANE_WIDTH> float_bits(float_lanes<EW_LANE_WIDTH> x) {
  return (uint_lanes<EW_LANE_WIDTH>)x;
}
inline float_lanes<EW_LANE_WIDTH> bits_float(uint_lanes<EW_LANE_WIDTH> x) {
  return (float_lanes<EW_LANE_WIDTH>)x;
}
#endif
#endif

}  // namespace edgewise
