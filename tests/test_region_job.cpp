// A part of an image filtered alone (core/region.h, core/region_job.h: what
// the GEGL operation does with each tile GEGL asks for), on the CPU: for
// every filter of the registry, at its defaults and at drawn values, any
// part (one pixel, a row, a column, corners, anywhere, the whole) comes out
// as filtering the whole image gives it, and nothing outside it is written;
// tiles of any size assemble the whole image's result. Failures never
// throw: a GPU failing part-way reruns on the CPU, running out of host
// memory or a bad spec leaves the input unchanged in the part, with the
// reason. GPU cases: tests/gpu/test_cuda_region_job.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "nlbayes.h"
#include "region_support.h"
#include "test_support.h"

namespace edgewise_test {
namespace {

using edgewise::NoiseEstimate;
using edgewise::PixelRect;
using edgewise::RegionJob;
using edgewise::RegionOutcome;

// A part is the whole image's to the bit, but for the Fourier filter,
// whose recursive blur starts afresh at a part's first row and column:
// float rounding, at most 4e-6 measured over 300 drawn specs. A new filter
// is held to the bit until it says otherwise here.
double tolerance(const FilterSpec& spec) { return std::string(spec.filter().name) == "fourier" ? 2e-5 : 0.0; }

RegionJob cpu_job(const FilterSpec& spec, const ImageShape& shape, const PixelRect& wanted,
                  const NoiseEstimate* noise) {
  RegionJob job;
  job.spec = spec;
  job.image = shape;
  job.wanted = wanted;
  job.noise = noise;
  job.backend = "cpu";
  return job;
}

FloatImage whole_image(const FilterSpec& spec, const FloatImage& image, const NoiseEstimate& noise) {
  edgewise::RunOptions options;
  options.noise = &noise;
  return run_cpu(spec, image, options);
}

// A job that could not run: the reason, the input in the part, nothing
// written outside it.
void expect_passed_through(const RegionOutcome& outcome, const std::string& error, const FloatImage& out,
                           const FloatImage& image, const PixelRect& part) {
  EXPECT_FALSE(outcome.filtered);
  EXPECT_EQ(outcome.error, error);
  EXPECT_EQ(max_difference_in(out, image, part), 0.0);
  EXPECT_TRUE(untouched_outside(out, part));
}

// Every filter, its defaults and two drawn specs, on an RGBA and a grey
// image: each part matches the whole image's result and is all that is written.
TEST(RegionJob, EveryFilterPartMatchesWholeImage) {
  EW_SEEDED_RNG(rng);
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters())
    for (const ImageShape shape : {ImageShape{101, 77, 4}, ImageShape{53, 41, 1}}) {
      FloatImage image = random_image(rng, shape);
      const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
      for (int draw = 0; draw < 3; ++draw) {
        const FilterSpec spec = draw == 0 ? FilterSpec(*filter) : random_spec(rng, *filter);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage whole = whole_image(spec, image, noise);
        for (const PixelRect& part : test_parts(rng, shape)) {
          SCOPED_TRACE(describe(part));
          FloatImage out = nan_image(shape);
          ImageRects source(image), sink(out);
          const RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, part, &noise), source, sink);
          ASSERT_TRUE(outcome.filtered) << outcome.error;
          EXPECT_LE(max_difference_in(out, whole, part), tolerance(spec));
          EXPECT_TRUE(untouched_outside(out, part));
        }
      }
    }
}

// Parts away from the borders of an image a few reaches wide, at random
// offsets: where a filter's grid (a pyramid's levels, the Fourier filter's
// cells) and its plan for the whole image's size matter.
TEST(RegionJob, InnerPartsMatchWholeImage) {
  EW_SEEDED_RNG(rng);
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters())
    for (int draw = 0; draw < 3; ++draw) {
      const FilterSpec spec = draw == 0 ? FilterSpec(*filter) : random_spec(rng, *filter);
      // Three reaches wide: a part reads a third of it, so a plan that
      // follows the part's size instead of the image's (the pyramid's
      // automatic levels) shows.
      const int reach = edgewise::filter_reach(edgewise::spec_for_image(spec, {900, 900, 3}));
      const int side = std::min(3 * reach + 90, 900);
      const ImageShape shape{side, side - 7, 3};
      FloatImage image = random_image(rng, shape);
      const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
      SCOPED_TRACE(describe(spec, shape));
      const FloatImage whole = whole_image(spec, image, noise);
      auto inner = [&](int size) { return reach + int(rng() % unsigned(std::max(1, side - 2 * reach - size - 7))); };
      for (const int size : {1, 37}) {
        const PixelRect part{inner(size), inner(size), size, size};
        SCOPED_TRACE(describe(part));
        FloatImage out = nan_image(shape);
        ImageRects source(image), sink(out);
        const RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, part, &noise), source, sink);
        ASSERT_TRUE(outcome.filtered) << outcome.error;
        EXPECT_LE(max_difference_in(out, whole, part), tolerance(spec));
      }
    }
}

// nlbayes at --scales auto runs two scales where the noise is correlated
// (nlbayes_auto_scales): a part's reach and grid come from the spec before
// the noise is known, so they must cover what auto may choose.
TEST(RegionJob, NlBayesAutoScalesPartsMatchWholeImage) {
  EW_SEEDED_RNG(rng);
  NoiseEstimate noise = edgewise::white_noise_estimate(12.0, 3);
  for (edgewise::ChannelNoise& channel : noise.opponent) channel.spectrum.shares = {0.0, 0.0, 1.0};
  ASSERT_EQ(edgewise::nlbayes_auto_scales(&noise, 3), 2);
  FilterSpec spec(edgewise::nlbayes_filter());
  ASSERT_EQ(edgewise::set_param(spec, "search-radius", 4.0), "");
  ASSERT_EQ(spec.get("scales"), 0.0);
  const int reach = edgewise::filter_reach(spec);
  const int side = 3 * reach + 90;
  const ImageShape shape{side, side - 7, 3};
  FloatImage image = random_image(rng, shape);
  SCOPED_TRACE(describe(spec, shape));
  const FloatImage whole = whole_image(spec, image, noise);
  auto inner = [&](int size) { return reach + int(rng() % unsigned(std::max(1, side - 2 * reach - size - 7))); };
  for (const PixelRect& part : {PixelRect{inner(1), inner(1), 1, 1}, PixelRect{inner(37), inner(37), 37, 37},
                                PixelRect{0, 0, 29, 31}, PixelRect{side - 40, side - 7 - 33, 40, 33}}) {
    SCOPED_TRACE(describe(part));
    FloatImage out = nan_image(shape);
    ImageRects source(image), sink(out);
    const RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, part, &noise), source, sink);
    ASSERT_TRUE(outcome.filtered) << outcome.error;
    EXPECT_LE(max_difference_in(out, whole, part), 0.0);
  }
}

// A GEGL render: the image in tiles of several sizes (the last ones cut by
// the border), each filtered alone, is the whole image's result.
TEST(RegionJob, TilesAssembleTheWholeImage) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{110, 90, 3};
  FloatImage image = random_image(rng, shape);
  const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec = random_spec(rng, *filter);
    SCOPED_TRACE(describe(spec, shape));
    const FloatImage whole = whole_image(spec, image, noise);
    for (const int tile : {32, 67}) {
      FloatImage out = nan_image(shape);
      ImageRects source(image), sink(out);
      for (int y = 0; y < shape.height; y += tile)
        for (int x = 0; x < shape.width; x += tile)
          ASSERT_TRUE(edgewise::filter_region(cpu_job(spec, shape, {x, y, tile, tile}, &noise), source, sink).filtered);
      EXPECT_LE(max_difference_in(out, whole, {0, 0, shape.width, shape.height}), tolerance(spec)) << "tile " << tile;
    }
  }
}

// Without the caller's estimate, automatic values follow the whole image's
// noise, not the part's.
TEST(RegionJob, AutomaticValuesFollowTheWholeImage) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{120, 90, 3};
  FloatImage image = random_image(rng, shape);
  const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec(*filter);
    if (!edgewise::needs_noise(spec)) continue;
    SCOPED_TRACE(describe(spec, shape));
    const PixelRect part{30, 20, 40, 30};
    FloatImage out = nan_image(shape);
    ImageRects source(image), sink(out);
    const RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, part, nullptr), source, sink);
    ASSERT_TRUE(outcome.filtered) << outcome.error;
    EXPECT_FALSE(outcome.report.auto_values.empty());
    EXPECT_LE(max_difference_in(out, whole_image(spec, image, noise), part), tolerance(spec));
  }
}

// A part outside the image, or empty, writes nothing and is no error; one
// partly outside is written where it is inside.
TEST(RegionJob, PartsOutsideTheImage) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{40, 30, 4};
  FloatImage image = random_image(rng, shape);
  const FilterSpec spec;
  const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
  for (const PixelRect& part : {PixelRect{40, 0, 5, 5}, PixelRect{-6, -6, 6, 6}, PixelRect{5, 5, 0, 3},
                                PixelRect{0, 30, 40, 1}, PixelRect{-1000, -1000, 10, 10}}) {
    FloatImage out = nan_image(shape);
    ImageRects source(image), sink(out);
    const RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, part, &noise), source, sink);
    EXPECT_FALSE(outcome.filtered) << describe(part);
    EXPECT_EQ(outcome.error, "") << describe(part);
    EXPECT_EQ(sink.writes, 0) << describe(part);
  }
  FloatImage out = nan_image(shape);
  ImageRects source(image), sink(out);
  ASSERT_TRUE(edgewise::filter_region(cpu_job(spec, shape, {-5, 25, 20, 20}, &noise), source, sink).filtered);
  const PixelRect inside{0, 25, 15, 5};
  EXPECT_LE(max_difference_in(out, whole_image(spec, image, noise), inside), tolerance(spec));
  EXPECT_TRUE(untouched_outside(out, inside));
}

// A spec that does not validate (the Fourier filter refuses rgb, a value
// its range allows) leaves the input in the part, with validate's message.
TEST(RegionJob, BadSpecPassesInputThrough) {
  const edgewise::FilterInfo* fourier = edgewise::builtin_registry().find("fourier");
  if (!fourier) GTEST_SKIP() << "no fourier filter in this registry";
  FilterSpec spec(*fourier);
  ASSERT_EQ(edgewise::set_param(spec, "mode", "rgb"), "");
  ASSERT_NE(edgewise::validate(spec), "");
  EW_SEEDED_RNG(rng);
  const ImageShape shape{50, 40, 3};
  FloatImage image = random_image(rng, shape);
  const PixelRect part{10, 5, 30, 20};
  FloatImage out = nan_image(shape);
  ImageRects source(image), sink(out);
  const RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, part, nullptr), source, sink);
  expect_passed_through(outcome, edgewise::validate(spec), out, image, part);
}

// A GPU failing part-way (simulated here where there is none) reruns on
// the CPU: the same pixels, the failure told as a notice.
TEST(RegionJob, GpuFailureRerunsOnTheCpu) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{90, 70, 4};
  FloatImage image = random_image(rng, shape);
  const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
  for (const auto failure : {edgewise::InjectedFailure::out_of_memory, edgewise::InjectedFailure::launch}) {
    const edgewise::BackendList failing = edgewise::with_injected_failure(edgewise::installed_backends(), failure);
    for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
      const FilterSpec spec(*filter);
      SCOPED_TRACE(describe(spec, shape));
      const PixelRect part{7, 9, 50, 40};
      RegionJob job = cpu_job(spec, shape, part, &noise);
      job.backend = "auto";
      job.backends = &failing;
      FloatImage out = nan_image(shape);
      ImageRects source(image), sink(out);
      const RegionOutcome outcome = edgewise::filter_region(job, source, sink);
      ASSERT_TRUE(outcome.filtered) << outcome.error;
      EXPECT_FALSE(outcome.notices.empty());
      EXPECT_EQ(outcome.report.backend.rfind("cpu", 0), 0u) << outcome.report.backend;
      EXPECT_LE(max_difference_in(out, whole_image(spec, image, noise), part), tolerance(spec));
      EXPECT_TRUE(untouched_outside(out, part));
    }
  }
}

// What the plug-in takes from a job as it runs: each notice as it comes
// (the progress bar's text while the CPU reruns), the rows read and
// written (its EDGEWISE_TIMING), and the part read; a progress function
// that says stop gets "cancelled" and the input in the part.
class CountingObserver : public edgewise::RunObserver {
 public:
  void rows_read(int rows, double) override { read += rows; }
  void rows_written(int rows, double) override { written += rows; }
  int read = 0, written = 0;
};

TEST(RegionJob, NoticesObserverAndCancelling) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{60, 50, 3};
  FloatImage image = random_image(rng, shape);
  const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
  const FilterSpec spec;
  const PixelRect part{11, 7, 30, 25};
  const edgewise::BackendList failing =
      edgewise::with_injected_failure(edgewise::installed_backends(), edgewise::InjectedFailure::launch);
  RegionJob job = cpu_job(spec, shape, part, &noise);
  job.backend = "auto";
  job.backends = &failing;
  std::vector<std::string> told;
  job.notice = [&told](const std::string& text) { told.push_back(text); };
  CountingObserver observer;
  job.observer = &observer;
  FloatImage out = nan_image(shape);
  ImageRects source(image), sink(out);
  const RegionOutcome outcome = edgewise::filter_region(job, source, sink);
  ASSERT_TRUE(outcome.filtered) << outcome.error;
  EXPECT_FALSE(told.empty());
  EXPECT_EQ(told, outcome.notices);
  const PixelRect read = edgewise::plan_region(spec, shape, part).read;
  EXPECT_EQ(std::vector<int>({outcome.read.x, outcome.read.y, outcome.read.width, outcome.read.height}),
            std::vector<int>({read.x, read.y, read.width, read.height}));
  EXPECT_GE(observer.read, read.height);
  EXPECT_GE(observer.written, read.height);

  job = cpu_job(spec, shape, part, &noise);
  job.progress = [](double) { return false; };
  out = nan_image(shape);
  expect_passed_through(edgewise::filter_region(job, source, sink), "cancelled", out, image, part);
}

// Every backend running out of host memory after its first band's garbage
// is in place: no exception, the input unchanged in the whole part.
TEST(RegionJob, HostMemoryFailurePassesInputThrough) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{64, 300, 4};
  FloatImage image = random_image(rng, shape);
  const edgewise::BackendList failing = edgewise::with_host_memory_failure(edgewise::installed_backends());
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    SCOPED_TRACE(filter->name);
    for (const std::string backend : {"auto", "cpu"}) {
      RegionJob job = cpu_job(FilterSpec(*filter), shape, {0, 0, 64, 300}, nullptr);
      job.backend = backend;
      job.backends = &failing;
      FloatImage out = nan_image(shape);
      ImageRects source(image), sink(out);
      const RegionOutcome outcome = edgewise::filter_region(job, source, sink);
      EXPECT_FALSE(outcome.filtered);
      EXPECT_EQ(outcome.error, "out of memory");
      EXPECT_EQ(max_difference_in(out, image, {0, 0, 64, 300}), 0.0);
    }
  }
}

// Pixels that cannot be read or written (a GEGL buffer failing) end in an
// outcome with the reason, not an exception.
class FailingRects : public edgewise::RectSource, public edgewise::RectSink {
 public:
  void read(const PixelRect&, float*, size_t) override { throw std::runtime_error("cannot read"); }
  void write(const PixelRect&, const float*, size_t) override { throw std::runtime_error("cannot write"); }
};

TEST(RegionJob, FailingPixelsNeverThrow) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{30, 20, 4};
  FloatImage image = random_image(rng, shape);
  ImageRects good(image);
  FailingRects bad;
  const FilterSpec spec;
  RegionOutcome outcome = edgewise::filter_region(cpu_job(spec, shape, {0, 0, 30, 20}, nullptr), bad, good);
  EXPECT_FALSE(outcome.filtered);
  EXPECT_NE(outcome.error.find("cannot read"), std::string::npos) << outcome.error;
  const NoiseEstimate noise = edgewise::estimate_noise(image, shape);
  outcome = edgewise::filter_region(cpu_job(spec, shape, {0, 0, 30, 20}, &noise), good, bad);
  EXPECT_FALSE(outcome.filtered);
  EXPECT_NE(outcome.error.find("cannot write"), std::string::npos) << outcome.error;
  EXPECT_NE(outcome.error.find("could not be copied"), std::string::npos) << outcome.error;
}

// The part read: the wanted part grown by the reach, within the image, its
// origin on the filter's grid.
TEST(RegionPlan, GrownOnTheGridWithinTheImage) {
  EW_SEEDED_RNG(rng);
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters())
    for (int draw = 0; draw < 20; ++draw) {
      const FilterSpec spec = random_spec(rng, *filter);
      const ImageShape shape{1 + int(rng() % 900), 1 + int(rng() % 700), 3};
      const std::vector<PixelRect> parts = test_parts(rng, shape);
      const PixelRect wanted = parts[size_t(rng() % parts.size())];
      const edgewise::RegionPlan plan = edgewise::plan_region(spec, shape, wanted);
      SCOPED_TRACE(describe(spec, shape) + " " + describe(wanted) + " read " + describe(plan.read));
      const int reach = edgewise::filter_reach(plan.spec);
      const int grid = filter->region_grid ? filter->region_grid(plan.spec) : 1;
      EXPECT_EQ(plan.read.x % grid, 0);
      EXPECT_EQ(plan.read.y % grid, 0);
      EXPECT_LE(plan.read.x, std::max(0, wanted.x - reach));
      EXPECT_LE(plan.read.y, std::max(0, wanted.y - reach));
      EXPECT_GT(plan.read.x, wanted.x - reach - grid);
      EXPECT_GT(plan.read.y, wanted.y - reach - grid);
      EXPECT_EQ(plan.read.right(), std::min(shape.width, wanted.right() + reach));
      EXPECT_EQ(plan.read.bottom(), std::min(shape.height, wanted.bottom() + reach));
      EXPECT_EQ(edgewise::validate(plan.spec), "");
    }
}

}  // namespace
}  // namespace edgewise_test
