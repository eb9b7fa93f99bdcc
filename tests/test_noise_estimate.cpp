// The noise estimator (core/noise_estimate.h) on images of known noise:
// flat areas, ramps and shading, a strong texture beside a flat area, and
// the photos of tests/data with noise added as a file would hold it
// (rounded, clipped to 0..255); white noise sigma 2-40 and Poisson-Gaussian
// noise. Bounds are issue 16's: the estimate within 10 % (or 0.5 code
// values, whichever is larger) of the true sigma, each measured bin of the
// noise level function within 15 %. Every case prints its seed. Also: the
// clipped-noise model against sampling, sample types, alpha, threads, the
// row-source entry and the strips of a large image.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "clipped_noise.h"
#include "float_image.h"
#include "image_buffer.h"
#include "noise_estimate.h"
#include "opponent_color.h"

#if EDGEWISE_HAVE_CLI_IO
#include "image_file.h"
#endif

namespace {

using namespace edgewise;

// A clean image in code values (0-255, any real value), channels interleaved.
struct Clean {
  int width = 0, height = 0, channels = 1;
  std::vector<double> values;
  double& at(int x, int y, int c) { return values[(size_t(y) * width + x) * channels + c]; }
};

Clean make_clean(int width, int height, int channels, const std::function<double(int x, int y, int c)>& value) {
  Clean clean{width, height, channels, std::vector<double>(size_t(width) * height * channels)};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) clean.at(x, y, c) = value(x, y, c);
  return clean;
}

// Noise of variance gain * I + floor (code values) on every sample: white
// noise is gain 0. As a file holds it: rounded and clipped to 0..255.
std::vector<uint8_t> noisy_8bit(const Clean& clean, double gain, double floor, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<uint8_t> out(clean.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double v = clean.values[i] + std::sqrt(std::max(0.0, gain * clean.values[i] + floor)) * normal(rng);
    out[i] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
  }
  return out;
}

// Unrounded, unclipped: floats on the 0..1 scale.
std::vector<float> noisy_float(const Clean& clean, double sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  std::vector<float> out(clean.values.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = float((clean.values[i] + normal(rng)) / 255.0);
  return out;
}

// These tests hold the statistical model (the learned reading has its own,
// test_learned_noise.cpp): every estimate here asks for it.
NoiseEstimateOptions statistical_only(NoiseEstimateOptions options = {}) {
  options.reading = NoiseReadingChoice::statistical;
  return options;
}

NoiseEstimate estimate_8bit(const std::vector<uint8_t>& samples, int width, int height, int channels,
                            const NoiseEstimateOptions& options = {}) {
  return estimate_noise(ImageBuffer{const_cast<uint8_t*>(samples.data()), {width, height, channels}, SampleType::u8, 0},
                        statistical_only(options));
}

double white_bound(double sigma) { return std::max(0.1 * sigma, 0.5); }

std::string seed_text(unsigned seed) { return "seed " + std::to_string(seed) + " (std::mt19937, normal)"; }

// Every measured bin within 15 % of sqrt(gain * I + floor) at its
// intensity; returns how many were measured.
int check_noise_level_function(const NoiseEstimate& estimate, double gain, double floor) {
  int measured = 0;
  for (size_t c = 0; c < estimate.channels.size(); ++c)
    for (const NoiseLevelBin& bin : estimate.channels[c].bins) {
      if (!bin.valid) continue;
      ++measured;
      const double truth = std::sqrt(gain * bin.intensity + floor);
      EXPECT_NEAR(bin.sigma, truth, 0.15 * truth) << "channel " << c << ", bin at intensity " << bin.intensity;
    }
  return measured;
}

TEST(ClippedNoise, MomentsMatchSampling) {
  std::mt19937 rng(11);
  for (double sigma : {5.0, 20.0, 60.0})
    for (double mu : {-10.0, 0.0, 8.0, 30.0, 128.0, 240.0, 262.0}) {
      std::normal_distribution<double> normal(mu, sigma);
      double sum = 0, square = 0;
      const int count = 400000;
      for (int i = 0; i < count; ++i) {
        const double v = std::clamp(normal(rng), 0.0, 255.0);
        sum += v;
        square += v * v;
      }
      const double mean = sum / count, variance = square / count - mean * mean;
      const ClippedMoments moments = clipped_moments(mu, sigma, ClipLimits{true, true});
      SCOPED_TRACE("mu " + std::to_string(mu) + " sigma " + std::to_string(sigma) + ", seed 11");
      EXPECT_NEAR(moments.mean, mean, 0.01 * sigma);
      EXPECT_NEAR(moments.variance, variance, 0.02 * sigma * sigma);
    }
}

TEST(ClippedNoise, UnclipInvertsTheMoments) {
  for (const ClipLimits limits : {ClipLimits{true, false}, ClipLimits{false, true}, ClipLimits{true, true}})
    for (double sigma : {1.0, 10.0, 45.0})
      for (double mu = -0.5 * sigma; mu <= 255 + 0.5 * sigma; mu += 0.37 * sigma) {
        const ClippedMoments moments = clipped_moments(mu, sigma, limits);
        const Unclipped back = unclip(moments.mean, sigma, limits);
        // Where clipping takes most of the variance the estimator skips the
        // block; the model must still be right down to a share of 0.5.
        if (moments.variance < 0.5 * sigma * sigma) continue;
        SCOPED_TRACE("mu " + std::to_string(mu) + " sigma " + std::to_string(sigma));
        EXPECT_NEAR(back.mu, mu, 2e-3 * sigma);
        EXPECT_NEAR(back.share, moments.variance / (sigma * sigma), 1e-3);
      }
  EXPECT_EQ(unclip(100.0, 10.0, ClipLimits{true, true}).share, 1.0);  // 10 sigma from both
  EXPECT_EQ(unclip(0.0, 10.0, ClipLimits{true, false}).share, 0.0);   // all at the limit
  EXPECT_EQ(unclip(3.0, 10.0, ClipLimits{false, false}).share, 1.0);  // no limit reached
}

TEST(NoiseEstimate, PureWhiteNoiseOnFlatAreas) {
  for (double level : {30.0, 128.0, 220.0})
    for (double sigma : {2.0, 5.0, 10.0, 20.0, 40.0}) {
      const unsigned seed = 100 + unsigned(sigma) + unsigned(level);
      SCOPED_TRACE("flat " + std::to_string(level) + ", sigma " + std::to_string(sigma) + ", " + seed_text(seed));
      const Clean clean = make_clean(320, 256, 1, [&](int, int, int) { return level; });
      const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, 0, sigma * sigma, seed), 320, 256, 1);
      ASSERT_TRUE(estimate.valid());
      // No texture at all: only the sampling error of 1200 blocks (and the
      // rounding's 1/12) remains, so this holds far inside the target.
      EXPECT_NEAR(estimate.sigma(), std::sqrt(sigma * sigma + 1.0 / 12), 0.03 * sigma);
      EXPECT_NEAR(estimate.sigma(), sigma, white_bound(sigma));
    }
}

TEST(NoiseEstimate, NoiseFreeImagesReadZero) {
  const Clean flat = make_clean(64, 64, 3, [](int, int, int c) { return 40.0 + 50 * c; });
  const NoiseEstimate estimate = estimate_8bit(noisy_8bit(flat, 0, 0, 1), 64, 64, 3);
  ASSERT_TRUE(estimate.valid());
  EXPECT_EQ(estimate.sigma(), 0.0);
}

TEST(NoiseEstimate, RampsAndShadingAreNotNoise) {
  // A diagonal ramp of 0.4 code values per pixel and a bowl-shaped shading
  // of 60 code values across the image, both far above the noise in
  // gradient energy at sigma 2.
  const auto ramp = [](int x, int y, int) { return 20.0 + 0.4 * x + 0.25 * y; };
  const auto bowl = [](int x, int y, int) {
    const double u = (x - 200) / 200.0, v = (y - 150) / 150.0;
    return 90.0 + 60.0 * (u * u + v * v);
  };
  for (const auto& shape : {std::function<double(int, int, int)>(ramp), std::function<double(int, int, int)>(bowl)})
    for (double sigma : {2.0, 5.0, 20.0}) {
      const unsigned seed = 300 + unsigned(sigma);
      SCOPED_TRACE("sigma " + std::to_string(sigma) + ", " + seed_text(seed));
      const Clean clean = make_clean(400, 300, 1, shape);
      const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, 0, sigma * sigma, seed), 400, 300, 1);
      ASSERT_TRUE(estimate.valid());
      EXPECT_NEAR(estimate.sigma(), sigma, white_bound(sigma));
    }
}

TEST(NoiseEstimate, StrongTextureIsNotReadAsNoise) {
  // The left half: stripes 4 px wide of +-40 code values and a fine
  // checkerboard of +-15 over them; the right half flat. Any estimator that
  // averages over the image reads tens of code values here.
  const auto textured = [](int x, int y, int) {
    if (x >= 200) return 120.0;
    return 120.0 + ((x / 4) % 2 ? 40.0 : -40.0) + ((x + y) % 2 ? 15.0 : -15.0);
  };
  for (double sigma : {2.0, 5.0, 10.0}) {
    const unsigned seed = 400 + unsigned(sigma);
    SCOPED_TRACE("sigma " + std::to_string(sigma) + ", " + seed_text(seed));
    const Clean clean = make_clean(400, 256, 1, textured);
    const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, 0, sigma * sigma, seed), 400, 256, 1);
    ASSERT_TRUE(estimate.valid());
    EXPECT_NEAR(estimate.sigma(), sigma, white_bound(sigma));
  }
}

TEST(NoiseEstimate, PoissonGaussianOnARamp) {
  // Every intensity from 10 to 245 present in flat-enough areas: every bin
  // is measured, each within 15 % of the noise level function there.
  const Clean clean = make_clean(512, 384, 1, [](int x, int, int) { return 10.0 + 235.0 * x / 511; });
  for (double mid_sigma : {5.0, 10.0, 20.0, 30.0}) {
    const double floor = std::pow(0.3 * mid_sigma, 2), gain = (mid_sigma * mid_sigma - floor) / 128.0;
    const unsigned seed = 500 + unsigned(mid_sigma);
    SCOPED_TRACE("sigma at 128: " + std::to_string(mid_sigma) + ", " + seed_text(seed));
    const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, gain, floor, seed), 512, 384, 1);
    ASSERT_TRUE(estimate.valid());
    EXPECT_EQ(check_noise_level_function(estimate, gain, floor), 8);
    // The function grows with intensity as the noise does.
    const ChannelNoise& channel = estimate.channels[0];
    EXPECT_LT(channel.sigma_at(40), channel.sigma_at(200));
  }
}

TEST(NoiseEstimate, SampleTypesAgree) {
  const Clean clean = make_clean(200, 160, 3, [](int x, int y, int c) { return 60.0 + 0.3 * x + 0.2 * y + 20 * c; });
  const std::vector<uint8_t> bytes = noisy_8bit(clean, 0, 64, 7);
  std::vector<uint16_t> words(bytes.size());
  std::vector<float> floats(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    words[i] = uint16_t(bytes[i] * 257);
    floats[i] = bytes[i] / 255.0f;
  }
  const ImageShape shape{200, 160, 3};
  const NoiseEstimate from_bytes = estimate_8bit(bytes, 200, 160, 3);
  const NoiseEstimate from_words =
      estimate_noise(ImageBuffer{words.data(), shape, SampleType::u16, 0}, statistical_only());
  const NoiseEstimate from_floats =
      estimate_noise(ImageBuffer{floats.data(), shape, SampleType::f32, 0}, statistical_only());
  ASSERT_TRUE(from_bytes.valid());
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(from_words.channels[c].sigma, from_bytes.channels[c].sigma, 1e-3);
    EXPECT_NEAR(from_floats.channels[c].sigma, from_bytes.channels[c].sigma, 1e-3);
  }
}

TEST(NoiseEstimate, FloatsBeyondTheLimitsAreNotClipped) {
  // A dark flat area in float with noise reaching below 0 and unclipped: the
  // clipped-noise model must stay out of it.
  const Clean clean = make_clean(256, 256, 1, [](int, int, int) { return 10.0; });
  const std::vector<float> floats = noisy_float(clean, 20.0, 17);
  const NoiseEstimate estimate = estimate_noise(
      ImageBuffer{const_cast<float*>(floats.data()), {256, 256, 1}, SampleType::f32, 0}, statistical_only());
  ASSERT_TRUE(estimate.valid());
  EXPECT_NEAR(estimate.sigma(), 20.0, white_bound(20.0));
}

TEST(NoiseEstimate, TransparentPixelsAreIgnored) {
  // Grey + alpha and RGBA: under alpha 0, wild values (a sawtooth of 0 and
  // 255), which an estimator looking there would read as huge noise.
  for (int channels : {2, 4}) {
    const int colours = channels - 1;
    const Clean clean = make_clean(256, 256, channels, [&](int x, int y, int c) {
      const bool transparent = x < 128;
      if (c == colours) return transparent ? 0.0 : 255.0;
      return transparent ? ((x + y) % 2 ? 255.0 : 0.0) : 100.0 + 30 * c;
    });
    std::vector<uint8_t> noisy = noisy_8bit(clean, 0, 25, 21);
    for (size_t i = colours; i < noisy.size(); i += channels) noisy[i] = clean.values[i] > 0 ? 255 : 0;
    SCOPED_TRACE(std::to_string(channels) + " channels, " + seed_text(21));
    const NoiseEstimate estimate = estimate_8bit(noisy, 256, 256, channels);
    ASSERT_EQ(int(estimate.channels.size()), colours);
    ASSERT_TRUE(estimate.valid());
    EXPECT_NEAR(estimate.sigma(), 5.0, white_bound(5.0));
  }
}

TEST(NoiseEstimate, ThreadsAndRowSourceGiveTheSameResult) {
  const Clean clean = make_clean(300, 200, 3, [](int x, int y, int c) { return 30.0 + 0.5 * x + 0.2 * y + 10 * c; });
  const std::vector<uint8_t> noisy = noisy_8bit(clean, 0.05, 9, 31);
  const ImageBuffer buffer{const_cast<uint8_t*>(noisy.data()), {300, 200, 3}, SampleType::u8, 0};
  NoiseEstimateOptions one_thread = statistical_only();
  one_thread.threads = 1;
  const NoiseEstimate reference = estimate_noise(buffer, one_thread);
  NoiseEstimateOptions three_threads = statistical_only();
  three_threads.threads = 3;
  // The row source is read in increasing order, as a plug-in's tiles are.
  struct Rows : PixelSource {
    explicit Rows(const ImageBuffer& buffer) : source(buffer) {}
    void read_rows(int y, int rows, float* dst) override {
      EXPECT_GE(y, next - 2);
      next = y + rows;
      source.read_rows(y, rows, dst);
    }
    BufferSource source;
    int next = 0;
  } rows(buffer);
  for (const NoiseEstimate& other :
       {estimate_noise(buffer, three_threads), estimate_noise(rows, buffer.shape, three_threads)}) {
    ASSERT_EQ(other.channels.size(), reference.channels.size());
    for (size_t c = 0; c < other.channels.size(); ++c) {
      EXPECT_EQ(other.channels[c].sigma, reference.channels[c].sigma);
      ASSERT_EQ(other.channels[c].bins.size(), reference.channels[c].bins.size());
      for (size_t b = 0; b < other.channels[c].bins.size(); ++b)
        EXPECT_EQ(other.channels[c].bins[b].sigma, reference.channels[c].bins[b].sigma);
    }
  }
}

TEST(NoiseEstimate, LargeImagesAreMeasuredOnStrips) {
  // 3000 x 2000 is above the 32768 blocks measured in full: strips of it.
  const Clean clean = make_clean(3000, 2000, 1, [](int x, int y, int) { return 40.0 + 0.05 * x + 0.03 * y; });
  const unsigned seed = 41;
  SCOPED_TRACE(seed_text(seed));
  const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, 0, 100, seed), 3000, 2000, 1);
  ASSERT_TRUE(estimate.valid());
  EXPECT_NEAR(estimate.sigma(), std::sqrt(100 + 1.0 / 12), 0.03 * 10);
  EXPECT_LE(estimate.channels[0].blocks, 1 << 15);
  EXPECT_GT(estimate.channels[0].blocks, 1 << 14);
}

// Too few flat blocks: the MAD rule gives a number and says so; an image
// without a single 2x2 cell has none.
TEST(NoiseEstimate, TooSmallImagesFallBackOnTheMadRule) {
  const Clean clean = make_clean(9, 9, 3, [](int, int, int) { return 100.0; });
  const unsigned seed = 1;
  SCOPED_TRACE(seed_text(seed));
  const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, 0, 25, seed), 9, 9, 3);
  EXPECT_TRUE(estimate.valid());
  EXPECT_TRUE(estimate.fallback);
  EXPECT_FALSE(estimate.measured());
  EXPECT_NE(estimate.fallback_reason.find("9x9"), std::string::npos) << estimate.fallback_reason;
  // 16 cells per channel: a rough number, but the noise's order.
  EXPECT_GT(estimate.sigma(), 2.0);
  EXPECT_LT(estimate.sigma(), 12.0);
  ASSERT_EQ(estimate.opponent.size(), 3u);
  std::vector<uint8_t> one{7, 8, 9};
  const NoiseEstimate single = estimate_8bit(one, 1, 1, 3);
  EXPECT_FALSE(single.valid());
  EXPECT_TRUE(single.fallback);
  EXPECT_EQ(single.sigma(), 0.0);
  std::vector<uint8_t> bytes(16);
  EXPECT_THROW(estimate_noise(ImageBuffer{bytes.data(), {4, 4, 0}, SampleType::u8, 0}), std::invalid_argument);
  EXPECT_THROW(estimate_noise(ImageBuffer{bytes.data(), {0, 4, 1}, SampleType::u8, 0}), std::invalid_argument);
  EXPECT_THROW(estimate_noise(ImageBuffer{bytes.data(), {2, 2, 5}, SampleType::u8, 0}), std::invalid_argument);
}

// Noise of a known spectrum: white noise blurred by a sampled Gaussian of
// `blur` px, scaled to deviation `sigma` (measured on the field itself),
// one field per channel.
std::vector<double> blurred_field(int width, int height, double blur, double sigma, std::mt19937& rng) {
  std::normal_distribution<double> unit(0.0, 1.0);
  const int radius = int(std::ceil(4 * blur));
  std::vector<double> taps(size_t(2 * radius + 1));
  double sum = 0;
  for (int i = -radius; i <= radius; ++i) sum += taps[size_t(i + radius)] = std::exp(-0.5 * i * i / (blur * blur));
  for (double& t : taps) t /= sum;
  const int pw = width + 2 * radius, ph = height + 2 * radius;
  std::vector<double> white(size_t(pw) * ph), rows(size_t(width) * ph), out(size_t(width) * height);
  for (double& v : white) v = unit(rng);
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < width; ++x) {
      double acc = 0;
      for (int k = 0; k <= 2 * radius; ++k) acc += taps[size_t(k)] * white[size_t(y) * pw + x + k];
      rows[size_t(y) * width + x] = acc;
    }
  double square = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double acc = 0;
      for (int k = 0; k <= 2 * radius; ++k) acc += taps[size_t(k)] * rows[size_t(y + k) * width + x];
      out[size_t(y) * width + x] = acc;
      square += acc * acc;
    }
  const double scale = sigma / std::sqrt(square / double(out.size()));
  for (double& v : out) v *= scale;
  return out;
}

// Correlated noise (demosaiced, resized, blurred) is read whole: the
// finest scale alone sees a fraction of it.
TEST(NoiseEstimate, CorrelatedNoiseIsMeasuredWhole) {
  for (const double blur : {0.7, 1.0}) {
    const unsigned seed = unsigned(500 + 10 * blur);
    SCOPED_TRACE("blur " + std::to_string(blur) + ", " + seed_text(seed));
    std::mt19937 rng(seed);
    const int width = 480, height = 360;
    const std::vector<double> field = blurred_field(width, height, blur, 12.0, rng);
    std::vector<uint8_t> noisy(field.size());
    double square = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const size_t i = size_t(y) * width + x;
        const double clean = 60.0 + 0.2 * x + 0.1 * y;
        noisy[i] = uint8_t(std::clamp(std::lround(clean + field[i]), 0L, 255L));
        square += (noisy[i] - clean) * (noisy[i] - clean);
      }
    const double truth = std::sqrt(square / double(noisy.size()));
    const NoiseEstimate estimate = estimate_8bit(noisy, width, height, 1);
    ASSERT_TRUE(estimate.measured());
    const ChannelNoise& channel = estimate.channels[0];
    EXPECT_NEAR(channel.sigma, truth, 0.15 * truth);
    // What the finest scale alone reads: far less (the estimate before
    // the spectrum).
    double reading = 0;
    for (const NoiseLevelBin& bin : channel.bins)
      if (bin.valid) reading = std::max(reading, bin.reading);
    EXPECT_LT(reading, 0.6 * truth);
    EXPECT_LT(channel.spectrum.shares[0], 0.5) << "a white spectrum for correlated noise";
    EXPECT_GT(channel.correlation, 3.0);
  }
}

// Colour noise as a camera's colour matrix and JPEG's chroma make it:
// white luma, strong blurred chroma. The opponent channels see each part.
TEST(NoiseEstimate, OpponentChannelsSeeColourNoise) {
  const unsigned seed = 611;
  SCOPED_TRACE(seed_text(seed));
  std::mt19937 rng(seed);
  const int width = 480, height = 360;
  const std::vector<double> luma = blurred_field(width, height, 0.3, 4.0, rng);
  const std::vector<double> c1 = blurred_field(width, height, 1.0, 12.0, rng);
  const std::vector<double> c2 = blurred_field(width, height, 1.0, 12.0, rng);
  std::vector<uint8_t> noisy(size_t(width) * height * 3);
  double squares[6] = {0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < luma.size(); ++i) {
    double n[3];
    opponent_to_rgb(luma[i], c1[i], c2[i], n[0], n[1], n[2]);
    const int x = int(i % size_t(width));
    for (int c = 0; c < 3; ++c) {
      const double clean = 90.0 + 20 * c + 0.1 * x;
      noisy[3 * i + size_t(c)] = uint8_t(std::clamp(std::lround(clean + n[c]), 0L, 255L));
      const double held = noisy[3 * i + size_t(c)] - clean;
      squares[c] += held * held;
    }
    squares[3] += luma[i] * luma[i];
    squares[4] += c1[i] * c1[i];
    squares[5] += c2[i] * c2[i];
  }
  const NoiseEstimate estimate = estimate_8bit(noisy, width, height, 3);
  ASSERT_TRUE(estimate.measured());
  ASSERT_EQ(estimate.opponent.size(), 3u);
  for (int c = 0; c < 6; ++c) {
    const ChannelNoise& channel = c < 3 ? estimate.channels[size_t(c)] : estimate.opponent[size_t(c - 3)];
    const double truth = std::sqrt(squares[c] / double(luma.size()));
    EXPECT_NEAR(channel.sigma, truth, 0.2 * truth) << channel.name;
  }
  EXPECT_EQ(estimate.opponent[0].name, "Y");
  EXPECT_GT(estimate.opponent[0].spectrum.shares[0], estimate.opponent[1].spectrum.shares[0]);
}

// White noise keeps a white spectrum: the coarse scales' shading is not
// read as blotches.
TEST(NoiseEstimate, WhiteNoiseKeepsAWhiteSpectrum) {
  const Clean clean = make_clean(400, 300, 3, [](int x, int y, int c) { return 50.0 + 0.3 * x + 0.2 * y + 5 * c; });
  const unsigned seed = 77;
  SCOPED_TRACE(seed_text(seed));
  const NoiseEstimate estimate = estimate_8bit(noisy_8bit(clean, 0, 100, seed), 400, 300, 3);
  for (const auto* set : {&estimate.channels, &estimate.opponent})
    for (const ChannelNoise& channel : *set) {
      EXPECT_GT(channel.spectrum.shares[0], 0.95) << channel.name;
      EXPECT_LT(channel.correlation, 1.5) << channel.name;
      EXPECT_NEAR(channel.sigma, 10.0, 1.0) << channel.name;
    }
}

TEST(NoiseEstimate, NoiseLevelFunctionInterpolates) {
  ChannelNoise channel;
  channel.valid = true;
  channel.sigma = 7;
  channel.bins = {{50, 4, 20, true}, {100, 99, 0, false}, {150, 8, 20, true}};
  EXPECT_DOUBLE_EQ(channel.sigma_at(10), 4);
  EXPECT_DOUBLE_EQ(channel.sigma_at(100), 6);
  EXPECT_DOUBLE_EQ(channel.sigma_at(250), 8);
  NoiseEstimate estimate;
  estimate.channels = {channel, channel, channel};
  estimate.channels[0].sigma = 3;
  estimate.channels[2].sigma = 9;
  EXPECT_DOUBLE_EQ(estimate.sigma(), 7);  // the median
  estimate.channels[1].valid = false;
  EXPECT_DOUBLE_EQ(estimate.sigma(), 6);  // of the two left
}

#if EDGEWISE_HAVE_CLI_IO

struct Photo {
  Clean clean;
  std::string name;
};

Photo load_photo(const std::string& name) {
  const edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/") + name);
  Photo photo{{file.width, file.height, file.channels, std::vector<double>(file.bytes.begin(), file.bytes.end())},
              name};
  return photo;
}

TEST(NoiseEstimatePhotos, WhiteNoise) {
  for (const char* name : {"astronaut.png", "camera.png"}) {
    const Photo photo = load_photo(name);
    for (double sigma : {2.0, 5.0, 10.0, 20.0, 30.0, 40.0}) {
      const unsigned seed = 2026 + unsigned(sigma);
      SCOPED_TRACE(std::string(name) + ", white sigma " + std::to_string(sigma) + ", " + seed_text(seed));
      const NoiseEstimate estimate = estimate_8bit(noisy_8bit(photo.clean, 0, sigma * sigma, seed), photo.clean.width,
                                                   photo.clean.height, photo.clean.channels);
      ASSERT_TRUE(estimate.valid());
      std::printf("%s, white sigma %g, %s: %.2f\n", name, sigma, seed_text(seed).c_str(), estimate.sigma());
      EXPECT_NEAR(estimate.sigma(), sigma, white_bound(sigma));
      for (const ChannelNoise& channel : estimate.channels) EXPECT_NEAR(channel.sigma, sigma, white_bound(sigma));
    }
  }
}

TEST(NoiseEstimatePhotos, PoissonGaussianNoise) {
  // sigma^2 = gain * I + floor with a read-noise floor of 0.3 x the sigma
  // at mid-grey.
  for (const char* name : {"astronaut.png", "camera.png"}) {
    const Photo photo = load_photo(name);
    int measured = 0, bins = 0;
    for (double mid_sigma : {5.0, 10.0, 20.0, 30.0, 40.0}) {
      const double floor = std::pow(0.3 * mid_sigma, 2), gain = (mid_sigma * mid_sigma - floor) / 128.0;
      const unsigned seed = 4052 + unsigned(mid_sigma);
      SCOPED_TRACE(std::string(name) + ", sigma at 128: " + std::to_string(mid_sigma) + ", " + seed_text(seed));
      const NoiseEstimate estimate = estimate_8bit(noisy_8bit(photo.clean, gain, floor, seed), photo.clean.width,
                                                   photo.clean.height, photo.clean.channels);
      ASSERT_TRUE(estimate.valid());
      std::printf("%s, Poisson-Gaussian sigma %g at 128, %s: %.2f\n", name, mid_sigma, seed_text(seed).c_str(),
                  estimate.sigma());
      measured += check_noise_level_function(estimate, gain, floor);
      for (const ChannelNoise& channel : estimate.channels) bins += int(channel.bins.size());
    }
    // Texture leaves some bins unmeasured at low noise; most are measured.
    EXPECT_GE(measured, bins / 2) << name;
  }
}

#else

TEST(NoiseEstimatePhotos, NotAvailable) {
  GTEST_SKIP() << "the CLI's image readers (libpng) were not built, so the photos of tests/data cannot be read";
}

#endif

}  // namespace
