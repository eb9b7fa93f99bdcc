// Helpers shared by the test executables: seeded random images that look
// like photographs (gradients, edges, noise), the double references run on a
// FilterSpec or on the nlm filter's values, the CPU and GPU backends run on
// an image, and comparisons that say where two images differ.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bilateral.h"
#include "engine.h"
#include "filter_spec.h"
#include "float_image.h"
#include "fourier.h"
#include "nlm.h"
#include "pyramid.h"
#include "reference/bilateral_reference.h"
#include "reference/fourier_reference.h"
#include "reference/nlm_reference.h"
#include "reference/pyramid_reference.h"

namespace edgewise_test {

using edgewise::AdaptiveParameters;
using edgewise::BilateralParameters;
using edgewise::FilterSpec;
using edgewise::FloatImage;
using edgewise::FourierParameters;
using edgewise::ImageShape;
using edgewise::NlmParameters;
using edgewise::PyramidParameters;
using edgewise_reference::ReferenceImage;

// A fresh seed from std::random_device, or EDGEWISE_TEST_SEED when set, so a
// failure can be replayed. Printed to stdout with the test's name.
uint64_t test_seed();
std::string seed_message(uint64_t seed);

// Declares `rng` seeded by test_seed() and puts the seed into every failure
// message of the enclosing scope.
#define EW_SEEDED_RNG(rng)                                  \
  const uint64_t rng##_seed = ::edgewise_test::test_seed(); \
  SCOPED_TRACE(::edgewise_test::seed_message(rng##_seed));  \
  std::mt19937_64 rng(rng##_seed)

// Why the CUDA backend cannot run here, or "" when it can.
std::string gpu_unavailable_reason();

// Skips the enclosing test, with the reason, where no CUDA device is usable
// (the GPU tests are built everywhere; tests/gpu/run.sh runs them on a GPU).
#define REQUIRE_GPU()                                                   \
  do {                                                                  \
    const std::string why = ::edgewise_test::gpu_unavailable_reason();  \
    if (!why.empty()) GTEST_SKIP() << "no usable CUDA device: " << why; \
  } while (0)

// Every colour mode and range kernel, for tests that run each.
inline constexpr edgewise::ColorMode kModes[] = {edgewise::ColorMode::per_channel, edgewise::ColorMode::rgb,
                                                 edgewise::ColorMode::lab};
inline constexpr edgewise::RangeKernel kKernels[] = {edgewise::RangeKernel::gaussian, edgewise::RangeKernel::tukey,
                                                     edgewise::RangeKernel::lorentz, edgewise::RangeKernel::huber};

enum class Alpha {
  opaque,      // alpha 1 everywhere
  positive,    // smooth random alpha in [0.05, 1]
  with_zeros,  // about a fifth exactly 0, a tenth exactly 1, the rest random
};

struct ImageStyle {
  bool quantize_8bit = false;  // colour samples are k/255
  Alpha alpha = Alpha::with_zeros;
};

// Smooth gradients, a few straight edges across the image, a low-frequency
// ripple and Gaussian noise, in 0..1; colour channels share the edges so
// RGB edges look like object boundaries.
FloatImage random_image(std::mt19937_64& rng, const ImageShape& shape, const ImageStyle& style = {});
FloatImage constant_image(const ImageShape& shape, const float* pixel);
// 3x3 RGBA: a transparent black centre among opaque white pixels and one
// opaque grey of value `far` in the corner. Below a few code values of
// sigma-r every weight of the centre's window underflows float while
// staying a real number: the rescue paths' case.
FloatImage transparent_centre_image(float far);
// The adaptive filter's values that let its first walk decide the output
// on that image: sigma_r' = sqrt(v) exactly (k 1, no floor but 0.002).
AdaptiveParameters variance_only_adaptive();

// The bilateral filter with these values.
FilterSpec make_spec(edgewise::ColorMode mode, edgewise::RangeKernel kernel, float sigma_s, float sigma_r,
                     int radius = 0, int iterations = 1);
// The adaptive filter with `spec`'s bilateral values and these of its own.
FilterSpec adaptive_of(const FilterSpec& spec, const AdaptiveParameters& adaptive = {});
std::string describe(const FilterSpec& spec, const ImageShape& shape);

ReferenceImage to_reference(const FloatImage& image);
edgewise_reference::BilateralSettings reference_settings(const FilterSpec& spec);
ReferenceImage run_reference(const FilterSpec& spec, const FloatImage& image);

// The values of a spec of the bilateral family.
inline BilateralParameters bilateral_of(const FilterSpec& spec) { return edgewise::bilateral_parameters(spec); }

// The nlm filter's values as the double reference takes them, that
// reference run on `image`, and the values with the shape for a trace.
edgewise_reference::NlmSettings reference_settings(const NlmParameters& n);
ReferenceImage run_reference(const NlmParameters& n, const FloatImage& image);
// A made-up estimate of signal-dependent noise for `channels` colour
// channels: per channel a noise level function rising with intensity by a
// random amount, its bins at random intensities, some not measured.
edgewise::NoiseEstimate signal_dependent_noise(std::mt19937_64& rng, int channels);
// The reference's settings for an nlm spec run with `noise` (its auto
// values resolved, the noise profile where h and sigma-n are both auto).
edgewise_reference::NlmSettings reference_settings(const FilterSpec& spec, const edgewise::NoiseEstimate& noise);
std::string describe(const NlmParameters& n, const ImageShape& shape);
// Case `index` of a sweep over modes and kernels: h (0 every fifth case,
// the patch term off), sigma-n, sigma-s and sigma-r (its maximum every
// fourth case, the range term off) varied with the index.
NlmParameters nlm_sweep_case(edgewise::ColorMode mode, edgewise::RangeKernel kernel, int index, int search_radius,
                             int patch_radius);

// The Fourier filter's plan (its series and spatial weights) as its double
// reference takes them, and the values with the shape for a trace.
edgewise_reference::FourierSettings reference_settings(const FourierParameters& f, const ImageShape& shape);
std::string describe(const FourierParameters& f, const ImageShape& shape);
// Case `index` of a sweep over modes and kernels: sigma-s cycled through
// `sigmas`, sigma-r varied with the index (two values in lab, two in
// per-channel), `terms` every fifth case and the automatic N otherwise.
FourierParameters fourier_sweep_case(edgewise::ColorMode mode, edgewise::RangeKernel kernel, int index,
                                     const std::vector<float>& sigmas, int terms);
// The sweep's shape for case `index` (1x1, 1xN, Nx1 and awkward sizes in
// turn), with `channels` channels.
ImageShape fourier_sweep_shape(int index, int channels);

// The pyramid filter's plan (levels, per-level passes and their sigma-r)
// as its double reference takes them, and the values with the shape for a
// trace.
edgewise_reference::PyramidSettings reference_settings(const PyramidParameters& p, const ImageShape& shape);
std::string describe(const PyramidParameters& p, const ImageShape& shape);
// Case `index` of a sweep over modes and kernels at `levels` levels:
// sigma-s, radius, strength, coarse strength, guide and lab's luminance and
// colour strengths (0 every seventh and eleventh case) varied with the index.
PyramidParameters pyramid_sweep_case(edgewise::ColorMode mode, edgewise::RangeKernel kernel, int index, int levels);

// run_filter on the CPU backend with the given options (backend forced to cpu).
FloatImage run_cpu(const FilterSpec& spec, const FloatImage& image, edgewise::RunOptions options = {});
// run_filter on the CPU backend from and into whole f32 buffers in memory
// (the CLI's and the plug-in's path; run_cpu streams rows).
FloatImage run_cpu_buffers(const FilterSpec& spec, const FloatImage& image);
// run_filter on the CUDA backend, rows streamed, within `budget` bytes of
// GPU memory (REQUIRE_GPU first).
// `noise`: RunOptions::noise, for parameters at auto.
FloatImage run_gpu(const FilterSpec& spec, const FloatImage& image, size_t budget = size_t(1) << 30,
                   const edgewise::NoiseEstimate* noise = nullptr);
// The same from and into whole f32 buffers in memory (the raw-buffer path:
// float samples uploaded as they are).
FloatImage run_gpu_buffers(const FilterSpec& spec, const FloatImage& image, size_t budget = size_t(1) << 30);

struct Difference {
  double max_abs = 0.0;
  int x = 0, y = 0, c = 0;
  double expected = 0.0, got = 0.0;
  std::string describe() const;
};

Difference max_difference(const ReferenceImage& expected, const FloatImage& got);
Difference max_difference(const FloatImage& expected, const FloatImage& got);
bool bit_identical(const FloatImage& a, const FloatImage& b);

struct Comparison {
  Difference worst;          // the largest difference over the tolerance
  double window_weight = 0;  // reference total weight at worst (first pass)
  double largest_tap = 0;    // and its largest single tap weight
  std::string describe() const;
};

// Compares `got` with the double reference for `spec` applied to `input`.
Comparison compare_with_reference(const FilterSpec& spec, const FloatImage& input, const FloatImage& got,
                                  double tolerance);
// Compares two backends' outputs for the same job (CPU vs CUDA).
Comparison compare_backends(const FilterSpec& spec, const FloatImage& input, const FloatImage& expected,
                            const FloatImage& got, double tolerance);

}  // namespace edgewise_test
