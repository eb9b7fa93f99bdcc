// core/fast_exp.h's 2^x built as the AVX-512 row kernels build it (their
// flags, see tests/CMakeLists.txt), in its own translation unit: only these
// functions may use AVX-512, and test_fast_exp_avx512 calls them only on a
// processor that has it.
#define EW_LANE_WIDTH 16
#include "fast_exp_avx512_lanes.h"

#include "fast_exp.h"

namespace edgewise_test {

namespace {

// out[i] = f(t[i]), 16 lanes at a time; a last partial vector's other lanes are 0.
template <class F>
void on_lanes(const float* t, float* out, size_t count, F f) {
  for (size_t i = 0; i < count; i += 16) {
    edgewise::float_lanes<16> x{};
    for (size_t k = 0; k < 16 && i + k < count; ++k) x[k] = t[i + k];
    const edgewise::float_lanes<16> y = f(x);
    for (size_t k = 0; k < 16 && i + k < count; ++k) out[i + k] = y[k];
  }
}

}  // namespace

void exp2_avx512(const float* t, float* out, size_t count) {
  on_lanes(t, out, count, [](edgewise::float_lanes<16> x) { return edgewise::ew_exp2(x); });
}

void exp2_poly_avx512(const float* t, float* out, size_t count) {
  on_lanes(t, out, count, [](edgewise::float_lanes<16> x) { return edgewise::exp2_poly(x); });
}

float exp2_avx512_in_lane(float t, int lane) {
  edgewise::float_lanes<16> x{};
  x[lane] = t;
  return edgewise::ew_exp2(x)[lane];
}

}  // namespace edgewise_test
