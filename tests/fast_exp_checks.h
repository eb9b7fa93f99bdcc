// What every CPU variant of core/fast_exp.h's 2^x is held to: relative error
// against std::exp2 in double over the weights' range, on inputs chosen
// where the rounding to n changes. Shared by test_fast_exp (scalar, 8 lanes)
// and the per-instruction-set tests (test_fast_exp_avx512).
#pragma once

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <vector>

#include "lanes.h"

namespace edgewise_test {

constexpr double kRelativeTolerance = 1e-6;
constexpr double kLn2 = 0.6931471805599453;

// Evaluates f on N inputs at once through the vector type.
template <int N, class F>
std::vector<float> in_lanes(const std::vector<float>& inputs, F f) {
  using Lanes = edgewise::float_lanes<N>;
  std::vector<float> outputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); i += N) {
    Lanes x{};
    for (size_t k = 0; k < N; ++k) x[k] = i + k < inputs.size() ? inputs[i + k] : 0.0f;
    const Lanes y = f(x);
    for (size_t k = 0; k < N && i + k < inputs.size(); ++k) outputs[i + k] = y[k];
  }
  return outputs;
}

// The range e^x, x in [-87, 0], is 2^t for t in [-125.5, 0]; the
// polynomial clamps at t = -125 (2^-125 is the smallest weight it gives).
// A uniform grid plus floats on both sides of each half-integer t, where
// the rounding to n changes, covers the polynomial's interval many times.
inline std::vector<float> exp2_inputs() {
  std::vector<float> inputs;
  const int steps = 1 << 20;
  for (int i = 0; i <= steps; ++i) inputs.push_back(float(-125.0 * i / steps));
  for (int n = 0; n < 125; ++n) {
    float t = -(float(n) + 0.5f);
    for (int k = 0; k < 8; ++k) t = std::nextafter(t, 0.0f);
    for (int k = 0; k < 16; ++k, t = std::nextafter(t, -INFINITY)) inputs.push_back(t);
  }
  for (float t : {-125.0f, -1.0f, -0.5f, 0.0f, -0.0f, -FLT_MIN, -1e-30f}) inputs.push_back(t);
  return inputs;
}

inline void expect_relative_error_below(const std::vector<float>& inputs, const std::vector<float>& outputs,
                                        const char* what) {
  double worst = 0.0;
  float worst_t = 0.0f;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double exact = std::exp2(double(inputs[i]));
    const double error = std::fabs(double(outputs[i]) - exact) / exact;
    if (!(error <= worst)) {
      worst = error;
      worst_t = inputs[i];
    }
  }
  EXPECT_LE(worst, kRelativeTolerance) << what << ": worst relative error at t = " << worst_t;
  std::cout << "[  INFO    ] " << what << ": max relative error " << worst << " at t = " << worst_t << " over "
            << inputs.size() << " inputs" << std::endl;
}

}  // namespace edgewise_test
