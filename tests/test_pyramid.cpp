// The multiresolution bilateral filter: the noise gains against noise
// measured on the reference pyramid, one level is the bilateral filter to
// the last bit, sigma-r -> 0 and strength 0 give the input back (perfect
// reconstruction), the CPU backend against the double reference
// (tests/reference/pyramid_reference.h) on random images of awkward sizes
// in every mode and kernel, band and thread invariance to the bit, and lab
// mode's luminance and colour strengths each keeping the other's channels.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "lab_pixel.h"
#include "pyramid.h"
#include "reference/pyramid_reference.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

FloatImage run_whole(const FilterSpec& spec, const FloatImage& image, int threads = 0) {
  RunOptions options;
  options.band_rows = image.shape().height;
  options.backend_options.threads = threads;
  return run_cpu(spec, image, options);
}

TEST(PyramidDesign, NoiseGainsMatchNoiseOnTheReferencePyramid) {
  EW_SEEDED_RNG(rng);
  const int size = 384, levels = 5;
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> image(size_t(size) * size_t(size));
  for (double& v : image) v = noise(rng);
  const std::vector<double> gains = pyramid_noise_gains(levels);
  ASSERT_EQ(gains.size(), size_t(levels));
  for (int k = 0; k < levels; ++k) {
    int w = 0, h = 0;
    const std::vector<double> level = edgewise_reference::laplacian_level_reference(image, size, size, levels, k, w, h);
    // Away from the borders, where clamping changes the statistics.
    double sum2 = 0.0;
    int count = 0;
    for (int y = 4; y < h - 4; ++y)
      for (int x = 4; x < w - 4; ++x) {
        sum2 += level[size_t(y) * size_t(w) + size_t(x)] * level[size_t(y) * size_t(w) + size_t(x)];
        ++count;
      }
    const double measured = std::sqrt(sum2 / count);
    // Samples are correlated on the coarse levels: few independent ones.
    EXPECT_NEAR(measured / gains[size_t(k)], 1.0, k < 3 ? 0.05 : 0.25) << "level " << k << " gain " << gains[size_t(k)];
  }
  // The Gaussian levels' gains: G_k is the residual of a (k+1)-level pyramid.
  const std::vector<double> gaussian_gains = pyramid_gaussian_gains(levels);
  for (int k = 0; k < levels; ++k) {
    int w = 0, h = 0;
    const std::vector<double> level = edgewise_reference::laplacian_level_reference(image, size, size, k + 1, k, w, h);
    double sum2 = 0.0;
    int count = 0;
    for (int y = 4; y < h - 4; ++y)
      for (int x = 4; x < w - 4; ++x) {
        sum2 += level[size_t(y) * size_t(w) + size_t(x)] * level[size_t(y) * size_t(w) + size_t(x)];
        ++count;
      }
    EXPECT_NEAR(std::sqrt(sum2 / count) / gaussian_gains[size_t(k)], 1.0, k < 3 ? 0.05 : 0.25) << "G_" << k;
  }
  // One level: the image itself.
  EXPECT_DOUBLE_EQ(pyramid_noise_gains(1)[0], 1.0);
  EXPECT_DOUBLE_EQ(gaussian_gains[0], 1.0);
}

// Core's gains (computed from its taps) against the reference's, found by
// pushing impulses through the reference pyramid's own REDUCE and EXPAND.
TEST(PyramidDesign, NoiseGainsAreTheReferencePyramids) {
  for (int levels = 1; levels <= kPyramidMaxLevels; ++levels)
    for (bool gaussian : {true, false}) {
      const std::vector<double> core = gaussian ? pyramid_gaussian_gains(levels) : pyramid_noise_gains(levels);
      const std::vector<double> reference = edgewise_reference::pyramid_gains_reference(levels, gaussian);
      ASSERT_EQ(core.size(), reference.size());
      for (int k = 0; k < levels; ++k)
        EXPECT_NEAR(core[size_t(k)], reference[size_t(k)], 1e-12 * reference[size_t(k)])
            << levels << " levels, " << (gaussian ? "G_" : "L_") << k;
    }
}

TEST(PyramidDesign, AutomaticLevelsKeepTheCoarsestAtLeast32Pixels) {
  EXPECT_EQ(pyramid_levels(0, 6000, 4000), 6);
  EXPECT_EQ(pyramid_levels(0, 352, 352), 4);  // 352, 176, 88, 44
  EXPECT_EQ(pyramid_levels(0, 64, 1000), 2);
  EXPECT_EQ(pyramid_levels(0, 63, 1000), 2);  // 32 is the next size of 63 and 64
  EXPECT_EQ(pyramid_levels(0, 62, 1000), 1);
  EXPECT_EQ(pyramid_levels(0, 1, 1), 1);
  EXPECT_EQ(pyramid_levels(3, 1, 1), 3);
}

TEST(PyramidDesign, ReachCoversTheBandRows) {
  for (int levels = 1; levels <= kPyramidMaxLevels; ++levels)
    for (int radius : {1, 2, 5}) {
      const int reach = pyramid_reach(levels, radius);
      if (levels == 1) {
        EXPECT_EQ(reach, radius);
      }
      EXPECT_LE(reach, (2 << levels) * (radius + 3)) << levels << " " << radius;
    }
}

TEST(PyramidCpu, OneLevelIsTheBilateralFilter) {
  EW_SEEDED_RNG(rng);
  std::uniform_int_distribution<int> side(1, 60);
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int channels : {1, 3, 4}) {
        const ImageShape shape{side(rng), side(rng), channels};
        const FloatImage image = random_image(rng, shape);
        PyramidParameters p;
        p.mode = mode;
        p.kernel = kernel;
        p.levels = 1;
        p.sigma_s = 1.5f;
        p.sigma_r = 30.0f;
        const FloatImage got = run_cpu(pyramid_spec(p), image);
        const FloatImage expected = run_cpu(make_spec(mode, kernel, 1.5f, 30.0f), image);
        const Difference d = max_difference(expected, got);
        EXPECT_TRUE(bit_identical(expected, got)) << describe(p, shape) << ": " << d.describe();
      }
}

TEST(PyramidCpu, MatchesTheReferenceOnAwkwardSizes) {
  EW_SEEDED_RNG(rng);
  const int sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {2, 2}, {13, 7}, {37, 41}, {61, 29}, {97, 53}};
  int index = 0;
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (const auto& size : sizes) {
        ++index;
        const int channels = 1 + (index % 4);
        const ImageShape shape{size[0], size[1], channels};
        const FloatImage image = random_image(rng, shape);
        const PyramidParameters p = pyramid_sweep_case(mode, kernel, index, 1 + index % 4);
        const FloatImage got = run_cpu(pyramid_spec(p), image);
        const edgewise_reference::ReferenceImage expected =
            edgewise_reference::pyramid_reference(to_reference(image), reference_settings(p, shape));
        const Difference d = max_difference(expected, got);
        // Float against double through a pyramid of up to four levels, the
        // bilateral's fast exp, and Lab's round trip.
        EXPECT_LE(d.max_abs, mode == ColorMode::lab ? 2e-3 : 5e-4) << describe(p, shape) << ": " << d.describe();
      }
}

TEST(PyramidCpu, VanishingSigmaRAndZeroStrengthGiveTheInput) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int levels : {2, 4, 8}) {
        const ImageShape shape{71, 43, 4};
        const PyramidGuide guide = levels == 4 ? PyramidGuide::laplacian : PyramidGuide::gaussian;
        const FloatImage image = random_image(rng, shape, {false, Alpha::positive});
        PyramidParameters p;
        p.mode = mode;
        p.kernel = kernel;
        p.levels = levels;
        p.guide = guide;
        // The smallest sigma-r and a small strength: huber's weights fall
        // off as s / |x| only.
        p.sigma_r = 0.001f;
        p.strength = 0.001f;
        const FloatImage tiny = run_cpu(pyramid_spec(p), image);
        // Up to eight levels of float REDUCE, EXPAND and sums, and Lab's
        // round trip, each a few 1e-7.
        const double tolerance = mode == ColorMode::lab ? 3e-5 : 1e-5;
        EXPECT_LE(max_difference(image, tiny).max_abs, tolerance) << describe(p, shape);
        p.sigma_r = 50.0f;
        p.strength = 0.0f;
        const FloatImage none = run_cpu(pyramid_spec(p), image);
        EXPECT_LE(max_difference(image, none).max_abs, tolerance) << describe(p, shape);
      }
}

TEST(PyramidCpu, BandHeightAndThreadsDoNotChangeTheOutput) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (int levels : {2, 3, 5}) {
      const ImageShape shape{83, 311, 4};
      const PyramidGuide guide = levels == 3 ? PyramidGuide::laplacian : PyramidGuide::gaussian;
      const FloatImage image = random_image(rng, shape);
      PyramidParameters p;
      p.mode = mode;
      p.levels = levels;
      p.radius = 2;
      p.sigma_r = 25.0f;
      p.chroma_strength = 2.0f;
      p.guide = guide;
      const FilterSpec spec = pyramid_spec(p);
      const FloatImage whole = run_whole(spec, image);
      for (int band_rows : {1, 29, 100}) {
        RunOptions options;
        options.band_rows = band_rows;
        const FloatImage banded = run_cpu(spec, image, options);
        EXPECT_TRUE(bit_identical(whole, banded))
            << describe(p, shape) << " band_rows " << band_rows << ": " << max_difference(whole, banded).describe();
      }
      EXPECT_TRUE(bit_identical(whole, run_whole(spec, image, 1))) << describe(p, shape) << " one thread";
    }
}

// lab: luma-strength 0 keeps L*, chroma-strength 0 keeps a* and b*, and
// each moves its own channels.
TEST(PyramidCpu, LabStrengthsKeepTheOtherChannels) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{64, 48, 3};
  const FloatImage image = random_image(rng, shape, {false, Alpha::opaque});
  PyramidParameters p;
  p.mode = ColorMode::lab;
  p.levels = 3;
  p.sigma_r = 20.0f;
  for (int keep : {0, 1}) {  // 0: luminance kept, 1: colour kept
    p.luma_strength = keep == 0 ? 0.0f : 1.0f;
    p.chroma_strength = keep == 0 ? 2.0f : 0.0f;
    const FloatImage got = run_cpu(pyramid_spec(p), image);
    double kept = 0, moved = 0;
    for (int y = 0; y < shape.height; ++y)
      for (int x = 0; x < shape.width; ++x) {
        float a[3], b[3];
        lab_pixel(image, x, y, a);
        lab_pixel(got, x, y, b);
        for (int c = 0; c < 3; ++c) {
          const bool own = keep == 0 ? c == 0 : c > 0;
          (own ? kept : moved) = std::max(own ? kept : moved, double(std::fabs(a[c] - b[c])));
        }
      }
    EXPECT_LE(kept, 0.01) << describe(p, shape);
    EXPECT_GE(moved, 1.0) << describe(p, shape);
  }
}


// The automatic sigma-r follows the measured noise of every level: white
// noise gives the white-noise gains (the rule the filter had), correlated
// noise more on the coarse levels, and in lab mode the colour passes their
// own strength from the chroma channels.
std::unique_ptr<PyramidPlan> auto_plan(const FilterSpec& automatic, const NoiseEstimate& noise) {
  const ImageShape shape{256, 256, 3};
  PlanRequest request;
  request.noise = &noise;
  request.noise_auto_flags = noise_auto_flags(automatic);
  std::unique_ptr<Plan> plan = make_plan(resolve_noise(automatic, noise), shape, request);
  return std::unique_ptr<PyramidPlan>(static_cast<PyramidPlan*>(plan.release()));
}

// Range coefficients grow as 1 / sigma-r^2: the level's sigma-r over level 0's.
double relative_sigma(const PyramidPlan& plan, int level, int pass = 0) {
  return std::sqrt(plan.passes[0][size_t(pass)].bilateral.params.range_coefficient /
                   plan.passes[size_t(level)][size_t(pass)].bilateral.params.range_coefficient);
}

TEST(PyramidAuto, WhiteNoiseKeepsTheWhiteNoiseGains) {
  const FilterSpec automatic(pyramid_filter());
  ASSERT_TRUE(needs_noise(automatic));
  const NoiseEstimate white = white_noise_estimate(10.0, 3);
  const std::unique_ptr<PyramidPlan> plan = auto_plan(automatic, white);
  const std::unique_ptr<Plan> rule = make_plan(resolve_noise(automatic, white), {256, 256, 3});
  const auto& by_rule = static_cast<const PyramidPlan&>(*rule);
  ASSERT_EQ(plan->levels, by_rule.levels);
  for (int k = 0; k < plan->levels; ++k)
    EXPECT_NEAR(plan->passes[size_t(k)][0].bilateral.params.range_coefficient,
                by_rule.passes[size_t(k)][0].bilateral.params.range_coefficient,
                1e-5 * by_rule.passes[size_t(k)][0].bilateral.params.range_coefficient)
        << "level " << k;
}

TEST(PyramidAuto, CorrelatedNoiseIsFilteredMoreOnCoarseLevels) {
  const FilterSpec automatic(pyramid_filter());
  NoiseEstimate correlated = white_noise_estimate(10.0, 3);
  for (auto* set : {&correlated.channels, &correlated.opponent})
    for (ChannelNoise& channel : *set) channel.spectrum.shares = {0.0, 0.0, 1.0};  // blurred by 1.2 px
  const std::unique_ptr<PyramidPlan> white = auto_plan(automatic, white_noise_estimate(10.0, 3));
  const std::unique_ptr<PyramidPlan> blurred = auto_plan(automatic, correlated);
  ASSERT_GE(blurred->levels, 3);
  // Relative to level 0, every coarser level keeps more of the blurred noise.
  for (int k = 1; k < blurred->levels; ++k)
    EXPECT_GT(relative_sigma(*blurred, k), 1.5 * relative_sigma(*white, k)) << "level " << k;
  // Level 0 is the image itself: the rule's sigma-r for either.
  EXPECT_FLOAT_EQ(blurred->passes[0][0].bilateral.params.range_coefficient,
                  white->passes[0][0].bilateral.params.range_coefficient);
}

TEST(PyramidAuto, LabColourPassesFollowTheChromaNoise) {
  FilterSpec automatic(pyramid_filter());
  ASSERT_EQ(set_param(automatic, "mode", std::string("lab")), "");
  // L* and a*b* take their own sigma-r from the luma and chroma channels
  // (each with its own Delta E per code value, so white noise gives two
  // passes too): chroma noise three times white noise's makes the a*b* pass's
  // sigma-r three times as large relative to the L* pass's, on every level.
  NoiseEstimate colour = white_noise_estimate(6.0, 3);
  colour.opponent[1].sigma = colour.opponent[2].sigma = 18.0;
  const std::unique_ptr<PyramidPlan> plan = auto_plan(automatic, colour);
  const std::unique_ptr<PyramidPlan> white = auto_plan(automatic, white_noise_estimate(6.0, 3));
  ASSERT_EQ(plan->levels, white->levels);
  auto luma_over_chroma = [](const PyramidPlan& p, int k) {
    return std::sqrt(p.passes[size_t(k)][0].bilateral.params.range_coefficient /
                     p.passes[size_t(k)][1].bilateral.params.range_coefficient);
  };
  for (int k = 0; k < plan->levels; ++k) {
    ASSERT_EQ(plan->passes[size_t(k)].size(), 2u) << "luma and colour apart on level " << k;
    ASSERT_EQ(white->passes[size_t(k)].size(), 2u) << "level " << k;
    EXPECT_GT(luma_over_chroma(*white, k), 1.5) << "a*b* see more of white noise than L* on level " << k;
    EXPECT_NEAR(luma_over_chroma(*plan, k) / luma_over_chroma(*white, k), 3.0, 1e-3) << "level " << k;
    // The L* pass follows the luma channel alone: unchanged by the chroma.
    EXPECT_FLOAT_EQ(plan->passes[size_t(k)][0].bilateral.params.range_coefficient,
                    white->passes[size_t(k)][0].bilateral.params.range_coefficient);
  }
}

}  // namespace
