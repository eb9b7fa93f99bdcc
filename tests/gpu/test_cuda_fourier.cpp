// The Fourier bilateral filter on the CUDA backend against the CPU backend
// and the double reference of its formula. Where no usable GPU exists every
// test reports itself skipped with the reason (tests/gpu/run.sh runs them
// on the GPU machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "fourier.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

const ColorMode kFourierModes[] = {ColorMode::per_channel, ColorMode::lab};

// Whole-image bands on the CPU (the reference's clamp-to-edge window).
FloatImage run_cpu_whole(const FilterSpec& spec, const FloatImage& image) {
  RunOptions options;
  options.band_rows = image.shape().height;
  return run_cpu(spec, image, options);
}

void every_variant(bool short_run) {
  EW_SEEDED_RNG(rng);
  int index = 0;
  for (ColorMode mode : kFourierModes)
    for (RangeKernel kernel : kKernels)
      for (int channels = 1; channels <= 4; ++channels) {
        const ImageShape shape = fourier_sweep_shape(index, channels);
        // Eleven terms: two passes of the GPU's eight.
        const FourierParameters f = fourier_sweep_case(mode, kernel, index++, {0.8f, 2.0f, 2.6f, 4.5f, 11.0f}, 11);
        SCOPED_TRACE(describe(f, shape));
        const FloatImage image = random_image(rng, shape);
        // The GPU's bands are at least 64 rows: these images are one band, as the reference sees them.
        const FloatImage got = run_gpu(fourier_spec(f), image);
        if (short_run) continue;  // compute-sanitizer: every variant runs, the checks are the other tests'
        const Difference d = max_difference(
            edgewise_reference::fourier_reference(to_reference(image), reference_settings(f, shape)), got);
        EXPECT_LE(d.max_abs, 2e-4) << d.describe();
        const Difference cpu = max_difference(run_cpu_whole(fourier_spec(f), image), got);
        EXPECT_LE(cpu.max_abs, 2e-4) << cpu.describe();
      }
}

TEST(CudaFourier, MatchesReferenceAndCpuEveryModeKernelLayout) {
  REQUIRE_GPU();
  every_variant(false);
}

// Large sigmas with the range kernel flat (terms enough for R within
// 1e-9): the spatial filter alone, against the CPU. 11.5 takes the
// recursion; from 12 on both backends take the reduced-resolution path
// (17: cells of 4 pixels, 64: 16, 100: 25, the largest step).
TEST(CudaFourier, LargeSigmasAgreeWithCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {411, 257, 4}, {false, Alpha::positive});
  for (float sigma : {11.5f, 17.0f, 64.0f, 100.0f})
    for (float sigma_r : {25.0f, 100000.0f}) {
      FourierParameters f;
      f.sigma_s = sigma;
      f.sigma_r = sigma_r;
      f.terms = sigma_r > 1000.0f ? 8 : 0;
      SCOPED_TRACE(describe(f, image.shape()));
      const Difference d = max_difference(run_cpu_whole(fourier_spec(f), image), run_gpu(fourier_spec(f), image));
      EXPECT_LE(d.max_abs, 2e-4) << d.describe();
    }
}

// Within float rounding: the two backends sum the recursions in different
// orders (the CPU restarts its column chunks every 2 (r + 1) rows; the GPU
// walks parts of whole columns and joins row segments by carries), and the
// rounding of a recursion grows with its state, which holds about
// 1 / (1 - |z|) ~ 0.6 sigma-s samples' worth. The output divides D and E by
// D >= 1e-3 A, so pixels unlike all their neighbours amplify that most
// (near black in lab mode, where R'G'B' moves fastest with L*). Hence
// 2e-4 of the range (docs/fourier.md) up to sigma-s 8, in proportion
// beyond (3.7e-4 measured at sigma-s 40, lab, on the H100). From sigma-s
// 12 on neither backend runs the recursion (the reduced-resolution path:
// cell averages and a blur of at most 41 taps, no state that grows with
// sigma-s), so the bound is 2e-4 there.
double rounding_bound(float sigma_s) {
  if (sigma_s >= 12.0f) return 2e-4;
  return 2e-4 * std::max(1.0, double(sigma_s) / 8.0);
}

TEST(CudaFourier, AgreesWithCpuOnAPhotoSizedImage) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {1031, 777, 4}, {false, Alpha::positive});
  for (ColorMode mode : kFourierModes)
    for (float sigma : {1.5f, 6.0f, 20.0f, 40.0f}) {
      FourierParameters f;
      f.mode = mode;
      f.sigma_s = sigma;
      f.sigma_r = mode == ColorMode::lab ? 10.0f : 25.0f;
      SCOPED_TRACE(describe(f, image.shape()));
      const Difference d = max_difference(run_cpu(fourier_spec(f), image), run_gpu(fourier_spec(f), image));
      EXPECT_LE(d.max_abs, rounding_bound(sigma)) << d.describe();
    }
}

// Rows wider than 512 x 13 pixels take the row kernel's long segments
// (cuda/fourier.cu: run again from their true starts, not held); narrower
// ones the 13-pixel segments, at the widths around the switch.
TEST(CudaFourier, WideRowsTakeLongSegmentsAndAgreeWithCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  for (int width : {6656, 6657, 9001}) {
    const FloatImage image = random_image(rng, {width, 37, 4}, {false, Alpha::positive});
    for (float sigma : {1.5f, 6.0f}) {
      FourierParameters f;
      f.sigma_s = sigma;
      f.sigma_r = 25.0f;
      SCOPED_TRACE(describe(f, image.shape()));
      const Difference d = max_difference(run_cpu(fourier_spec(f), image), run_gpu(fourier_spec(f), image));
      EXPECT_LE(d.max_abs, rounding_bound(sigma)) << d.describe();
    }
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
      SCOPED_TRACE(describe(f, image.shape()));
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

// ---- the reduced-resolution path (sigma-s >= 12, cuda/fourier_coarse.cu) ----

// 1x1, one column, one row, primes, one smaller than a cell at every step
// (3x2), one a few cells of 4 tall.
const ImageShape kCoarseShapes[] = {{1, 1, 1}, {1, 41, 1}, {53, 1, 1}, {97, 61, 1}, {3, 2, 1}, {131, 29, 1}};

// Cells of 3, 5 and 10 pixels (s = floor(sigma-s / 4)) in every mode,
// layout (grey, grey + alpha, RGB, RGBA; alpha with exact zeros) and size,
// kernels and sigma-r varied, 11 terms every fifth case (two of the cell
// kernel's groups of eight), against the CPU's whole-image band and, where
// it is quick, the double reference of the same window.
void every_coarse_variant(bool short_run) {
  EW_SEEDED_RNG(rng);
  int index = 0;
  for (float sigma : {13.0f, 20.0f, 40.0f})
    for (ColorMode mode : kFourierModes)
      for (int channels = 1; channels <= 4; ++channels)
        for (ImageShape shape : kCoarseShapes) {
          shape.channels = channels;
          const FourierParameters f = fourier_sweep_case(mode, kKernels[index % 4], index, {sigma}, 11);
          ++index;
          SCOPED_TRACE(describe(f, shape));
          const FloatImage image = random_image(rng, shape);
          const FloatImage got = run_gpu(fourier_spec(f), image);
          if (short_run) continue;  // compute-sanitizer: the bounds of every kernel, no checks
          // The double reference sums every pixel's whole window (the image,
          // at these sizes): the small shapes only; the CPU for all.
          if (shape.width * shape.height <= 200) {
            const Difference d = max_difference(
                edgewise_reference::fourier_reference(to_reference(image), reference_settings(f, shape)), got);
            EXPECT_LE(d.max_abs, 2e-4) << d.describe();
          }
          const Difference cpu = max_difference(run_cpu_whole(fourier_spec(f), image), got);
          EXPECT_LE(cpu.max_abs, 2e-4) << cpu.describe();
        }
}

TEST(CudaFourier, CoarseMatchesCpuEveryModeLayoutAndSize) {
  REQUIRE_GPU();
  every_coarse_variant(false);
}

// The cells are aligned to the image, not to the band: bands of other
// heights cut the same cells and blur the same grid, so only the sums'
// rounding may differ. At these reaches (52, 87 and 175 rows) the budgets
// give bands of about 100 to 360 rows, most not whole cells (sigma-s 40
// needs more than 6 MiB: a band holds twice its reach).
TEST(CudaFourier, CoarseBandSizeChangesOutputByRoundingOnly) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {509, 1031, 4});
  for (ColorMode mode : kFourierModes)
    for (float sigma : {13.0f, 20.0f, 40.0f}) {
      FourierParameters f;
      f.mode = mode;
      f.sigma_s = sigma;
      SCOPED_TRACE(describe(f, image.shape()));
      const FloatImage whole = run_gpu(fourier_spec(f), image);
      for (size_t budget : {size_t(16) << 20, size_t(24) << 20, size_t(40) << 20}) {
        const Difference d = max_difference(whole, run_gpu(fourier_spec(f), image, budget));
        EXPECT_LE(d.max_abs, 2e-4) << "budget " << (budget >> 20) << " MiB: " << d.describe();
      }
    }
}

// For compute-sanitizer (tests/gpu/run.sh): every variant once, small.
TEST(CudaFourierShort, EveryVariantOnce) {
  REQUIRE_GPU();
  every_variant(true);
}

TEST(CudaFourierShort, EveryCoarseVariantOnce) {
  REQUIRE_GPU();
  every_coarse_variant(true);
}

}  // namespace
