// The non-local-means bilateral filter on the CPU backend against the
// double reference of its formula (tests/reference/nlm_reference.h), its
// two reductions to the bilateral filter, band and thread invariance, and
// its parameters' validation.
#include <gtest/gtest.h>

#include <cmath>

#include "nlm.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

constexpr double kTolerance = 1e-4;

Difference against_reference(const NlmParameters& n, const FloatImage& image, const FloatImage& got) {
  return max_difference(run_reference(n, image), got);
}

TEST(NlmCpu, MatchesReferenceEveryModeKernelLayout) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3}, {1, 23, 4}, {29, 1, 1}, {13, 7, 2}, {31, 17, 3}, {19, 23, 4}};
  int index = 0;
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int channels = 1; channels <= 4; ++channels) {
        ImageShape shape = sizes[size_t(index) % (sizeof sizes / sizeof sizes[0])];
        shape.channels = channels;
        const NlmParameters n = nlm_sweep_case(mode, kernel, index, 1 + index % 4, index % 6);
        ++index;
        SCOPED_TRACE(describe(n, shape));
        const FloatImage image = random_image(rng, shape);
        const Difference d = against_reference(n, image, run_cpu(nlm_spec(n), image));
        EXPECT_LE(d.max_abs, kTolerance) << d.describe();
      }
}

// Larger windows and patches on a photo-sized crop with noise, opaque and
// with transparent holes (whose pixels are rescued from underflow).
TEST(NlmCpu, MatchesReferenceLargerWindows) {
  EW_SEEDED_RNG(rng);
  for (Alpha alpha : {Alpha::opaque, Alpha::with_zeros})
    for (int f : {2, 5}) {
      NlmParameters n;
      n.search_radius = 6;
      n.patch_radius = f;
      n.h = 10.0f;
      n.sigma_n = 8.0f;
      const FloatImage image = random_image(rng, {41, 37, 4}, {true, alpha});
      SCOPED_TRACE(describe(n, image.shape()));
      const Difference d = against_reference(n, image, run_cpu(nlm_spec(n), image));
      EXPECT_LE(d.max_abs, kTolerance) << d.describe();
    }
}

// With the patch term off it is the bilateral filter with radius S.
TEST(NlmCpu, PatchTermOffIsTheBilateralFilter) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels) {
      NlmParameters n;
      n.mode = mode;
      n.kernel = kernel;
      n.search_radius = 4;
      n.patch_radius = 2;
      n.h = 0.0f;
      n.sigma_s = 2.5f;
      n.sigma_r = mode == ColorMode::lab ? 12.0f : 30.0f;
      const FloatImage image = random_image(rng, {27, 19, 4});
      SCOPED_TRACE(describe(n, image.shape()));
      const FloatImage bilateral = run_cpu(make_spec(mode, kernel, n.sigma_s, n.sigma_r, n.search_radius), image);
      const Difference d = max_difference(bilateral, run_cpu(nlm_spec(n), image));
      EXPECT_LE(d.max_abs, kTolerance) << d.describe();
    }
}

// f = 0, sigma-n = 0: the patch term is exp(-delta^2 / (C h^2)), a second
// Gaussian range term on the centre pixels, so with the Gaussian kernel the
// filter is the bilateral one with 1 / sigma^2 = 1 / sigma-r^2 + 2 / (C h^2).
TEST(NlmCpu, ZeroPatchRadiusAddsARangeTerm) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : {ColorMode::rgb, ColorMode::lab}) {
    NlmParameters n;
    n.mode = mode;
    n.search_radius = 3;
    n.patch_radius = 0;
    n.h = 25.0f;
    n.sigma_n = 0.0f;
    n.sigma_s = 2.0f;
    n.sigma_r = 30.0f;
    const double channels = 3.0;
    const double sigma = 1.0 / std::sqrt(1.0 / (double(n.sigma_r) * n.sigma_r) + 2.0 / (channels * n.h * n.h));
    const FloatImage image = random_image(rng, {23, 29, 3});
    SCOPED_TRACE(describe(n, image.shape()) + ", bilateral sigma-r " + std::to_string(sigma));
    const FloatImage bilateral =
        run_cpu(make_spec(mode, RangeKernel::gaussian, n.sigma_s, float(sigma), n.search_radius), image);
    const Difference d = max_difference(bilateral, run_cpu(nlm_spec(n), image));
    EXPECT_LE(d.max_abs, kTolerance) << d.describe();
  }
}

TEST(NlmCpu, BandHeightAndThreadsDoNotChangeOutput) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes) {
    NlmParameters n;
    n.mode = mode;
    n.search_radius = 5;
    n.patch_radius = 2;
    const FloatImage image = random_image(rng, {150, 61, 4});
    SCOPED_TRACE(describe(n, image.shape()));
    const FilterSpec spec = nlm_spec(n);
    RunOptions whole;
    whole.band_rows = image.shape().height;
    whole.backend_options.threads = 1;
    const FloatImage expected = run_cpu(spec, image, whole);
    for (int band_rows : {1, 3, 17}) {
      RunOptions options;
      options.band_rows = band_rows;
      options.backend_options.threads = 2;
      EXPECT_TRUE(bit_identical(expected, run_cpu(spec, image, options))) << "band_rows " << band_rows;
    }
  }
}

TEST(NlmSpec, ValidatorNamesTheParameter) {
  FilterSpec spec(nlm_filter());
  EXPECT_NE(set_param(spec, "search-radius", 0.0).find("invalid search-radius 0: allowed range is 1 to 32"),
            std::string::npos);
  EXPECT_NE(set_param(spec, "patch-radius", 6.0).find("invalid patch-radius 6"), std::string::npos);
  ASSERT_EQ(set_param(spec, "h", 0.05), "");
  EXPECT_EQ(validate(spec), "invalid h 0.05: allowed are 0 (patch term off) and 0.1 to 1000");
  ASSERT_EQ(set_param(spec, "h", 0.0), "");
  EXPECT_EQ(validate(spec), "");
}

TEST(NlmSpec, ReachIsSearchPlusPatchRadius) {
  NlmParameters n;
  n.search_radius = 7;
  n.patch_radius = 3;
  EXPECT_EQ(filter_reach(nlm_spec(n)), 10);
}

}  // namespace

namespace {

// The engine's two paths (whole buffers in memory, as the CLI and the
// plug-in use; rows streamed from a source) give the same result.
TEST(NlmCpu, BuffersAgreeWithStreamedRows) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes) {
    NlmParameters n;
    n.mode = mode;
    n.search_radius = 4;
    n.patch_radius = 1;
    const FloatImage image = random_image(rng, {257, 301, 4});
    SCOPED_TRACE(describe(n, image.shape()));
    const FloatImage streamed = run_cpu(nlm_spec(n), image);
    const FloatImage buffered = run_cpu_buffers(nlm_spec(n), image);
    EXPECT_TRUE(bit_identical(streamed, buffered)) << max_difference(streamed, buffered).describe();
  }
}

}  // namespace

namespace {

// h and sigma-n at auto follow the estimate's noise level function per
// pixel (the noise profile), as the reference computes it, on awkward
// sizes, every patch radius, grey and both colour modes that take it.
TEST(NlmCpu, NoiseProfileMatchesReference) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3}, {23, 1, 4}, {1, 19, 1}, {37, 29, 3}, {31, 17, 2}, {19, 23, 4}};
  int index = 0;
  for (ColorMode mode : {ColorMode::rgb, ColorMode::per_channel})
    for (const ImageShape& shape : sizes) {
      FilterSpec spec(nlm_filter());
      ASSERT_EQ(set_param(spec, "mode", std::string(mode == ColorMode::rgb ? "rgb" : "per-channel")), "");
      ASSERT_EQ(set_param(spec, "search-radius", double(1 + index % 4)), "");
      ASSERT_EQ(set_param(spec, "patch-radius", double(index % 6)), "");
      ++index;
      const edgewise::NoiseEstimate noise = signal_dependent_noise(rng, shape.channels >= 3 ? 3 : 1);
      const FloatImage image = random_image(rng, shape);
      RunOptions options;
      options.noise = &noise;
      const FloatImage got = run_cpu(spec, image, options);
      const edgewise_reference::NlmSettings settings = reference_settings(spec, noise);
      ASSERT_FALSE(settings.noise_function.empty());
      SCOPED_TRACE(describe(nlm_parameters(resolve_noise(spec, noise)), shape) + ", noise profile");
      const Difference d = max_difference(edgewise_reference::nlm_reference(to_reference(image), settings), got);
      EXPECT_LE(d.max_abs, kTolerance) << d.describe();
    }
}

// The automatic values where the profile does not apply (one of h and
// sigma-n set, lab mode, grey, a channel not measured) against the
// reference resolving them by the documented rule (kNlmAutoRule).
TEST(NlmCpu, AutomaticValuesMatchTheDocumentedRule) {
  EW_SEEDED_RNG(rng);
  struct Case {
    const char* mode;
    std::vector<std::pair<const char*, double>> values;
    int channels;
    bool first_channel_unmeasured;
  };
  const Case cases[] = {{"rgb", {{"h", 7.5}}, 3, false},
                        {"per-channel", {{"sigma-n", 6.0}}, 4, false},
                        {"lab", {}, 3, false},
                        {"rgb", {}, 1, false},
                        {"rgb", {}, 3, true},
                        {"lab", {{"sigma-r", 12.0}}, 4, false}};
  for (const Case& c : cases) {
    FilterSpec spec(nlm_filter());
    ASSERT_EQ(set_param(spec, "mode", std::string(c.mode)), "");
    ASSERT_EQ(set_param(spec, "search-radius", 3.0), "");
    for (const auto& [flag, value] : c.values) ASSERT_EQ(set_param(spec, flag, value), "");
    edgewise::NoiseEstimate noise = signal_dependent_noise(rng, c.channels >= 3 ? 3 : 1);
    if (c.first_channel_unmeasured) noise.channels[0].valid = false;
    const FloatImage image = random_image(rng, {29, 23, c.channels});
    RunOptions options;
    options.noise = &noise;
    const edgewise_reference::NlmSettings settings = reference_settings(spec, noise);
    SCOPED_TRACE(std::string(c.mode) + " h " + std::to_string(settings.h) + " sigma-n " +
                 std::to_string(settings.sigma_n) + " profile " + std::to_string(!settings.noise_function.empty()));
    const Difference d =
        max_difference(edgewise_reference::nlm_reference(to_reference(image), settings), run_cpu(spec, image, options));
    EXPECT_LE(d.max_abs, kTolerance) << d.describe();
  }
}

// The profile needs both h and sigma-n at auto and a mode other than lab;
// otherwise, and for a flat noise level function, the run is the one at the
// resolved values to the last bit: explicit values keep their meaning.
TEST(NlmCpu, NoiseProfileOnlyWhereItApplies) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {41, 23, 3});
  const edgewise::NoiseEstimate noise = signal_dependent_noise(rng, 3);
  edgewise::NoiseEstimate flat = noise;
  for (edgewise::ChannelNoise& channel : flat.channels) {
    channel.sigma = 9.0;
    for (edgewise::NoiseLevelBin& bin : channel.bins) bin.sigma = 9.0;
  }
  struct Case {
    const char* what;
    std::vector<std::pair<const char*, double>> values;
    const char* mode;
    const edgewise::NoiseEstimate* noise;
  };
  const Case cases[] = {{"h explicit", {{"h", 7.5}}, "rgb", &noise},
                        {"sigma-n explicit", {{"sigma-n", 6.0}}, "per-channel", &noise},
                        {"lab", {}, "lab", &noise},
                        {"flat noise level function", {}, "rgb", &flat}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    FilterSpec spec(nlm_filter());
    ASSERT_EQ(set_param(spec, "mode", std::string(c.mode)), "");
    for (const auto& [flag, value] : c.values) ASSERT_EQ(set_param(spec, flag, value), "");
    RunOptions options;
    options.noise = c.noise;
    const FloatImage automatic = run_cpu(spec, image, options);
    EXPECT_TRUE(bit_identical(automatic, run_cpu(resolve_noise(spec, *c.noise), image)));
  }
  // And where it applies, it changes the result.
  RunOptions options;
  options.noise = &noise;
  const FilterSpec spec(nlm_filter());
  EXPECT_FALSE(bit_identical(run_cpu(spec, image, options), run_cpu(resolve_noise(spec, noise), image)));
}

TEST(NlmCpu, NoiseProfileBandHeightAndThreadsDoNotChangeOutput) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {131, 47, 4});
  const edgewise::NoiseEstimate noise = signal_dependent_noise(rng, 3);
  for (ColorMode mode : {ColorMode::rgb, ColorMode::per_channel}) {
    FilterSpec spec(nlm_filter());
    ASSERT_EQ(set_param(spec, "mode", std::string(mode == ColorMode::rgb ? "rgb" : "per-channel")), "");
    ASSERT_EQ(set_param(spec, "search-radius", 4.0), "");
    ASSERT_EQ(set_param(spec, "patch-radius", 2.0), "");
    RunOptions whole;
    whole.noise = &noise;
    whole.band_rows = image.shape().height;
    whole.backend_options.threads = 1;
    const FloatImage expected = run_cpu(spec, image, whole);
    for (int band_rows : {1, 3, 17}) {
      RunOptions options;
      options.noise = &noise;
      options.band_rows = band_rows;
      options.backend_options.threads = 2;
      EXPECT_TRUE(bit_identical(expected, run_cpu(spec, image, options))) << "band_rows " << band_rows;
    }
  }
}

}  // namespace
