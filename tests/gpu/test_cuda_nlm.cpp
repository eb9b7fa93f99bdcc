// The non-local-means bilateral filter on the CUDA backend against the
// double reference and the CPU backend. Where no usable GPU exists every
// test reports itself skipped with the reason (tests/gpu/run.sh runs them
// on the GPU machine).
#include <gtest/gtest.h>

#include <string>

#include "nlm.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

void every_variant(int max_search, bool short_run) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3}, {1, 23, 4}, {29, 1, 1}, {13, 7, 2}, {37, 19, 3}, {45, 33, 4}};
  int index = 0;
  // Every patch radius: the kernel is compiled once per radius.
  for (int patch = 0; patch <= 5; ++patch)
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels)
        for (int channels = 1; channels <= 4; ++channels) {
          ImageShape shape = sizes[size_t(index) % (sizeof sizes / sizeof sizes[0])];
          shape.channels = channels;
          const NlmParameters n = nlm_sweep_case(mode, kernel, index, 1 + index % max_search, patch);
          ++index;
          SCOPED_TRACE(describe(n, shape));
          const FloatImage image = random_image(rng, shape);
          const FloatImage got = run_gpu(nlm_spec(n), image);
          if (short_run) continue;  // compute-sanitizer: every variant runs, the checks are the other tests'
          const Difference d = max_difference(run_reference(n, image), got);
          EXPECT_LE(d.max_abs, 1e-4) << d.describe();
          const Difference cpu = max_difference(run_cpu(nlm_spec(n), image), got);
          EXPECT_LE(cpu.max_abs, 1e-4) << cpu.describe();
        }
}

TEST(CudaNlm, MatchesReferenceEveryModeKernelLayout) {
  REQUIRE_GPU();
  every_variant(4, false);
}

// The largest search and patch radii (the biggest shared-memory tile).
TEST(CudaNlm, LargestRadiiMatchReference) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes) {
    NlmParameters n;
    n.mode = mode;
    n.search_radius = 32;
    n.patch_radius = 5;
    n.h = mode == ColorMode::lab ? 4.0f : 10.0f;
    const FloatImage image = random_image(rng, {41, 33, 4}, {true, Alpha::with_zeros});
    SCOPED_TRACE(describe(n, image.shape()));
    const Difference d = max_difference(run_reference(n, image), run_gpu(nlm_spec(n), image));
    EXPECT_LE(d.max_abs, 1e-4) << d.describe();
  }
}

TEST(CudaNlm, AgreesWithCpuOnAPhotoSizedImage) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {1031, 777, 4}, {false, Alpha::positive});
  for (ColorMode mode : kModes) {
    NlmParameters n;
    n.mode = mode;
    n.search_radius = 7;
    n.patch_radius = 2;
    n.h = mode == ColorMode::lab ? 4.0f : 10.0f;
    SCOPED_TRACE(describe(n, image.shape()));
    const Difference d = max_difference(run_cpu(nlm_spec(n), image), run_gpu(nlm_spec(n), image));
    EXPECT_LE(d.max_abs, 1e-4) << d.describe();
  }
}

TEST(CudaNlm, BandSizeDoesNotChangeOutput) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {509, 1031, 4});
  for (ColorMode mode : kModes) {
    NlmParameters n;
    n.mode = mode;
    n.search_radius = 6;
    n.patch_radius = 2;
    SCOPED_TRACE(describe(n, image.shape()));
    const FloatImage whole = run_gpu(nlm_spec(n), image);
    for (size_t budget : {size_t(6) << 20, size_t(24) << 20}) {
      const FloatImage banded = run_gpu(nlm_spec(n), image, budget);
      EXPECT_TRUE(bit_identical(whole, banded))
          << "budget " << (budget >> 20) << " MiB: " << max_difference(whole, banded).describe();
    }
  }
}

// h and sigma-n at auto with a noise level function (the noise profile):
// the reference and the CPU, every patch radius (each its own kernel),
// grey and colour, both modes that take it, awkward sizes; then band
// invariance on a larger image.
TEST(CudaNlm, NoiseProfileMatchesReferenceAndCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3}, {23, 1, 4}, {1, 19, 1}, {37, 29, 3}, {45, 33, 2}, {53, 41, 4}};
  int index = 0;
  for (int patch = 0; patch <= 5; ++patch)
    for (ColorMode mode : {ColorMode::rgb, ColorMode::per_channel}) {
      ImageShape shape = sizes[size_t(index) % (sizeof sizes / sizeof sizes[0])];
      ++index;
      FilterSpec spec(nlm_filter());
      ASSERT_EQ(set_param(spec, "mode", std::string(mode == ColorMode::rgb ? "rgb" : "per-channel")), "");
      ASSERT_EQ(set_param(spec, "search-radius", double(1 + index % 4)), "");
      ASSERT_EQ(set_param(spec, "patch-radius", double(patch)), "");
      const edgewise::NoiseEstimate noise = signal_dependent_noise(rng, shape.channels >= 3 ? 3 : 1);
      const FloatImage image = random_image(rng, shape);
      SCOPED_TRACE(describe(nlm_parameters(resolve_noise(spec, noise)), shape) + ", noise profile");
      const FloatImage got = run_gpu(spec, image, size_t(1) << 30, &noise);
      const Difference d =
          max_difference(edgewise_reference::nlm_reference(to_reference(image), reference_settings(spec, noise)), got);
      EXPECT_LE(d.max_abs, 1e-4) << d.describe();
      RunOptions options;
      options.noise = &noise;
      const Difference cpu = max_difference(run_cpu(spec, image, options), got);
      EXPECT_LE(cpu.max_abs, 1e-4) << cpu.describe();
    }
  const FloatImage image = random_image(rng, {509, 613, 3});
  const edgewise::NoiseEstimate noise = signal_dependent_noise(rng, 3);
  const FilterSpec spec(nlm_filter());
  const FloatImage whole = run_gpu(spec, image, size_t(1) << 30, &noise);
  const FloatImage banded = run_gpu(spec, image, size_t(6) << 20, &noise);
  EXPECT_TRUE(bit_identical(whole, banded)) << max_difference(whole, banded).describe();
}

// For compute-sanitizer (tests/gpu/run.sh): every variant once, small.
TEST(CudaNlmShort, EveryVariantOnce) {
  REQUIRE_GPU();
  every_variant(3, true);
}

}  // namespace
