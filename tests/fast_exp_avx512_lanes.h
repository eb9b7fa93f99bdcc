// The AVX-512 build of core/fast_exp.h's 2^x (fast_exp_avx512_lanes.cpp);
// call only where the processor has AVX-512 F and DQ.
#pragma once

#include <cstddef>

namespace edgewise_test {

// out[i] = 2^t[i], 16 lanes at a time.
void exp2_avx512(const float* t, float* out, size_t count);
// exp2_poly on the same lanes, as the AVX-512 kernels built it before.
void exp2_poly_avx512(const float* t, float* out, size_t count);
// 2^t computed in lane `lane` of a vector whose other lanes are 0.
float exp2_avx512_in_lane(float t, int lane);

}  // namespace edgewise_test
