// core/fast_exp.h's 2^x as the AVX-512 row kernels build it (16 lanes,
// VRNDSCALEPS, VREDUCEPS, VSCALEFPS; fast_exp_avx512_lanes.cpp, built with
// their flags), where the processor has AVX-512 F and DQ; else each test
// skips saying so.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "fast_exp.h"
#include "fast_exp_avx512_lanes.h"
#include "fast_exp_checks.h"

namespace {

bool has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

constexpr const char* kNoAvx512 = "this processor has no AVX-512 F and DQ; the AVX-512 kernels never run here";

std::vector<float> exp2_avx512(const std::vector<float>& t) {
  std::vector<float> out(t.size());
  edgewise_test::exp2_avx512(t.data(), out.data(), t.size());
  return out;
}

// Same polynomial on the same f as exp2_poly, 2^n applied exactly: the same
// bits as exp2_poly built with the same flags wherever its clamp at -125
// does not act, and each lane the same as any other (a pixel must not
// depend on its lane).
TEST(FastExpAvx512, MatchesStdExp2AndThePolynomial) {
  if (!has_avx512()) {
    GTEST_SKIP() << kNoAvx512;
  }
  const std::vector<float> inputs = edgewise_test::exp2_inputs();
  const std::vector<float> outputs = exp2_avx512(inputs);
  edgewise_test::expect_relative_error_below(inputs, outputs, "ew_exp2(float_lanes<16>), AVX-512");
  std::vector<float> polynomial(inputs.size());
  edgewise_test::exp2_poly_avx512(inputs.data(), polynomial.data(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] >= -125.0f) {
      ASSERT_EQ(outputs[i], polynomial[i]) << "t = " << inputs[i];
    }
  }
  for (size_t i = 0; i < 4096; ++i) {
    const size_t at = i * 97 % inputs.size();
    const int lane = int(i % 16);
    ASSERT_EQ(edgewise_test::exp2_avx512_in_lane(inputs[at], lane), outputs[at]) << "lane " << lane;
  }
}

// No clamp: below 2^-125 the weight goes through the subnormals to zero,
// never NaN, infinity or a wrapped exponent, -inf included.
TEST(FastExpAvx512, VeryNegativeInputsGiveTinyOrZeroValues) {
  if (!has_avx512()) {
    GTEST_SKIP() << kNoAvx512;
  }
  const std::vector<float> inputs = {-125.0f,
                                     -125.5f,
                                     -126.0f,
                                     -127.0f,
                                     -149.0f,
                                     -150.0f,
                                     -200.0f,
                                     -1000.0f,
                                     -1e20f,
                                     -FLT_MAX,
                                     -std::numeric_limits<float>::infinity()};
  const std::vector<float> outputs = exp2_avx512(inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const float t = inputs[i], y = outputs[i];
    EXPECT_TRUE(std::isfinite(y)) << "ew_exp2(" << t << ") = " << y;
    EXPECT_GE(y, 0.0f) << "ew_exp2(" << t << ")";
    EXPECT_LE(double(y), std::exp2(double(t)) * (1.0 + edgewise_test::kRelativeTolerance) + std::ldexp(1.0, -149))
        << "ew_exp2(" << t << ")";
  }
  EXPECT_EQ(outputs.back(), 0.0f);
}

}  // namespace
