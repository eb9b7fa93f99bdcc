// The exponential every weight is built from (core/fast_exp.h: 2^x, with
// log2(e) folded into the plan's tables), scalar and in 8 SIMD lanes, against
// std::exp2 in double; the range kernels of core/range_kernels.h and the tap
// weights of core/filters/bilateral_math.h + the plan against the formulas in
// the issue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iostream>
#include <limits>
#include <vector>

// The vector overloads of core/ exist for the width a translation unit asks
// for, as in the CPU backend's row kernels.
#define EW_LANE_WIDTH 8
#include "bilateral.h"
#include "bilateral_math.h"
#include "fast_exp.h"
#include "fast_exp_checks.h"
#include "lanes.h"
#include "plan.h"
#include "range_kernels.h"

namespace {

using edgewise::float_lanes;
using Lanes = float_lanes<8>;

using edgewise_test::exp2_inputs;
using edgewise_test::expect_relative_error_below;
using edgewise_test::kLn2;
using edgewise_test::kRelativeTolerance;

// Evaluates f on 8 inputs at once through the vector type.
template <class F>
std::vector<float> in_lanes(const std::vector<float>& inputs, F f) {
  return edgewise_test::in_lanes<8>(inputs, f);
}

TEST(FastExp, ScalarMatchesStdExp2) {
  const std::vector<float> inputs = exp2_inputs();
  std::vector<float> outputs;
  for (float t : inputs) outputs.push_back(edgewise::exp2_poly(t));
  expect_relative_error_below(inputs, outputs, "exp2_poly(float)");
}

TEST(FastExp, LanesMatchStdExp2AndScalar) {
  const std::vector<float> inputs = exp2_inputs();
  const std::vector<float> outputs = in_lanes(inputs, [](Lanes t) { return edgewise::exp2_poly(t); });
  expect_relative_error_below(inputs, outputs, "exp2_poly(float_lanes<8>)");
  // ew_exp2 on the CPU is the same polynomial, and lanes agree with scalars
  // bit for bit (a pixel must not depend on its lane).
  const std::vector<float> via_ew = in_lanes(inputs, [](Lanes t) { return edgewise::ew_exp2(t); });
  for (size_t i = 0; i < inputs.size(); ++i) {
    const float scalar = edgewise::exp2_poly(inputs[i]);
    ASSERT_EQ(outputs[i], scalar) << "t = " << inputs[i];
    ASSERT_EQ(via_ew[i], scalar) << "t = " << inputs[i];
    ASSERT_EQ(edgewise::ew_exp2(inputs[i]), scalar) << "t = " << inputs[i];
  }
}

// The issue's e^x over [-87, 0] through the base-2 form as the plan uses it
// (t = x log2(e) rounded to float). Rounding t costs up to half an ulp of t,
// i.e. a relative error of ln2 * |t| * 2^-24 on top of the polynomial's.
// The clamp at t = -125 (x = -86.64) is where the bit trick for 2^n must
// stop to give a normal float; below it e^x comes out as 2^-125 instead
// (relative error up to 41% at x = -87, absolute 1e-38), which
// VeryNegativeInputsGiveTinyFiniteValues covers.
TEST(FastExp, NaturalExponentialOverIssueRange) {
  double worst_excess = -1.0;
  float worst_x = 0.0f;
  const double lowest = -125.0 / 1.4426950408889634;
  for (int i = 0; i <= 200000; ++i) {
    const double x = lowest * i / 200000;
    const float t = float(x * 1.4426950408889634);
    const double exact = std::exp(x);
    const double error = std::fabs(double(edgewise::exp2_poly(t)) - exact) / exact;
    const double allowed = kRelativeTolerance + kLn2 * std::fabs(double(t)) * std::ldexp(1.0, -24);
    if (error - allowed > worst_excess) {
      worst_excess = error - allowed;
      worst_x = float(x);
    }
  }
  EXPECT_LE(worst_excess, 0.0) << "worst at x = " << worst_x;
}

// Below the clamp a weight is negligible next to the centre tap's 1; it must
// come out as a tiny finite number (2^-125 ~ 2.4e-38) or zero, never NaN,
// infinity or a wrapped exponent.
TEST(FastExp, VeryNegativeInputsGiveTinyFiniteValues) {
  const std::vector<float> inputs = {-125.0f, -125.5f,  -126.0f, -127.0f,  -150.0f,
                                     -200.0f, -1000.0f, -1e20f,  -FLT_MAX, -std::numeric_limits<float>::infinity()};
  const double ceiling = std::exp2(-125.0) * (1.0 + kRelativeTolerance);
  const std::vector<float> lane_outputs = in_lanes(inputs, [](Lanes t) { return edgewise::exp2_poly(t); });
  for (size_t i = 0; i < inputs.size(); ++i) {
    const float t = inputs[i];
    for (float y : {edgewise::exp2_poly(t), lane_outputs[i]}) {
      EXPECT_TRUE(std::isfinite(y)) << "exp2_poly(" << t << ") = " << y;
      EXPECT_GE(y, 0.0f) << "exp2_poly(" << t << ")";
      EXPECT_LE(double(y), ceiling) << "exp2_poly(" << t << ")";
    }
  }
}

TEST(FastExp, ZeroGivesOne) {
  EXPECT_NEAR(edgewise::exp2_poly(0.0f), 1.0f, kRelativeTolerance);
  EXPECT_NEAR(edgewise::exp2_poly(-0.0f), 1.0f, kRelativeTolerance);
}

// ---------------------------------------------------------------------------
// Range kernels take q = (x / sigma_r)^2.

double gaussian(double x) { return std::exp(-0.5 * x * x); }
double tukey(double x) { return std::fabs(x) <= 1.0 ? 0.5 * (1 - x * x) * (1 - x * x) : 0.0; }
double lorentz(double x) { return 2.0 / (2.0 + x * x); }
double huber(double x) { return std::fabs(x) <= 1.0 ? 1.0 : 1.0 / std::fabs(x); }

// x / sigma_r from 0 to 4 finely, then far out.
std::vector<float> kernel_q_values() {
  std::vector<float> q;
  for (int i = 0; i <= 4000; ++i) {
    const double x = i / 1000.0;
    q.push_back(float(x * x));
  }
  for (double x : {5.0, 10.0, 13.2, 50.0, 255.0, 1e3, 1e5, 1e8}) q.push_back(float(x * x));
  return q;
}

// Relative error allowed on a weight computed as 2^t from a float t that
// took `roundings` float roundings of size |t| * 2^-24 each.
double exp2_tolerance(double t, int roundings) {
  return kRelativeTolerance + kLn2 * std::fabs(t) * roundings * std::ldexp(1.0, -24);
}

template <class Scalar, class Vector>
void check_kernel(const char* name, double (*formula)(double), Scalar scalar, Vector vector,
                  double (*relative_tolerance)(double q)) {
  SCOPED_TRACE(name);
  const std::vector<float> q = kernel_q_values();
  const std::vector<float> lanes = in_lanes(q, vector);
  for (size_t i = 0; i < q.size(); ++i) {
    const double expected = formula(std::sqrt(double(q[i])));
    const double tolerance = relative_tolerance(q[i]) * expected + 1e-37;
    const float got = scalar(q[i]);
    ASSERT_NEAR(got, expected, tolerance) << "scalar, q = " << q[i];
    ASSERT_NEAR(lanes[i], expected, tolerance) << "lanes, q = " << q[i];
    ASSERT_EQ(lanes[i], got) << "lanes differ from scalar, q = " << q[i];
  }
}

double plain_tolerance(double) { return kRelativeTolerance; }

// range_gaussian(q) = 2^(q * (-0.5 log2 e)): the float constant and the
// product are two roundings of the exponent.
double gaussian_tolerance(double q) { return exp2_tolerance(0.5 * q * 1.4426950408889634, 2); }

TEST(RangeKernels, GaussianMatchesFormula) {
  check_kernel(
      "gaussian", gaussian, [](float q) { return edgewise::range_gaussian(q); },
      [](Lanes q) { return edgewise::range_gaussian(q); }, gaussian_tolerance);
}

TEST(RangeKernels, TukeyMatchesFormula) {
  check_kernel(
      "tukey", tukey, [](float q) { return edgewise::range_tukey(q); },
      [](Lanes q) { return edgewise::range_tukey(q); }, plain_tolerance);
  // Exactly zero outside the support, so out-of-range taps cost nothing.
  for (float q : {1.0f, 1.0001f, 2.0f, 1e10f}) EXPECT_EQ(edgewise::range_tukey(q), 0.0f) << q;
  EXPECT_EQ(edgewise::range_tukey(0.0f), 0.5f);
}

TEST(RangeKernels, LorentzMatchesFormula) {
  check_kernel(
      "lorentz", lorentz, [](float q) { return edgewise::range_lorentz(q); },
      [](Lanes q) { return edgewise::range_lorentz(q); }, plain_tolerance);
  EXPECT_EQ(edgewise::range_lorentz(0.0f), 1.0f);
}

TEST(RangeKernels, HuberMatchesFormula) {
  check_kernel(
      "huber", huber, [](float q) { return edgewise::range_huber(q); },
      [](Lanes q) { return edgewise::range_huber(q); }, plain_tolerance);
  // q = 0 goes through 1/sqrt(0) = inf; the result must be exactly 1.
  for (float q : {0.0f, 1e-30f, 0.25f, 1.0f}) EXPECT_EQ(edgewise::range_huber(q), 1.0f) << q;
  const Lanes one = edgewise::range_huber(Lanes{});
  for (int k = 0; k < 8; ++k) EXPECT_EQ(one[k], 1.0f);
}

// One channel's tap weight as the backends compute it: plain_weight on
// samples scaled by the plan's scale.
float tap_weight(edgewise::RangeKernel kernel, float spatial_term, float difference, float scale) {
  using edgewise::RangeKernel;
  const float neighbour = difference * scale, centre = 0.0f;
  switch (kernel) {
    case RangeKernel::gaussian:
      return edgewise::plain_weight<RangeKernel::gaussian, 1, true>(spatial_term, &neighbour, &centre, 0);
    case RangeKernel::tukey:
      return edgewise::plain_weight<RangeKernel::tukey, 1, true>(spatial_term, &neighbour, &centre, 0);
    case RangeKernel::lorentz:
      return edgewise::plain_weight<RangeKernel::lorentz, 1, true>(spatial_term, &neighbour, &centre, 0);
    case RangeKernel::huber:
      return edgewise::plain_weight<RangeKernel::huber, 1, true>(spatial_term, &neighbour, &centre, 0);
  }
  return NAN;
}

// The plan's tables and scale with the shared weight give the issue's weight
// exp(-|p-q|^2 / (2 sigma_s^2)) * R(d), with d in code values (0..1 samples
// times 255) or in Delta E (lab).
TEST(RangeKernels, PlanTapWeightsMatchFormula) {
  using edgewise::ColorMode;
  using edgewise::RangeKernel;
  for (RangeKernel kernel : {RangeKernel::gaussian, RangeKernel::tukey, RangeKernel::lorentz, RangeKernel::huber})
    for (ColorMode mode : {ColorMode::rgb, ColorMode::lab})
      for (float sigma_s : {0.6f, 2.0f, 7.5f})
        for (float sigma_r : {0.5f, 12.0f, 45.0f, 1000.0f}) {
          edgewise::BilateralParameters parameters;
          parameters.kernel = kernel;
          parameters.mode = mode;
          parameters.sigma_s = sigma_s;
          parameters.sigma_r = sigma_r;
          const auto planned =
              edgewise::make_plan(edgewise::bilateral_spec(parameters), edgewise::ImageShape{16, 16, 3});
          const auto& plan = static_cast<const edgewise::BilateralPlan&>(*planned);
          const double unit = mode == ColorMode::lab ? 1.0 : 255.0;
          // Differences in working units: 0..1 samples, or Delta E in Lab.
          const double max_difference = mode == ColorMode::lab ? 150.0 : 1.0;
          const int r = plan.radius;
          for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
              for (int k = 0; k <= 64; ++k) {
                const double difference = max_difference * k / 64.0;
                const float d = float(difference);
                const double x = unit * double(d);  // in sigma_r's units
                const double spatial = std::exp(-double(dx * dx + dy * dy) / (2.0 * double(sigma_s) * double(sigma_s)));
                const double expected = spatial * (kernel == RangeKernel::gaussian  ? gaussian(x / double(sigma_r))
                                                   : kernel == RangeKernel::tukey   ? tukey(x / double(sigma_r))
                                                   : kernel == RangeKernel::lorentz ? lorentz(x / double(sigma_r))
                                                                                    : huber(x / double(sigma_r)));
                const float got = tap_weight(kernel, plan.spatial_term[size_t((dy + r) * plan.window() + (dx + r))], d,
                                             plan.params.scale);
                // Gaussian: one 2^t whose float exponent took five roundings
                // (table, coefficient, its square root, the scaled sample,
                // the FMA). Others: a float spatial factor times a few float
                // operations.
                const double t = std::log2(expected);
                const double relative = kernel == RangeKernel::gaussian ? exp2_tolerance(t, 5) : 4 * kRelativeTolerance;
                if (t < -125.0 + 1e-3) {
                  // Past the clamp: negligible, but finite and tiny.
                  ASSERT_TRUE(std::isfinite(got) && got >= 0.0f && got <= 2.36e-38f)
                      << edgewise::to_string(kernel) << " got " << got;
                  continue;
                }
                // Near Tukey's cut-off (1 - q) loses relative precision; the
                // absolute error there stays tiny next to the spatial weight.
                ASSERT_NEAR(got, expected, relative * expected + 2e-7 * spatial)
                    << edgewise::to_string(kernel) << " " << edgewise::to_string(mode) << " sigma_s " << sigma_s
                    << " sigma_r " << sigma_r << " dx " << dx << " dy " << dy << " d " << difference;
              }
        }
}

}  // namespace
