// The learned denoiser on whole images (core/learned_denoise.h): the map
// against training's own (PyTorch's noise network run and interpolation,
// tests/data/denoise_map_golden.bin), the white-noise map by hand, the
// reach against a changed pixel's influence, and the result bit for bit the
// same for every tile size and thread count, at awkward image sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "denoise_net_test_support.h"
#include "learned_denoise.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

const std::string kData = EDGEWISE_TEST_DATA;
const std::string kModels = EDGEWISE_MODELS;

std::vector<float> read_floats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// training/make_denoise_golden.py: a 128 x 64 image, the shipped noise
// network's cells as PyTorch computes them (float32), and the map input
// spread from them with a strength of 2. The C++ runs the same network in
// float with other summation orders: cells agree to about 1e-5 of their
// range (log-variances of order 1-10), and the map, a convex mix of cells
// scaled by 1/3, as well; 2e-4 is far under a wrong cell, tap or phase
// (neighbouring cells differ by 0.1-1 on this image).
TEST(LearnedDenoiseMap, MatchesTraining) {
  const NoiseNet noise_net = load_noise_net(kModels + "/noise_net-v1.ewnn");
  const DenoiseNet d = load_denoise_net(kData + "/denoise_net_golden.ewnn");
  const std::vector<float> blob = read_floats(kData + "/denoise_map_golden.bin");
  const int width = 128, height = 64, cells_x = 16, cells_y = 8, n = 18;
  const size_t pixels = size_t(width) * height * 3, cell_floats = size_t(cells_x) * cells_y * n;
  ASSERT_EQ(blob.size(), pixels + cell_floats + size_t(width / 2) * (height / 2) * n);
  const std::vector<float> image(blob.begin(), blob.begin() + long(pixels));
  const std::vector<float> torch_cells(blob.begin() + long(pixels), blob.begin() + long(pixels + cell_floats));
  const std::vector<float> torch_map(blob.begin() + long(pixels + cell_floats), blob.end());

  const std::vector<float> cells = noise_map_cells(noise_net, image.data(), width, height, 2, NoiseNetIsa::automatic);
  ASSERT_EQ(cells.size(), torch_cells.size());
  double largest = 0, spread = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    largest = std::max(largest, double(std::abs(cells[i] - torch_cells[i])));
    if (i >= size_t(n)) spread = std::max(spread, double(std::abs(torch_cells[i] - torch_cells[i - size_t(n)])));
  }
  EXPECT_LT(largest, 2e-4) << "the noise network's cells differ from PyTorch's";
  EXPECT_GT(spread, 0.05) << "the image's cells hardly differ: the comparison could not see a misplaced cell";

  std::vector<float> map(torch_map.size());
  map_input(d, torch_cells, cells_x, cells_y, float(2 * std::log(2.0)), 0, 0, width / 2, height / 2, map.data());
  largest = 0;
  for (size_t i = 0; i < map.size(); ++i) largest = std::max(largest, double(std::abs(map[i] - torch_map[i])));
  EXPECT_LT(largest, 2e-5) << "the spread map differs from training's (PyTorch's interpolate)";
  // A window of it, as a tile asks: the same numbers.
  std::vector<float> window(size_t(8) * 4 * n);
  map_input(d, torch_cells, cells_x, cells_y, float(2 * std::log(2.0)), 20, 12, 8, 4, window.data());
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < n; ++c)
        EXPECT_EQ(window[(size_t(y) * 8 + x) * n + c], map[(size_t(12 + y) * 64 + 20 + x) * n + c]);
}

TEST(LearnedDenoiseMap, WhiteNoiseByHand) {
  // sigma 10: variance 100 in every plane, 25 and 6.25 over 2 and 4 px boxes.
  const std::vector<float> cells = white_noise_cells(10.0);
  ASSERT_EQ(cells.size(), 18u);
  for (int plane = 0; plane < 6; ++plane) {
    EXPECT_NEAR(cells[size_t(plane) * 3 + 0], std::log(100.0), 1e-6);
    EXPECT_NEAR(cells[size_t(plane) * 3 + 1], std::log(25.0), 1e-6);
    EXPECT_NEAR(cells[size_t(plane) * 3 + 2], std::log(6.25), 1e-6);
  }
}

TEST(LearnedDenoiseMap, MirroredExtension) {
  EXPECT_EQ(padded_side(77, 64), 128);
  EXPECT_EQ(padded_side(64, 64), 64);
  const int expected[] = {0, 1, 2, 3, 4, 3, 2, 1, 0, 1};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(mirrored(i, 5), expected[i]) << i;
  EXPECT_EQ(mirrored(-1, 5), 1);
  EXPECT_EQ(mirrored(7, 1), 0);
}

// The v1 program's reach, counted by hand: 3 x 3 convolutions at 1/2 (4 of
// them, 2 px each), 1/4 (4, 4 px) and 1/8 (3, 8 px); unshuffles and
// shuffles by 2 join 1, 2 and 4 px (twice each): 8 + 16 + 24 + 14 = 62,
// rounded up to the alignment of 8.
TEST(LearnedDenoise, ReachOfTheProgram) {
  EW_SEEDED_RNG(rng);
  EXPECT_EQ(denoise_net_reach(prepare_denoise_net(random_file(kV1, rng))), 64);
}

// A pixel changed at (x, y) changes no output farther than the reach (and
// does change outputs near it): the reach the tiles' overlap relies on.
TEST(LearnedDenoise, NothingBeyondTheReachMoves) {
  EW_SEEDED_RNG(rng);
  const DenoiseNet d = prepare_denoise_net(random_file(kSmall, rng));
  const int reach = denoise_net_reach(d), side = 96;
  std::vector<float> rgb(size_t(side) * side * 3), map(size_t(side / 2) * (side / 2) * size_t(d.map_channels));
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  for (float& v : rgb) v = sample(rng);
  for (float& v : map) v = sample(rng) - 0.5f;
  DenoiseNetScratch scratch;
  std::vector<float> a(rgb.size()), b(rgb.size());
  denoise_net_forward(d, rgb.data(), map.data(), side, side, a.data(), scratch);
  const int px = 45, py = 50;
  rgb[(size_t(py) * side + px) * 3 + 1] += 0.5f;
  denoise_net_forward(d, rgb.data(), map.data(), side, side, b.data(), scratch);
  int farthest = 0;
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x)
      for (int c = 0; c < 3; ++c)
        if (a[(size_t(y) * side + x) * 3 + c] != b[(size_t(y) * side + x) * 3 + c])
          farthest = std::max({farthest, std::abs(x - px), std::abs(y - py)});
  EXPECT_LE(farthest, reach);
  EXPECT_GE(farthest, reach / 2) << "the change reached " << farthest << " px: the reach is far too generous";
}

// Every tile size and thread count gives the bits of one tile over the
// whole image: tiles 8 to 48 px at image sizes that are no multiple of the
// alignment or of the noise network's tile, the noise network's map and a
// given deviation, strengths 1 and 1.7.
TEST(LearnedDenoise, TilesAndThreadsKeepTheBits) {
  EW_SEEDED_RNG(rng);
  NoiseNet noise_net = load_noise_net(kModels + "/noise_net-v1.ewnn");
  NoiseNet file = random_file(kSmall, rng);
  file.layers[1].factor = 18;  // the shipped map's channels
  file.layers[2].in = 12 + 18;
  file.layers[2].weights.clear();
  std::normal_distribution<float> weight(0.0f, 0.1f);
  for (int i = 0; i < file.layers[2].out * file.layers[2].in * 9; ++i) file.layers[2].weights.push_back(weight(rng));
  file.info.back().second = noise_net.sha256_hex;
  const DenoiseNet d = prepare_denoise_net(file);
  int compared = 0;
  for (const auto& [width, height] : {std::pair{77, 53}, {130, 41}, {9, 70}}) {
    std::vector<float> rgb(size_t(width) * height * 3);
    std::uniform_real_distribution<float> sample(0.0f, 1.0f);
    for (float& v : rgb) v = sample(rng);
    for (const auto& [sigma, strength] : {std::pair{0.0, 1.0}, {0.0, 1.7}, {12.0, 1.0}}) {
      LearnedDenoiseOptions whole;
      whole.sigma = sigma;
      whole.strength = strength;
      whole.tile = 1 << 14;
      whole.threads = 1;
      std::vector<float> expected(rgb.size());
      learned_denoise_rgb(d, noise_net, rgb.data(), width, height, expected.data(), whole);
      for (const auto& [tile, threads] : {std::pair{8, 1}, {24, 2}, {48, 2}, {40, 3}}) {
        LearnedDenoiseOptions options = whole;
        options.tile = tile;
        options.threads = threads;
        std::vector<float> out(rgb.size(), -1.0f);
        learned_denoise_rgb(d, noise_net, rgb.data(), width, height, out.data(), options);
        EXPECT_EQ(0, std::memcmp(out.data(), expected.data(), out.size() * sizeof(float)))
            << width << " x " << height << ", sigma " << sigma << ", strength " << strength << ", tile " << tile
            << ", " << threads << " threads";
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 36);
}

TEST(LearnedDenoise, RefusesAnotherNoiseNetwork) {
  EW_SEEDED_RNG(rng);
  const NoiseNet noise_net = load_noise_net(kModels + "/noise_net-v1.ewnn");
  NoiseNet file = random_file(kSmall, rng);
  const DenoiseNet d = prepare_denoise_net(file);  // names "aaaa..." as its noise network
  std::vector<float> rgb(64 * 64 * 3, 0.5f), out(rgb.size());
  try {
    learned_denoise_rgb(d, noise_net, rgb.data(), 64, 64, out.data(), {});
    ADD_FAILURE() << "ran on another noise network's map";
  } catch (const NoiseNetError& e) {
    EXPECT_NE(std::string(e.what()).find("trained on the map of noise network aaaaaaaaaaaa, not of 48fed932c86b"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
