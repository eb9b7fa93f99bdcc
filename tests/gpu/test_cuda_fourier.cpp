// The Fourier bilateral filter on the CUDA backend against the CPU backend
// and the double reference of its formula. Where no usable GPU exists every
// test reports itself skipped with the reason (tests/gpu/run.sh runs them
// on the GPU machine).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fourier.h"
#include "fourier_design.h"
#include "reference/fourier_reference.h"
#include "settings.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

const ColorMode kFourierModes[] = {ColorMode::per_channel, ColorMode::lab};

std::string describe_fourier(const FourierParameters& f, const ImageShape& shape) {
  Settings settings;
  settings.spec = fourier_spec(f);
  return std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" + std::to_string(shape.channels) + " " +
         format_arguments(settings);
}

edgewise_reference::FourierSettings reference_of(const FourierParameters& f, const ImageShape& shape) {
  const auto plan = make_plan(fourier_spec(f), shape);
  const FourierPlan& fp = static_cast<const FourierPlan&>(*plan);
  edgewise_reference::FourierSettings s;
  s.mode = f.mode == ColorMode::lab ? edgewise_reference::Mode::lab : edgewise_reference::Mode::per_channel;
  const SpatialGaussian spatial = design_spatial_gaussian(double(f.sigma_s));
  for (int n = 0; n <= spatial.radius; ++n) s.spatial.push_back(spatial.impulse(n));
  for (int c = 0; c < fp.params.color_channels; ++c) {
    edgewise_reference::FourierChannelSeries series;
    series.low = fp.params.channel[c].low;
    series.high = fp.params.channel[c].high;
    series.period = fp.period[c];
    for (int k = 0; k <= fp.params.terms; ++k) {
      series.cosine.push_back(fp.cosine[fp.coefficient(c, k)]);
      series.sine.push_back(fp.sine[fp.coefficient(c, k)]);
    }
    s.channels.push_back(series);
  }
  s.min_denominator = fp.params.min_denominator;
  s.denominator_floor = fp.params.denominator_floor;
  return s;
}

// Whole-image bands on the CPU (the reference's clamp-to-edge window).
FloatImage run_cpu_whole(const FilterSpec& spec, const FloatImage& image) {
  RunOptions options;
  options.band_rows = image.shape().height;
  return run_cpu(spec, image, options);
}

void every_variant(bool short_run) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3}, {1, 23, 4}, {29, 1, 1}, {13, 7, 2}, {37, 19, 3}, {45, 33, 4}, {70, 9, 3}};
  const float sigmas[] = {0.8f, 2.0f, 2.6f, 4.5f, 11.0f};
  int index = 0;
  for (ColorMode mode : kFourierModes)
    for (RangeKernel kernel : kKernels)
      for (int channels = 1; channels <= 4; ++channels) {
        ImageShape shape = sizes[size_t(index) % (sizeof sizes / sizeof sizes[0])];
        shape.channels = channels;
        FourierParameters f;
        f.mode = mode;
        f.kernel = kernel;
        f.sigma_s = sigmas[index % 5];
        f.sigma_r = mode == ColorMode::lab ? (index % 2 ? 8.0f : 20.0f) : (index % 3 == 0 ? 10.0f : 40.0f);
        f.terms = index % 5 == 4 ? 11 : 0;  // two passes of the GPU's eight terms
        ++index;
        SCOPED_TRACE(describe_fourier(f, shape));
        const FloatImage image = random_image(rng, shape);
        // The GPU's bands are at least 64 rows: these images are one band, as the reference sees them.
        const FloatImage got = run_gpu(fourier_spec(f), image);
        if (short_run) continue;  // compute-sanitizer: every variant runs, the checks are the other tests'
        const Difference d =
            max_difference(edgewise_reference::fourier_reference(to_reference(image), reference_of(f, shape)), got);
        EXPECT_LE(d.max_abs, 2e-4) << d.describe();
        const Difference cpu = max_difference(run_cpu_whole(fourier_spec(f), image), got);
        EXPECT_LE(cpu.max_abs, 2e-4) << cpu.describe();
      }
}

TEST(CudaFourier, MatchesReferenceAndCpuEveryModeKernelLayout) {
  REQUIRE_GPU();
  every_variant(false);
}

// The recursion up to sigma-s 100 with the range kernel flat (terms enough
// for R within 1e-9): the spatial Gaussian alone, against the CPU.
TEST(CudaFourier, LargeSigmasAgreeWithCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {411, 257, 4}, {false, Alpha::positive});
  for (float sigma : {17.0f, 64.0f, 100.0f})
    for (float sigma_r : {25.0f, 100000.0f}) {
      FourierParameters f;
      f.sigma_s = sigma;
      f.sigma_r = sigma_r;
      f.terms = sigma_r > 1000.0f ? 8 : 0;
      SCOPED_TRACE(describe_fourier(f, image.shape()));
      const Difference d = max_difference(run_cpu_whole(fourier_spec(f), image), run_gpu(fourier_spec(f), image));
      EXPECT_LE(d.max_abs, 2e-4) << d.describe();
    }
}

TEST(CudaFourier, AgreesWithCpuOnAPhotoSizedImage) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {1031, 777, 4}, {false, Alpha::positive});
  for (ColorMode mode : kFourierModes)
    for (float sigma : {1.5f, 6.0f, 40.0f}) {
      FourierParameters f;
      f.mode = mode;
      f.sigma_s = sigma;
      f.sigma_r = mode == ColorMode::lab ? 10.0f : 25.0f;
      SCOPED_TRACE(describe_fourier(f, image.shape()));
      const Difference d = max_difference(run_cpu(fourier_spec(f), image), run_gpu(fourier_spec(f), image));
      EXPECT_LE(d.max_abs, 2e-4) << d.describe();
    }
}

// Direct taps (sigma-s <= 2): bit-identical across band heights. The
// recursion: by float rounding only (the bound of test_fourier.cpp's
// FourierCpu.BandHeightAndThreads, 2e-4).
TEST(CudaFourier, BandSizeChangesOutputByRoundingOnly) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {509, 1031, 4});
  for (ColorMode mode : kFourierModes)
    for (float sigma : {1.5f, 6.0f}) {
      FourierParameters f;
      f.mode = mode;
      f.sigma_s = sigma;
      SCOPED_TRACE(describe_fourier(f, image.shape()));
      const FloatImage whole = run_gpu(fourier_spec(f), image);
      for (size_t budget : {size_t(6) << 20, size_t(24) << 20}) {
        const FloatImage banded = run_gpu(fourier_spec(f), image, budget);
        if (sigma <= 2.0f) {
          EXPECT_TRUE(bit_identical(whole, banded))
              << "budget " << (budget >> 20) << " MiB: " << max_difference(whole, banded).describe();
        } else {
          const Difference d = max_difference(whole, banded);
          EXPECT_LE(d.max_abs, 2e-4) << "budget " << (budget >> 20) << " MiB: " << d.describe();
        }
      }
    }
}

// For compute-sanitizer (tests/gpu/run.sh): every variant once, small.
TEST(CudaFourierShort, EveryVariantOnce) {
  REQUIRE_GPU();
  every_variant(true);
}

}  // namespace
