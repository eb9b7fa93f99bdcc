// The multiresolution bilateral filter: the noise gains against noise
// measured on the reference pyramid, one level is the bilateral filter to
// the last bit, sigma-r -> 0 and strength 0 give the input back (perfect
// reconstruction), the CPU backend against the double reference
// (tests/reference/pyramid_reference.h) on random images of awkward sizes
// in every mode and kernel, band and thread invariance to the bit, and lab
// mode's luminance and colour strengths each keeping the other's channels.
#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
