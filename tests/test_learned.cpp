// The learned filter (core/filters/learned.h) through the engine: against
// a double-precision pipeline written here (the noise network's and the
// denoiser's double references, the map spread by PyTorch's bilinear
// formula) on a photo; bit for bit against core's whole-image path at
// awkward sizes, channel counts, band heights and thread counts; strength
// 0, a given sigma, and the map's Luminance and Colour scaling by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "denoise_net_test_support.h"
#include "engine.h"
#include "filters/learned.h"
#include "image_buffer.h"
#include "image_file.h"
#include "jobs.h"
#include "learned_denoise.h"
#include "learned_noise.h"
#include "noise_net_test_support.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

const DenoiseNet& denoiser() {
  const ShippedDenoiseNet& shipped = shipped_denoise_net();
  if (!shipped.net) throw std::runtime_error(shipped.problem);
  return *shipped.net;
}

const NoiseNet& noise_network() {
  const ShippedNoiseNet& shipped = shipped_noise_net();
  if (!shipped.net) throw std::runtime_error(shipped.problem);
  return *shipped.net;
}

FilterSpec learned_with(double sigma_n, double strength) {
  LearnedParameters p;
  p.sigma_n = float(sigma_n);
  p.strength = float(strength);
  return learned_spec(p);
}

// The image's colour as the network reads it: R'G'B' interleaved, grey as R = G = B.
std::vector<float> rgb_of(const FloatImage& image) {
  const ImageShape& s = image.shape();
  std::vector<float> rgb(size_t(s.width) * size_t(s.height) * 3);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      for (int c = 0; c < 3; ++c)
        rgb[(size_t(y) * size_t(s.width) + size_t(x)) * 3 + size_t(c)] = image.at(x, y, color_channels(s) == 3 ? c : 0);
  return rgb;
}

// What the filter must give: core's whole-image path on the colour, grey
// as the mean of the three results, alpha as it was.
FloatImage expected_of(const FloatImage& image, const LearnedDenoiseOptions& options) {
  const ImageShape& s = image.shape();
  const std::vector<float> rgb = rgb_of(image);
  std::vector<float> out(rgb.size());
  learned_denoise_rgb(denoiser(), noise_network(), rgb.data(), s.width, s.height, out.data(), options);
  FloatImage expected(s);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      const float* o = &out[(size_t(y) * size_t(s.width) + size_t(x)) * 3];
      if (color_channels(s) == 3)
        for (int c = 0; c < 3; ++c) expected.at(x, y, c) = o[c];
      else
        expected.at(x, y, 0) = (o[0] + o[1] + o[2]) / 3.0f;
      if (has_alpha(s)) expected.at(x, y, s.channels - 1) = image.at(x, y, s.channels - 1);
    }
  return expected;
}

// ---- Against a double pipeline written here, on a photo ----

FloatImage load_test_png(const std::string& name) {
  edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/") + name);
  const ImageBuffer buffer = edgewise_cli::view(file);
  FloatImage image(buffer.shape);
  BufferSource(buffer).read_rows(0, buffer.shape.height, image.pixels().data());
  return image;
}

// PyTorch's interpolate (bilinear, align_corners false) from cells to the
// half-resolution grid, in double: source = (i + 0.5) * cells / pixels - 0.5, held at the edges.
void taps(int i, int pixels, int cells, int& i0, int& i1, double& w1) {
  const double source = std::max(0.0, (i + 0.5) * cells / pixels - 0.5);
  i0 = std::min(int(std::floor(source)), cells - 1);
  i1 = std::min(i0 + 1, cells - 1);
  w1 = source - i0;
}

// The astronaut's 72 x 56 crop with white noise of sigma 15 (two noise
// tiles across, neither side a multiple of 64): the filter at its defaults
// against the noise network's double reference on each 64 px tile of the
// mirrored extension, the cells spread here, and the denoiser's double
// reference on the whole extension. Float against double: the networks'
// own parts agree to about 1e-5 relative (test_denoise_net.cpp,
// test_noise_net.cpp): 6e-7 of the 0..1 scale measured on this crop, under
// 1e-5 whatever the noise; a misplaced cell, a wrong tap, tile or mirror moves pixels by
// 1e-3 and more.
TEST(LearnedFilter, MatchesTheDoublePipelineOnAPhoto) {
  EW_SEEDED_RNG(rng);
  const DenoiseNet& d = denoiser();
  const NoiseNet& nn = noise_network();
  const FloatImage photo = load_test_png("astronaut.png");
  const int width = 72, height = 56, x0 = 150, y0 = 40;
  FloatImage noisy({width, height, 3});
  std::normal_distribution<float> noise(0.0f, 15.0f / 255.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) noisy.at(x, y, c) = std::clamp(photo.at(x0 + x, y0 + y, c) + noise(rng), 0.0f, 1.0f);
  RunOptions options;
  const NoiseEstimate given = white_noise_estimate(15.0, 3);
  options.noise = &given;
  const FloatImage got = run_cpu(learned_with(kNoiseAuto, 1.0), noisy, options);

  const int pw = padded_side(width, 64), ph = padded_side(height, 64), cell = d.map_cell, n = d.map_channels;
  std::vector<double> padded(size_t(pw) * ph * 3);
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < pw; ++x)
      for (int c = 0; c < 3; ++c)
        padded[(size_t(y) * pw + x) * 3 + c] = noisy.at(mirrored(x, width), mirrored(y, height), c);
  const int cells_x = pw / cell, cells_y = ph / cell;
  std::vector<double> cells(size_t(cells_x) * cells_y * n);
  for (int ty = 0; ty < ph / 64; ++ty)
    for (int tx = 0; tx < pw / 64; ++tx) {
      std::vector<double> tile(64 * 64 * 3);
      for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
          for (int c = 0; c < 3; ++c)
            tile[(size_t(y) * 64 + x) * 3 + c] = padded[(size_t(ty * 64 + y) * pw + tx * 64 + x) * 3 + c];
      const std::vector<double> out = edgewise_reference::noise_net_reference(reference_layers(nn), tile, 64);
      for (int cy = 0; cy < 8; ++cy)
        for (int cx = 0; cx < 8; ++cx)
          for (int k = 0; k < n; ++k)
            cells[(size_t(ty * 8 + cy) * cells_x + tx * 8 + cx) * n + k] = out[(size_t(cy) * 8 + cx) * n + k];
    }
  const int hw = pw / d.map_resolution, hh = ph / d.map_resolution;
  std::vector<double> map(size_t(hw) * hh * n);
  for (int y = 0; y < hh; ++y)
    for (int x = 0; x < hw; ++x) {
      int ya, yb, xa, xb;
      double ly, lx;
      taps(y, hh, cells_y, ya, yb, ly);
      taps(x, hw, cells_x, xa, xb, lx);
      for (int k = 0; k < n; ++k) {
        auto at = [&](int cx, int cy) { return (cells[(size_t(cy) * cells_x + cx) * n + k] - d.map_offset) * d.map_scale; };
        map[(size_t(y) * hw + x) * n + k] =
            (1 - ly) * ((1 - lx) * at(xa, ya) + lx * at(xb, ya)) + ly * ((1 - lx) * at(xa, yb) + lx * at(xb, yb));
      }
    }
  const std::vector<double> ref = edgewise_reference::denoise_net_reference(reference_steps(d.net), padded, map, pw, ph);
  double largest = 0, moved = 0;
  int compared = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        const double expected = std::clamp(ref[(size_t(y) * pw + x) * 3 + c], 0.0, 1.0);
        largest = std::max(largest, std::abs(got.at(x, y, c) - expected));
        moved = std::max(moved, std::abs(expected - double(noisy.at(x, y, c))));
        ++compared;
      }
  EXPECT_EQ(compared, width * height * 3);
  EXPECT_GT(moved, 0.05) << "the reference hardly changed the noisy crop: it could not see a wrong map";
  EXPECT_LT(largest, 1e-5) << "largest difference " << largest;
  std::printf("learned filter against the double pipeline: largest difference %.3g (0..1 scale)\n", largest);
}

// ---- Bands, threads, channels ----

// Every band height and thread count gives core's whole-image result, bit
// for bit, on grey, grey + alpha, RGB and RGBA at sizes that are no
// multiple of the tiles (alpha passes through; grey is the mean of R = G = B's result).
TEST(LearnedFilter, BandsThreadsAndChannelsKeepTheBits) {
  EW_SEEDED_RNG(rng);
  int compared = 0;
  for (const ImageShape& shape : {ImageShape{77, 53, 3}, ImageShape{41, 130, 4}, ImageShape{70, 9, 1}, ImageShape{33, 66, 2}}) {
    const FloatImage image = random_image(rng, shape, {true, Alpha::with_zeros});
    const NoiseEstimate given = white_noise_estimate(12.0, color_channels(shape));
    for (const bool map : {true, false}) {
      const FilterSpec spec = learned_with(map ? kNoiseAuto : 12.0, 1.0);
      LearnedDenoiseOptions core_options;
      core_options.sigma = map ? 0.0 : 12.0;
      core_options.threads = 1;
      const FloatImage expected = expected_of(image, core_options);
      for (const auto& [band_rows, threads] : {std::pair{0, 1}, {1, 2}, {7, 2}, {45, 3}}) {
        RunOptions options;
        options.noise = &given;
        options.band_rows = band_rows;
        options.backend_options.threads = threads;
        EXPECT_TRUE(bit_identical(expected, run_cpu(spec, image, options)))
            << shape.width << " x " << shape.height << " x " << shape.channels << (map ? ", map" : ", sigma 12")
            << ", band rows " << band_rows << ", " << threads << " threads";
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 32);
}

TEST(LearnedFilter, StrengthZeroLeavesTheImageAsItIs) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {50, 31, 4});
  const NoiseEstimate given = white_noise_estimate(20.0, 3);
  RunOptions options;
  options.noise = &given;
  EXPECT_TRUE(bit_identical(image, run_cpu(learned_with(kNoiseAuto, 0.0), image, options)));
}

// The Denoise front end's Luminance and Colour, by hand on white noise's
// cells (variance v in every plane): luminance 2, colour 1 makes Y's
// variance 4v, C1's and C2's v, and R's and G's (and B's) v/3 * 4 + v/2 +
// v/6 = 2v and v/3 * 4 + 4v/6 = 2v: each R, G, B log-variance up by log 2.
TEST(LearnedFilter, LuminanceAndColourScaleTheMapByHand) {
  std::vector<float> cells = white_noise_cells(10.0);
  const std::vector<float> before = cells;
  scale_map_cells(cells, int(cells.size()), 2.0, 1.0);
  for (int s = 0; s < 3; ++s) {
    for (int p = 0; p < 3; ++p) EXPECT_NEAR(cells[size_t(p * 3 + s)] - before[size_t(p * 3 + s)], std::log(2.0), 1e-6);
    EXPECT_NEAR(cells[size_t(9 + s)] - before[size_t(9 + s)], std::log(4.0), 1e-6);
    EXPECT_NEAR(cells[size_t(12 + s)], before[size_t(12 + s)], 1e-6);
    EXPECT_NEAR(cells[size_t(15 + s)], before[size_t(15 + s)], 1e-6);
  }
}

// What the engine hands the filter from the Denoise front end: the
// estimate scaled by Strength, Luminance and Colour. Luminance = Colour =
// k multiplies every plane's deviation by k, which is what the filter's
// own strength k does (up to float rounding of the two ways of adding).
TEST(LearnedFilter, TheFrontEndsMultipliersReachTheMap) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {64, 40, 3}, {true, Alpha::opaque});
  NoiseEstimate scaled = white_noise_estimate(12.0, 3);
  scaled.luminance_multiplier = scaled.colour_multiplier = 1.6;
  RunOptions front_end;
  front_end.noise = &scaled;
  const FloatImage by_multipliers = run_cpu(learned_with(kNoiseAuto, 1.0), image, front_end);
  const NoiseEstimate plain = white_noise_estimate(12.0, 3);
  RunOptions own;
  own.noise = &plain;
  const FloatImage by_strength = run_cpu(learned_with(kNoiseAuto, 1.6), image, own);
  const FloatImage unscaled = run_cpu(learned_with(kNoiseAuto, 1.0), image, own);
  EXPECT_LT(max_difference(by_strength, by_multipliers).max_abs, 1e-5);
  EXPECT_GT(max_difference(unscaled, by_multipliers).max_abs, 1e-3) << "the multipliers changed nothing";
}

}  // namespace
