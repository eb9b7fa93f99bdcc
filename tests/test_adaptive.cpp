// The variance-adaptive bilateral filter on the CPU backend against the
// double reference of the same formula (tests/reference), and its
// parameters' validation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filter_registry.h"
#include "settings.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

constexpr double kTolerance = 1e-4;

FilterSpec adaptive(ColorMode mode, RangeKernel kernel, float sigma_s, float sigma_r, int radius,
                    const AdaptiveParameters& parameters = {}) {
  return adaptive_of(make_spec(mode, kernel, sigma_s, sigma_r, radius), parameters);
}

TEST(AdaptiveCpu, MatchesReferenceEveryModeKernelLayout) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3}, {1, 23, 4}, {29, 1, 1}, {13, 7, 2}, {31, 17, 3}, {37, 29, 4}};
  int index = 0;
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int channels = 1; channels <= 4; ++channels) {
        ImageShape shape = sizes[size_t(index++) % (sizeof sizes / sizeof sizes[0])];
        shape.channels = channels;
        AdaptiveParameters parameters;
        parameters.adapt_k = 0.8f;
        parameters.adapt_eps = 0.02f;
        const FilterSpec spec = adaptive(mode, kernel, 1.5f, mode == ColorMode::lab ? 12.0f : 30.0f, 0, parameters);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage image = random_image(rng, shape);
        const Comparison result = compare_with_reference(spec, image, run_cpu(spec, image), kTolerance);
        EXPECT_LE(result.worst.max_abs, kTolerance) << result.describe();
      }
}

TEST(AdaptiveCpu, DefaultsAndClampsMatchReference) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {47, 41, 3}, {true, Alpha::opaque});
  for (float k : {0.5f, 3.0f})
    for (float max : {1.0f, 0.05f}) {
      AdaptiveParameters parameters;
      parameters.adapt_k = k;
      parameters.adapt_max = max;
      const FilterSpec spec = adaptive(ColorMode::rgb, RangeKernel::gaussian, 2.0f, 25.0f, 0, parameters);
      SCOPED_TRACE(describe(spec, image.shape()) + " k=" + std::to_string(k) + " max=" + std::to_string(max));
      const Comparison result = compare_with_reference(spec, image, run_cpu(spec, image), kTolerance);
      EXPECT_LE(result.worst.max_abs, kTolerance) << result.describe();
    }
}

// With k = 0 every pixel's sigma_r' is adapt-min, so the filter is the plain
// one with sigma_r = adapt-min in the mode's units (x255 code values, x100
// Delta E for lab).
TEST(AdaptiveCpu, ZeroKEqualsPlainFilterAtMinimum) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels) {
      const FloatImage image = random_image(rng, {53, 43, 4});
      AdaptiveParameters parameters;
      parameters.adapt_k = 0.0f;
      parameters.adapt_min = 0.08f;
      const float unit = mode == ColorMode::lab ? 100.0f : 255.0f;
      const FilterSpec plain = make_spec(mode, kernel, 2.0f, parameters.adapt_min * unit, 0);
      ASSERT_EQ(bilateral_of(plain).sigma_r / unit, parameters.adapt_min);  // the same sigma in both units
      const FilterSpec spec = adaptive_of(plain, parameters);
      SCOPED_TRACE(describe(spec, image.shape()));
      // Both take their range coefficient from range_coefficient_for, so the
      // adaptive ratio is exactly 1. The same function, but not the same
      // arithmetic: the plain filter fuses each squared difference into the
      // kernel's own operations (the Gaussian's exponent chain, Tukey's
      // 1 - q) as FMAs, the adaptive one forms q = ratio * d^2 first (two
      // operations a tap fewer on the GPU), so weights differ in their last
      // bits; R'G'B' from Lab near black amplifies that (1.55e-5 measured on
      // the H100). Held to the float paths' 1e-4.
      const Difference d = max_difference(run_cpu(plain, image), run_cpu(spec, image));
      EXPECT_LE(d.max_abs, 1e-4) << d.describe();
    }
}

// The first walk's weights underflow float around a transparent centre
// (tests/test_bilateral.cpp's UnderflowingWindowsMatchReference): its
// variance, hence sigma_r', comes from the exact weights, not from float
// weights flushed or clamped to one value. At sigma_r' near the grey
// neighbour's distance the second walk's weights are ordinary numbers, so a
// wrong variance shows in the output.
TEST(AdaptiveCpu, UnderflowingFirstWalkMatchesReference) {
  const AdaptiveParameters parameters = variance_only_adaptive();
  for (float far : {0.25f, 0.5f})
    for (float sigma_r : {2.0f, 0.5f})
      for (RangeKernel kernel : {RangeKernel::gaussian, RangeKernel::lorentz})
        for (ColorMode mode : kModes) {
          const FloatImage input = transparent_centre_image(far);
          const FilterSpec spec =
              adaptive(mode, kernel, 1.0f, mode == ColorMode::lab ? sigma_r / 2 : sigma_r, 1, parameters);
          SCOPED_TRACE(describe(spec, input.shape()));
          const Comparison result = compare_with_reference(spec, input, run_cpu(spec, input), kTolerance);
          EXPECT_LE(result.worst.max_abs, kTolerance) << result.describe();
        }
}

TEST(AdaptiveSpec, ValidatorNamesTheParameter) {
  FilterSpec spec(adaptive_filter());
  EXPECT_EQ(validate(spec), "");
  EXPECT_NE(set_param(spec, "adapt-k", -1.0).find("invalid adapt-k -1"), std::string::npos);
  EXPECT_NE(set_param(spec, "adapt-eps", "x").find("invalid adapt-eps 'x'"), std::string::npos);
  ASSERT_EQ(set_param(spec, "adapt-min", 0.5), "");
  ASSERT_EQ(set_param(spec, "adapt-max", 0.1), "");
  EXPECT_NE(validate(spec).find("adapt-min 0.5: must not exceed adapt-max 0.1"), std::string::npos) << validate(spec);
  Settings settings;
  EXPECT_EQ(apply_argument(settings, "filter", "adaptive"), "");
  EXPECT_EQ(&settings.spec.filter(), &adaptive_filter());
  // The refusal lists every registered filter, in the registry's order:
  // "expected bilateral, adaptive, ... or learned".
  const std::vector<const FilterInfo*>& filters = builtin_registry().filters();
  ASSERT_GE(filters.size(), 2u);
  std::string expected = "expected ";
  for (size_t i = 0; i < filters.size(); ++i)
    expected += std::string(i == 0 ? "" : i + 1 < filters.size() ? ", " : " or ") + filters[i]->name;
  const std::string refusal = apply_argument(settings, "filter", "median");
  EXPECT_NE(refusal.find("invalid filter 'median': " + expected), std::string::npos) << refusal;
}

// Beyond radius 32 the GPU does not run the adaptive filter: auto says so
// and uses the CPU; cuda refuses. (Where no GPU exists both paths are the
// CPU's and the no-GPU message.)
TEST(AdaptiveBackends, WideRadiusRunsOnCpu) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {33, 21, 3});
  const FilterSpec spec = adaptive(ColorMode::rgb, RangeKernel::gaussian, 20.0f, 30.0f, 40);
  RunOptions options;
  FloatImage source = image, output(image.shape());
  const RunReport report = run_filter(spec, image.shape(), source, output, options);
  EXPECT_NE(report.backend.find("cpu"), std::string::npos);
  EXPECT_TRUE(bit_identical(output, run_cpu(spec, image)));
  options.backend = "cuda";
  EXPECT_THROW(run_filter(spec, image.shape(), source, output, options), BackendError);
}

}  // namespace
