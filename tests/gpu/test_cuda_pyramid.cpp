// The multiresolution bilateral filter on the CUDA backend against the
// double reference (tests/reference/pyramid_reference.h) and the CPU
// backend: every mode, guide, kernel, level count and channel count on
// awkward sizes, a photo-sized image, band heights (bit for bit), one
// level against the GPU's bilateral filter (bit for bit), sigma-r -> 0 and
// strength 0, lab's luminance and colour passes, radii beyond the tiled
// kernels, and `--backend auto` staying on the GPU. Where no usable GPU
// exists every test reports itself skipped with the reason (tests/gpu/
// run_bundle.sh runs them on the GPU machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "lab_pixel.h"
#include "pyramid.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

const PyramidGuide kGuides[] = {PyramidGuide::gaussian, PyramidGuide::laplacian};

// test_pyramid.cpp's bound for the CPU against the reference: float
// against double through the pyramid, the bilateral's fast exp, and Lab's
// round trip.
double reference_tolerance(ColorMode mode) { return mode == ColorMode::lab ? 2e-3 : 5e-4; }

// The two backends' float paths differ by the exponential (ex2.approx
// against the CPU's polynomial), fused multiply-adds and the Lab curve.
constexpr double kCpuTolerance = 1e-4;

// Whole-image bands on the CPU (bit-identical to any other band height).
FloatImage run_cpu_whole(const FilterSpec& spec, const FloatImage& image) {
  RunOptions options;
  options.band_rows = image.shape().height;
  return run_cpu(spec, image, options);
}

// The GPU with bands of `band_rows` output rows (the backend raises
// heights below 64; the image's height makes one band).
FloatImage run_gpu_rows(const FilterSpec& spec, const FloatImage& image, int band_rows) {
  RunOptions options;
  options.backend = "cuda";
  options.band_rows = band_rows;
  FloatImage source = image, output(image.shape());
  run_filter(spec, image.shape(), source, output, options);
  return output;
}

// The largest differences a sweep saw, printed so a passing run still
// shows its margins.
struct Worst {
  double reference = 0.0, cpu = 0.0;
  void print(const char* what) const {
    std::printf("[   INFO   ] %s: worst |GPU - reference| %.3g, worst |GPU - CPU| %.3g\n", what, reference, cpu);
  }
};

// Sizes with no even side beyond 2, rows and columns alone, and primes.
ImageShape sweep_shape(int index, int channels) {
  const ImageShape sizes[] = {{1, 1, 1},   {1, 17, 1},  {23, 1, 1},  {2, 2, 1},   {13, 7, 1},
                              {37, 41, 1}, {61, 29, 1}, {97, 53, 1}, {3, 131, 1}, {127, 5, 1}};
  ImageShape shape = sizes[size_t(index) % (sizeof sizes / sizeof sizes[0])];
  shape.channels = channels;
  return shape;
}

TEST(CudaPyramid, MatchesReferenceAndCpuEveryModeGuideKernelLevelsChannels) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  Worst worst;
  int index = 0;
  for (ColorMode mode : kModes)
    for (PyramidGuide guide : kGuides)
      for (RangeKernel kernel : kKernels)
        for (int levels = 1; levels <= 6; ++levels)
          for (int channels = 1; channels <= 4; ++channels) {
            const ImageShape shape = sweep_shape(index, channels);
            PyramidParameters p = pyramid_sweep_case(mode, kernel, index++, levels);
            p.guide = guide;
            SCOPED_TRACE(describe(p, shape));
            const FloatImage image = random_image(rng, shape);
            const FloatImage got = run_gpu(pyramid_spec(p), image);
            const Difference d = max_difference(
                edgewise_reference::pyramid_reference(to_reference(image), reference_settings(p, shape)), got);
            EXPECT_LE(d.max_abs, reference_tolerance(mode)) << "against the reference: " << d.describe();
            const Difference cpu = max_difference(run_cpu_whole(pyramid_spec(p), image), got);
            EXPECT_LE(cpu.max_abs, kCpuTolerance) << "against the CPU: " << cpu.describe();
            worst.reference = std::max(worst.reference, d.max_abs);
            worst.cpu = std::max(worst.cpu, cpu.max_abs);
          }
  worst.print("every mode, guide, kernel, 1-6 levels, 1-4 channels");
}

// The 24 MP bench's settings and their neighbours on a larger image, both
// GPU paths (streamed rows, whole buffers) against the CPU.
TEST(CudaPyramid, AgreesWithCpuOnAPhotoSizedImage) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {1031, 777, 4}, {false, Alpha::positive});
  Worst worst;
  for (ColorMode mode : kModes)
    for (PyramidGuide guide : kGuides)
      for (int levels : {5, 0}) {  // 0: automatic (5 here)
        PyramidParameters p;
        p.mode = mode;
        p.guide = guide;
        p.levels = levels;
        p.sigma_s = levels ? 1.0f : 1.5f;
        p.radius = levels ? 2 : 0;
        p.sigma_r = mode == ColorMode::lab ? 10.0f : 20.0f;
        p.chroma_strength = levels ? 1.0f : 2.0f;  // lab: luminance and colour in two passes
        p.coarse_strength = levels ? 1.0f : 1.5f;
        SCOPED_TRACE(describe(p, image.shape()));
        const FloatImage cpu = run_cpu(pyramid_spec(p), image);
        const Difference streamed = max_difference(cpu, run_gpu(pyramid_spec(p), image));
        EXPECT_LE(streamed.max_abs, kCpuTolerance) << "streamed: " << streamed.describe();
        const Difference buffered = max_difference(cpu, run_gpu_buffers(pyramid_spec(p), image));
        EXPECT_LE(buffered.max_abs, kCpuTolerance) << "buffers: " << buffered.describe();
        worst.cpu = std::max({worst.cpu, streamed.max_abs, buffered.max_abs});
      }
  worst.print("1031x777x4");
}

// Every row is computed from clamped image-grid indices by the same
// kernels, so band height changes nothing, to the bit: one band against
// bands of 150, 201 and 333 rows (the backend raises heights below an
// eighth of the image, 129 rows here, or the reach; odd heights start
// bands on other phases of the pyramid's grid), the default budget's
// bands, a 6 MiB budget where the reach fits it, and the whole-buffer path.
TEST(CudaPyramid, BandHeightDoesNotChangeOutput) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {509, 1031, 4});
  int index = 0;
  for (ColorMode mode : kModes)
    for (int levels : {1, 2, 3, 5, 6}) {
      PyramidParameters p;
      p.mode = mode;
      p.levels = levels;
      p.radius = 2;
      p.sigma_r = 25.0f;
      p.guide = kGuides[size_t(index++) % 2];
      p.chroma_strength = 2.0f;
      const FilterSpec spec = pyramid_spec(p);
      SCOPED_TRACE(describe(p, image.shape()));
      const FloatImage whole = run_gpu_rows(spec, image, image.shape().height);
      for (int band_rows : {150, 201, 333}) {
        const FloatImage banded = run_gpu_rows(spec, image, band_rows);
        EXPECT_TRUE(bit_identical(whole, banded))
            << "bands of " << band_rows << " rows: " << max_difference(whole, banded).describe();
      }
      const FloatImage budget = run_gpu(spec, image);
      EXPECT_TRUE(bit_identical(whole, budget)) << "default budget: " << max_difference(whole, budget).describe();
      if (filter_reach(spec) <= 100) {
        const FloatImage small = run_gpu(spec, image, size_t(6) << 20);
        EXPECT_TRUE(bit_identical(whole, small)) << "6 MiB: " << max_difference(whole, small).describe();
      }
      const FloatImage buffers = run_gpu_buffers(spec, image);
      EXPECT_TRUE(bit_identical(whole, buffers)) << "buffers: " << max_difference(whole, buffers).describe();
    }
}

// One level is the bilateral filter: the same launcher on the same
// samples, the same Lab conversions, so the same bits.
TEST(CudaPyramid, OneLevelIsTheBilateralFilter) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  std::uniform_int_distribution<int> side(1, 90);
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int channels = 1; channels <= 4; ++channels)
        for (int radius : {0, 3, 33}) {  // 0: ceil(2 sigma-s); 33: beyond the tiled kernels
          const ImageShape shape{side(rng), radius == 33 ? side(rng) : 150 + side(rng), channels};
          const FloatImage image = random_image(rng, shape);
          PyramidParameters p;
          p.mode = mode;
          p.kernel = kernel;
          p.levels = 1;
          p.sigma_s = radius == 33 ? 12.0f : 1.5f;
          p.radius = radius;
          p.sigma_r = 30.0f;
          SCOPED_TRACE(describe(p, shape));
          const FloatImage got = run_gpu(pyramid_spec(p), image);
          const FloatImage expected = run_gpu(make_spec(mode, kernel, p.sigma_s, 30.0f, radius), image);
          EXPECT_TRUE(bit_identical(expected, got)) << max_difference(expected, got).describe();
        }
}

// Radii beyond the tiled kernels (the wide kernel and its table in global
// memory) on every level, against the reference.
TEST(CudaPyramid, WideRadiusBeyondTiledKernel) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {83, 71, 4});
  for (ColorMode mode : kModes) {
    PyramidParameters p;
    p.mode = mode;
    p.levels = 3;
    p.sigma_s = 20.0f;
    p.radius = 40;
    p.sigma_r = mode == ColorMode::lab ? 12.0f : 30.0f;
    p.guide = mode == ColorMode::rgb ? PyramidGuide::laplacian : PyramidGuide::gaussian;
    SCOPED_TRACE(describe(p, image.shape()));
    const FloatImage got = run_gpu(pyramid_spec(p), image);
    const Difference d = max_difference(
        edgewise_reference::pyramid_reference(to_reference(image), reference_settings(p, image.shape())), got);
    EXPECT_LE(d.max_abs, reference_tolerance(mode)) << d.describe();
    const Difference cpu = max_difference(run_cpu(pyramid_spec(p), image), got);
    EXPECT_LE(cpu.max_abs, kCpuTolerance) << "against the CPU: " << cpu.describe();
  }
}

// Perfect reconstruction: every B_k the identity gives the input back, as
// on the CPU (test_pyramid.cpp's bounds).
TEST(CudaPyramid, VanishingSigmaRAndZeroStrengthGiveTheInput) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int levels : {2, 4, 8})
        for (PyramidGuide guide : kGuides) {
          const ImageShape shape{71, 143, 4};
          const FloatImage image = random_image(rng, shape, {false, Alpha::positive});
          PyramidParameters p;
          p.mode = mode;
          p.kernel = kernel;
          p.levels = levels;
          p.guide = guide;
          p.sigma_r = 0.001f;
          p.strength = 0.001f;
          SCOPED_TRACE(describe(p, shape));
          const double tolerance = mode == ColorMode::lab ? 3e-5 : 1e-5;
          const Difference tiny = max_difference(image, run_gpu(pyramid_spec(p), image));
          EXPECT_LE(tiny.max_abs, tolerance) << "sigma-r 0.001: " << tiny.describe();
          p.sigma_r = 50.0f;
          p.strength = 0.0f;
          const Difference none = max_difference(image, run_gpu(pyramid_spec(p), image));
          EXPECT_LE(none.max_abs, tolerance) << "strength 0: " << none.describe();
        }
}

// lab: luma-strength 0 keeps L*, chroma-strength 0 keeps a* and b*, each
// moves its own channels, and the GPU agrees with the CPU (one pass
// writing its planes straight, a second beside them).
TEST(CudaPyramid, LabStrengthsKeepTheOtherChannels) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const ImageShape shape{64, 148, 3};
  const FloatImage image = random_image(rng, shape, {false, Alpha::opaque});
  PyramidParameters p;
  p.mode = ColorMode::lab;
  p.levels = 3;
  p.sigma_r = 20.0f;
  const float strengths[][2] = {{0.0f, 2.0f}, {1.0f, 0.0f}, {0.5f, 2.0f}, {2.0f, 0.5f}};
  for (const auto& s : strengths) {
    p.luma_strength = s[0];
    p.chroma_strength = s[1];
    SCOPED_TRACE(describe(p, shape));
    const FloatImage got = run_gpu(pyramid_spec(p), image);
    const Difference cpu = max_difference(run_cpu(pyramid_spec(p), image), got);
    EXPECT_LE(cpu.max_abs, kCpuTolerance) << cpu.describe();
    if (s[0] > 0.0f && s[1] > 0.0f) continue;
    double kept = 0, moved = 0;
    for (int y = 0; y < shape.height; ++y)
      for (int x = 0; x < shape.width; ++x) {
        float a[3], b[3];
        lab_pixel(image, x, y, a);
        lab_pixel(got, x, y, b);
        for (int c = 0; c < 3; ++c) {
          const bool own = s[0] == 0.0f ? c == 0 : c > 0;
          (own ? kept : moved) = std::max(own ? kept : moved, double(std::fabs(a[c] - b[c])));
        }
      }
    EXPECT_LE(kept, 0.01);
    EXPECT_GE(moved, 1.0);
  }
}

// The family is in the CUDA backend's table: auto runs it on the GPU.
TEST(CudaPyramid, AutoBackendRunsOnTheGpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {57, 43, 3});
  PyramidParameters p;
  p.levels = 3;
  FloatImage source = image, output(image.shape());
  RunOptions options;  // backend "auto"
  const RunReport report = run_filter(pyramid_spec(p), image.shape(), source, output, options);
  EXPECT_EQ(report.backend.rfind("cuda", 0), 0u) << "ran on " << report.backend;
  EXPECT_TRUE(report.fallback_reason.empty()) << report.fallback_reason;
}

// For compute-sanitizer (memcheck, racecheck): every mode, guide and
// channel count once (kernels and level counts in turn), several bands,
// both pipelines; lab's two passes, a strength-0 plane and the wide kernel.
TEST(CudaPyramidShort, EveryVariantOnce) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  int index = 0;
  for (ColorMode mode : kModes)
    for (PyramidGuide guide : kGuides)
      for (int channels = 1; channels <= 4; ++channels) {
        const ImageShape shape{45, 150, channels};  // bands of at least 64 rows (or the reach)
        PyramidParameters p = pyramid_sweep_case(mode, kKernels[size_t(index) % 4], index, 1 + index % 6);
        ++index;
        p.guide = guide;
        if (index == 5) p.radius = 33;  // the wide kernel once (its taps are slow under the sanitizers)
        SCOPED_TRACE(describe(p, shape));
        const FloatImage image = random_image(rng, shape);
        const FloatImage cpu = run_cpu(pyramid_spec(p), image);
        EXPECT_LE(max_difference(cpu, run_gpu(pyramid_spec(p), image)).max_abs, kCpuTolerance);
        EXPECT_LE(max_difference(cpu, run_gpu_buffers(pyramid_spec(p), image)).max_abs, kCpuTolerance);
      }
}

}  // namespace
