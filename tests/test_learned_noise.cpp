// The learned noise reading (core/learned_noise.h): how the network's
// per-cell variances become the noise model, checked on hand-built
// networks whose map is known exactly (a 1x1 convolution: each pixel its
// own cell), the refusals, and what it reads: only the sampled tiles' rows,
// in increasing order. The shipped network's own outputs are checked in
// test_noise_net_shipped.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "image_buffer.h"
#include "learned_noise.h"
#include "noise_spectrum.h"

namespace edgewise {
namespace {

const char* const kNames[] = {"R0", "R1", "R2", "G0",  "G1",  "G2",  "B0",  "B1",  "B2",
                              "Y0", "Y1", "Y2", "C10", "C11", "C12", "C20", "C21", "C22"};

// A network of one 1x1 convolution whose output o = bias + w . (rgb - 0.5).
NoiseNet one_by_one(const std::vector<float>& bias, const std::vector<float>& weights = {}) {
  NoiseNet net;
  net.tile = 64;
  net.outputs = kNoiseMapOutputs;
  net.output_names.assign(std::begin(kNames), std::end(kNames));
  NoiseNetLayer layer;
  layer.in = 3;
  layer.out = kNoiseMapOutputs;
  layer.kernel = 1;
  layer.stride = 1;
  layer.relu = false;
  layer.bias = bias;
  layer.weights = weights.empty() ? std::vector<float>(size_t(3 * kNoiseMapOutputs), 0.0f) : weights;
  net.layers.push_back(layer);
  prepare_noise_net(net);
  return net;
}

// Per plane the variance at scale 0, each scale's box variance following `part`'s spectrum.
std::vector<float> constant_map(const double (&variances)[6], int part) {
  std::vector<float> bias;
  for (double v : variances)
    for (int s = 0; s < 3; ++s) bias.push_back(float(std::log(v * part_covariance(part, s, 0, 0))));
  return bias;
}

std::vector<float> random_image(int width, int height, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> pixels(size_t(width) * size_t(height) * size_t(channels));
  for (float& p : pixels) p = unit(rng);
  return pixels;
}

LearnedReading read(const NoiseNet& net, std::vector<float>& pixels, const ImageShape& shape) {
  BufferSource source(ImageBuffer{pixels.data(), shape, SampleType::f32, 0});
  return read_noise_with_net(net, source, shape, 2);
}

TEST(LearnedNoise, AConstantMapIsTheModelsLevelsAndWhiteSpectrum) {
  const double variances[6] = {16, 25, 36, 49, 64, 81};
  const NoiseNet net = one_by_one(constant_map(variances, 0));
  std::vector<float> pixels = random_image(300, 200, 3, 1);
  const LearnedReading reading = read(net, pixels, {300, 200, 3});
  ASSERT_TRUE(reading.sure) << reading.unsure_reason;
  EXPECT_EQ(reading.tiles, 4 * 3);  // whole 64 px tiles: 4 across, 3 down
  EXPECT_EQ(reading.estimate.reading, NoiseReading::learned);
  ASSERT_EQ(reading.estimate.channels.size(), 3u);
  ASSERT_EQ(reading.estimate.opponent.size(), 3u);
  for (size_t p = 0; p < 6; ++p) {
    const ChannelNoise& c = p < 3 ? reading.estimate.channels[p] : reading.estimate.opponent[p - 3];
    const char* const planes[] = {"R", "G", "B", "Y", "C1", "C2"};
    EXPECT_EQ(c.name, planes[p]);
    EXPECT_NEAR(c.sigma, std::sqrt(variances[p]), 1e-5 * std::sqrt(variances[p]));
    EXPECT_NEAR(c.spectrum.shares[0], 1.0, 1e-6);
    int counted = 0;
    for (const NoiseLevelBin& bin : c.bins) {
      EXPECT_TRUE(bin.valid);
      EXPECT_NEAR(bin.sigma, std::sqrt(variances[p]), 1e-5 * std::sqrt(variances[p]));
      counted += bin.blocks;
    }
    EXPECT_EQ(counted, 12 * 64 * 64);  // every cell of every tile in one bin
    EXPECT_EQ(c.bins.size(), 8u);
  }
}

TEST(LearnedNoise, BoxVariancesOfABlurredPartGiveThatPart) {
  for (int part = 1; part < kSpectrumParts; ++part) {
    const double variances[6] = {9, 9, 9, 9, 9, 9};
    const NoiseNet net = one_by_one(constant_map(variances, part));
    std::vector<float> pixels = random_image(128, 128, 3, 2);
    const LearnedReading reading = read(net, pixels, {128, 128, 3});
    ASSERT_TRUE(reading.sure);
    for (const ChannelNoise& c : reading.estimate.channels) {
      EXPECT_NEAR(c.spectrum.shares[size_t(part)], 1.0, 1e-4) << "part " << part;
      EXPECT_NEAR(c.sigma, 3.0, 1e-5);
    }
  }
}

// log variance = log 25 + 2 (R - 0.5): the level function follows red.
TEST(LearnedNoise, BinsFollowTheIntensityTheMapDependsOn) {
  std::vector<float> bias(kNoiseMapOutputs, float(std::log(25.0)));
  std::vector<float> weights(size_t(3 * kNoiseMapOutputs), 0.0f);
  weights[0] = 2.0f;  // output R0, input R
  const NoiseNet net = one_by_one(bias, weights);
  const int width = 256, height = 128;
  std::vector<float> pixels(size_t(width) * height * 3, 0.5f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) pixels[(size_t(y) * width + size_t(x)) * 3] = float(x) / float(width - 1);
  const LearnedReading reading = read(net, pixels, {width, height, 3});
  ASSERT_TRUE(reading.sure);
  const ChannelNoise& red = reading.estimate.channels[0];
  ASSERT_EQ(red.bins.size(), 8u);
  double previous = 0;
  for (const NoiseLevelBin& bin : red.bins) {
    // Within a bin the red values span an eighth of the range: sqrt(mean exp) is
    // within 1 % of exp at the mean there (the slope is 2 per unit of red).
    const double expected = std::sqrt(25.0 * std::exp(2.0 * (bin.intensity / 255.0 - 0.5)));
    EXPECT_NEAR(bin.sigma, expected, 0.01 * expected) << "bin at " << bin.intensity;
    EXPECT_GT(bin.sigma, previous);
    previous = bin.sigma;
  }
  EXPECT_NEAR(reading.estimate.channels[1].sigma, 5.0, 1e-4);  // green: constant
}

TEST(LearnedNoise, TooSmallOrTooNoisyIsUnsureAndSaysWhy) {
  const double variances[6] = {4, 4, 4, 4, 4, 4};
  const NoiseNet net = one_by_one(constant_map(variances, 0));
  std::vector<float> small = random_image(100, 127, 3, 3);  // one whole tile
  const LearnedReading tiny = read(net, small, {100, 127, 3});
  EXPECT_FALSE(tiny.sure);
  EXPECT_EQ(tiny.tiles, 1);
  EXPECT_NE(tiny.unsure_reason.find("only 1 opaque tiles of 64x64"), std::string::npos) << tiny.unsure_reason;
  EXPECT_NE(tiny.unsure_reason.find("100x127"), std::string::npos) << tiny.unsure_reason;

  const double loud[6] = {70 * 70, 4, 4, 4, 4, 4};
  const NoiseNet beyond = one_by_one(constant_map(loud, 0));
  std::vector<float> pixels = random_image(256, 256, 3, 4);
  const LearnedReading reading = read(beyond, pixels, {256, 256, 3});
  EXPECT_FALSE(reading.sure);
  EXPECT_NE(reading.unsure_reason.find("70.0 in R, beyond the 60"), std::string::npos) << reading.unsure_reason;
}

TEST(LearnedNoise, TransparentTilesAreSkipped) {
  const double variances[6] = {4, 4, 4, 4, 4, 4};
  const NoiseNet net = one_by_one(constant_map(variances, 0));
  const int width = 256, height = 256;
  std::vector<float> pixels = random_image(width, height, 4, 5);
  // Alpha 1 on the left half, 0 in one pixel of each tile on the right half.
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) pixels[(size_t(y) * width + size_t(x)) * 4 + 3] = 1.0f;
  for (int y = 5; y < height; y += 64)
    for (int x = 130; x < width; x += 64) pixels[(size_t(y) * width + size_t(x)) * 4 + 3] = 0.0f;
  const LearnedReading reading = read(net, pixels, {width, height, 4});
  EXPECT_EQ(reading.tiles, 8);  // 2 of each row's 4 tiles
  EXPECT_TRUE(reading.sure);
  EXPECT_NEAR(reading.estimate.channels[0].sigma, 2.0, 1e-5);
}

TEST(LearnedNoise, GreyImagesHaveOneChannel) {
  const double variances[6] = {9, 16, 25, 4, 4, 4};
  const NoiseNet net = one_by_one(constant_map(variances, 0));
  std::vector<float> pixels = random_image(200, 200, 1, 6);
  const LearnedReading reading = read(net, pixels, {200, 200, 1});
  ASSERT_TRUE(reading.sure);
  ASSERT_EQ(reading.estimate.channels.size(), 1u);
  EXPECT_TRUE(reading.estimate.opponent.empty());
  EXPECT_EQ(reading.estimate.channels[0].name, "grey");
  EXPECT_NEAR(reading.estimate.channels[0].sigma, 4.0, 1e-5);  // the G plane's: R = G = B
}

// Reads only whole tiles' rows, in increasing order, each band once.
class RecordingSource : public PixelSource {
 public:
  explicit RecordingSource(const ImageBuffer& image) : inner_(image) {}
  void read_rows(int y, int rows, float* dst) override {
    calls.push_back({y, rows});
    inner_.read_rows(y, rows, dst);
  }
  std::vector<std::pair<int, int>> calls;

 private:
  BufferSource inner_;
};

TEST(LearnedNoise, ReadsAFewBandsOfALargeImageInOrder) {
  const double variances[6] = {4, 4, 4, 4, 4, 4};
  const NoiseNet net = one_by_one(constant_map(variances, 0));
  const ImageShape shape{1500, 4000, 3};
  std::vector<float> pixels = random_image(shape.width, shape.height, 3, 7);
  RecordingSource source(ImageBuffer{pixels.data(), shape, SampleType::f32, 0});
  const LearnedReading reading = read_noise_with_net(net, source, shape, 2);
  EXPECT_TRUE(reading.sure);
  EXPECT_LE(reading.tiles, kLearnedMaxTiles);
  EXPECT_GE(reading.tiles, kLearnedMaxTiles * 3 / 4);
  ASSERT_FALSE(source.calls.empty());
  int read_rows = 0, last_end = 0;
  for (const auto& [y, rows] : source.calls) {
    EXPECT_EQ(rows, 64);
    EXPECT_GE(y, last_end);
    last_end = y + rows;
    read_rows += rows;
  }
  EXPECT_LT(read_rows, shape.height / 2);  // a sample, not the image
}

TEST(LearnedNoise, RefusesANetworkThatGivesAnotherMap) {
  const double variances[6] = {4, 4, 4, 4, 4, 4};
  NoiseNet net = one_by_one(constant_map(variances, 0));
  net.output_names[4] = "G9";
  std::vector<float> pixels = random_image(128, 128, 3, 8);
  try {
    read(net, pixels, {128, 128, 3});
    FAIL() << "no error";
  } catch (const NoiseNetError& error) {
    EXPECT_NE(std::string(error.what()).find("not the noise map"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace edgewise
