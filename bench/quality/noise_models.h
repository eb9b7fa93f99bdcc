// The noise the quality evaluation adds to clean photos, written once for
// the tools of bench/quality (quality, auto_quality, noise_accuracy) and the
// quality tests (tests/test_quality.cpp), so that a claim measured by a tool
// and the test that guards it see the same noisy image for the same seed.
// Plain buffers, no OpenCV: the tests build where the benchmarks' peers are
// not installed.
//
// Images are 8-bit samples, interleaved, rows without padding; noise is
// drawn in memory order (std::mt19937, std::normal_distribution), added to
// each sample, rounded and clipped to 0..255, as an 8-bit file holds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace edgewise_noise {

// Signal-dependent noise of variance gain * I + floor at sample value I
// (code values). White noise of deviation sigma is gain 0, floor sigma^2.
struct NoiseLevel {
  double gain = 0, floor = 0;
};
NoiseLevel white_level(double sigma);
// Poisson-Gaussian noise of deviation sigma at I = 128 with a read-noise
// floor of (0.3 sigma)^2: from 0.3 sigma at black to 1.4 sigma at white
// (docs/quality.md, "Automatic parameters").
NoiseLevel poisson_gaussian_level(double sigma_at_128);

// In place, on `count` samples, from `seed`.
void add_noise(uint8_t* samples, size_t count, const NoiseLevel& level, unsigned seed);

// A noise field: one double per sample, in the image's memory order.
struct Field {
  int width = 0, height = 0, channels = 0;
  std::vector<double> values;
};

// White noise of deviation 1 per sample, blurred per channel by a Gaussian
// of deviation `blur` px (0: none; the kernel and borders of OpenCV's
// GaussianBlur on doubles: 2 round(4 blur) + 1 taps, edges reflected with
// the edge sample repeated), then scaled so the deviation over all samples
// is `sigma`.
Field correlated_field(int width, int height, int channels, double blur, double sigma, std::mt19937& rng);

// Colour noise of a camera's YCbCr: white in Y (deviation sigma_y), Cb and
// Cr of deviation 2 sigma_y, blurred by `chroma_blur` px first when > 0
// (colour blotches), converted to R'G'B' offsets by BT.601.
enum class ChannelOrder { rgb, bgr };
Field ycc_field(int width, int height, double sigma_y, double chroma_blur, ChannelOrder order, std::mt19937& rng);

// The standard deviation over all of a field's samples.
double field_sigma(const Field& field);

// In place: each sample plus its field value, rounded and clipped.
void add_field(uint8_t* samples, const Field& field);

// bench/quality's correlated cases for one photo (EDGEWISE_QUALITY_NOISE=
// correlated), drawn in this order from one generator seeded 2026: blur 1
// and 2 px at sigma 10 and 20, then for colour photos YCbCr and YCbCr
// blotches at sigma_y 5 and 10. `sigma` is the field's deviation per
// sample rounded to 0.1 (the grid's unit).
struct CorrelatedCase {
  std::string label;  // "blur 1 px", "YCbCr blotches sigma_Y 10"
  double sigma = 0;
  Field field;
};
std::vector<CorrelatedCase> correlated_cases(int width, int height, int channels, ChannelOrder order);

}  // namespace edgewise_noise
