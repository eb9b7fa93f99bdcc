// The linear working space (--working-space linear): the CPU backend against
// the double reference computed in linear light, for every mode, kernel and
// channel layout, plain and adaptive; the reference's own linear light
// against decoding by hand; and lab mode, which the working space must not
// change.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/lab_reference.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

constexpr double kTolerance = 1e-4;

FilterSpec in_space(FilterSpec spec, WorkingSpace space) {
  EXPECT_EQ(set_param(spec, "working-space", double(static_cast<int>(space))), "");
  return spec;
}

TEST(WorkingSpace, PerceptualIsTheDefault) {
  EXPECT_EQ(bilateral_parameters(FilterSpec()).working_space, WorkingSpace::perceptual);
  EXPECT_STREQ(to_string(WorkingSpace::linear), "linear");
  FilterSpec spec;
  EXPECT_EQ(set_param(spec, "working-space", std::string("linear")), "");
  EXPECT_EQ(bilateral_parameters(spec).working_space, WorkingSpace::linear);
  EXPECT_EQ(set_param(spec, "working-space", std::string("scene")),
            "invalid working-space 'scene': expected "
            "perceptual or linear");
}

TEST(WorkingSpace, LinearMatchesReferenceEveryModeKernelLayout) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 0}, {1, 23, 0}, {29, 1, 0}, {13, 7, 0}, {31, 17, 0}, {37, 29, 0}};
  int index = 0;
  for (bool adaptive : {false, true})
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels)
        for (int channels = 1; channels <= 4; ++channels) {
          ImageShape shape = sizes[size_t(index++) % (sizeof sizes / sizeof sizes[0])];
          shape.channels = channels;
          FilterSpec spec =
              make_spec(mode, kernel, 1.5f, mode == ColorMode::lab ? 12.0f : 30.0f, 0, index % 3 == 0 ? 2 : 1);
          if (adaptive) spec = adaptive_of(spec);
          spec = in_space(spec, WorkingSpace::linear);
          SCOPED_TRACE(describe(spec, shape));
          const FloatImage image = random_image(rng, shape);
          const Comparison result = compare_with_reference(spec, image, run_cpu(spec, image), kTolerance);
          EXPECT_LE(result.worst.max_abs, kTolerance) << result.describe();
        }
}

// The test above can fail: outside lab mode the two working spaces give
// results far apart, and the reference tells them apart.
TEST(WorkingSpace, LinearDiffersFromPerceptual) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {41, 37, 3}, {true, Alpha::opaque});
  for (ColorMode mode : {ColorMode::per_channel, ColorMode::rgb}) {
    const FilterSpec perceptual = make_spec(mode, RangeKernel::gaussian, 2.0f, 25.0f);
    const FilterSpec linear = in_space(perceptual, WorkingSpace::linear);
    const FloatImage linear_result = run_cpu(linear, image);
    EXPECT_GT(max_difference(linear_result, run_cpu(perceptual, image)).max_abs, 0.01);
    EXPECT_GT(compare_with_reference(perceptual, image, linear_result, kTolerance).worst.max_abs, 0.01);
  }
}

// Lab starts from linear light itself: the working space changes nothing.
TEST(WorkingSpace, LabModeIsUnaffected) {
  EW_SEEDED_RNG(rng);
  for (int channels : {3, 4}) {
    const FloatImage image = random_image(rng, {23, 19, channels});
    const FilterSpec perceptual = make_spec(ColorMode::lab, RangeKernel::tukey, 1.5f, 10.0f, 0, 2);
    EXPECT_TRUE(bit_identical(run_cpu(perceptual, image), run_cpu(in_space(perceptual, WorkingSpace::linear), image)));
  }
}

// The reference in linear light is the perceptual reference run on decoded
// samples, its result encoded again, pass by pass: checked by decoding by
// hand, so the reference's own linear path is not its only witness.
TEST(WorkingSpaceReference, EqualsFilteringDecodedSamples) {
  EW_SEEDED_RNG(rng);
  for (int channels = 1; channels <= 4; ++channels) {
    const FloatImage image = random_image(rng, {17, 13, channels});
    edgewise_reference::BilateralSettings settings;
    settings.mode = edgewise_reference::Mode::rgb;
    settings.sigma_s = 1.5;
    settings.sigma_r = 12.0;
    settings.iterations = 2;
    ReferenceImage by_hand = to_reference(image);
    const int colours = channels >= 3 ? 3 : 1;
    edgewise_reference::BilateralSettings one_pass = settings;
    one_pass.iterations = 1;
    for (int pass = 0; pass < settings.iterations; ++pass) {
      for (size_t i = 0; i < by_hand.samples.size(); ++i)
        if (int(i % size_t(channels)) < colours)
          by_hand.samples[i] = edgewise_reference::srgb_to_linear(by_hand.samples[i]);
      by_hand = edgewise_reference::bilateral_reference(by_hand, one_pass);
      for (size_t i = 0; i < by_hand.samples.size(); ++i)
        if (int(i % size_t(channels)) < colours)
          by_hand.samples[i] = edgewise_reference::linear_to_srgb(by_hand.samples[i]);
    }
    settings.linear = true;
    const ReferenceImage reference = edgewise_reference::bilateral_reference(to_reference(image), settings);
    double worst = 0;
    for (size_t i = 0; i < reference.samples.size(); ++i)
      worst = std::max(worst, std::fabs(reference.samples[i] - by_hand.samples[i]));
    EXPECT_LE(worst, 1e-12) << channels << " channels";
  }
}

}  // namespace
