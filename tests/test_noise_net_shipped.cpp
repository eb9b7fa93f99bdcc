// The noise network the project ships (models/noise_net-v1.ewnn): the file
// training/manifest/noise_net.json records, run by the CPU forward pass as
// the double reference runs it on real photos' tiles, and its reading of
// one photo pinned (a change of weights changes these numbers on purpose,
// in the commit that ships the new weights, with the quality table). The
// learned denoiser's weights (models/denoiser-v1.ewnn): the file
// training/manifest/denoiser.json records, trained with the shipped noise
// network, run as the double reference runs it on a photo's tile.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "image_buffer.h"
#include "denoise_net.h"
#include "denoise_net_test_support.h"
#include "image_file.h"
#include "jobs.h"
#include "learned_denoise.h"
#include "learned_noise.h"
#include "noise_net.h"
#include "reference/denoise_net_reference.h"
#include "reference/noise_net_reference.h"

namespace edgewise {
namespace {

const std::string kSource = EDGEWISE_SOURCE_DIR;

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The photo's 0..1 floats, R'G'B' (grey repeated), interleaved.
std::vector<float> rgb_of(const std::string& name, ImageShape& shape) {
  edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/") + name);
  const ImageBuffer buffer = edgewise_cli::view(file);
  shape = buffer.shape;
  std::vector<float> rows(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels));
  BufferSource(buffer).read_rows(0, shape.height, rows.data());
  std::vector<float> rgb(size_t(shape.width) * size_t(shape.height) * 3);
  for (size_t p = 0; p < rgb.size() / 3; ++p)
    for (int c = 0; c < 3; ++c)
      rgb[3 * p + size_t(c)] = rows[p * size_t(shape.channels) + size_t(shape.channels >= 3 ? c : 0)];
  return rgb;
}

// The "sha256" a manifest of training/manifest records.
std::string manifest_sha256(const std::string& name) {
  const std::string manifest = text_of(kSource + "/training/manifest/" + name);
  std::smatch hash;
  if (!std::regex_search(manifest, hash, std::regex("\"sha256\": \"([0-9a-f]{64})\""))) return "(none in " + name + ")";
  return hash[1].str();
}

TEST(ShippedNoiseNet, IsTheFileTheManifestRecords) {
  const NoiseNet net = load_noise_net(kSource + "/models/noise_net-v1.ewnn");
  EXPECT_EQ(net.sha256_hex, manifest_sha256("noise_net.json"));
  EXPECT_EQ(net.version, kNoiseNetVersion);
  EXPECT_EQ(net.tile, 64);
  EXPECT_EQ(net.cell, 8);
  check_noise_map_outputs(net, "models/noise_net-v1.ewnn");
}

// On 64x64 tiles of both test photos (corners, centre, an odd offset):
// within the float forward pass's bound of test_noise_net.cpp
// (||out - ref|| / ||ref|| < 1e-5; expected about 8e-7 for v1).
TEST(ShippedNoiseNet, ForwardPassMatchesTheReferenceOnPhotos) {
  const NoiseNet net = load_noise_net(kSource + "/models/noise_net-v1.ewnn");
  std::vector<edgewise_reference::ConvLayer> layers;
  for (const NoiseNetLayer& l : net.layers)
    layers.push_back({l.in, l.out, l.kernel, l.stride, l.relu, std::vector<double>(l.weights.begin(), l.weights.end()),
                      std::vector<double>(l.bias.begin(), l.bias.end())});
  int compared = 0;
  for (const char* name : {"astronaut.png", "camera.png"}) {
    ImageShape shape;
    const std::vector<float> rgb = rgb_of(name, shape);
    for (const auto& [x0, y0] : std::vector<std::pair<int, int>>{{0, 0}, {192, 192}, {97, 33}, {0, 192}}) {
      SCOPED_TRACE(std::string(name) + " at " + std::to_string(x0) + "," + std::to_string(y0));
      std::vector<float> tile(64 * 64 * 3);
      std::vector<double> tile_double(tile.size());
      for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
          for (int c = 0; c < 3; ++c) {
            const float v = rgb[(size_t(y0 + y) * size_t(shape.width) + size_t(x0 + x)) * 3 + size_t(c)];
            tile[(size_t(y) * 64 + size_t(x)) * 3 + size_t(c)] = v;
            tile_double[(size_t(y) * 64 + size_t(x)) * 3 + size_t(c)] = v;
          }
      std::vector<float> out(size_t(8 * 8 * net.outputs), std::nanf(""));
      NoiseNetScratch scratch;
      noise_net_forward(net, tile.data(), 64, out.data(), scratch);
      const std::vector<double> ref = edgewise_reference::noise_net_reference(layers, tile_double, 64);
      ASSERT_EQ(ref.size(), out.size());
      double error = 0, norm = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(std::isfinite(out[i])) << i;
        error += (out[i] - ref[i]) * (out[i] - ref[i]);
        norm += ref[i] * ref[i];
      }
      EXPECT_LT(std::sqrt(error / norm), 1e-5);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 8);
}

// The README's sample photo (white noise sigma 15 on every channel, added
// to the resized astronaut; tests/data/PROVENANCE.md): what the shipped
// network reads, to 0.01 code values (the forward pass's float rounding
// moves these by under 1e-4 between instruction sets).
TEST(ShippedNoiseNet, GoldenReadingOfTheSamplePhoto) {
  const NoiseNet net = load_noise_net(kSource + "/models/noise_net-v1.ewnn");
  edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/astronaut_noisy.png"));
  const ImageBuffer buffer = edgewise_cli::view(file);
  BufferSource source(buffer);
  const LearnedReading reading = read_noise_with_net(net, source, buffer.shape, 2);
  ASSERT_TRUE(reading.sure) << reading.unsure_reason;
  EXPECT_EQ(reading.tiles, 25);
  const double golden[6] = {14.6279, 13.4812, 14.7521, 14.2685, 14.3976, 14.4620};
  for (size_t p = 0; p < 6; ++p) {
    const ChannelNoise& c = p < 3 ? reading.estimate.channels[p] : reading.estimate.opponent[p - 3];
    EXPECT_NEAR(c.sigma, golden[p], 0.01) << c.name;
  }
}

TEST(ShippedDenoiser, IsTheFileTheManifestRecordsTrainedWithTheShippedNoiseNet) {
  const DenoiseNet d = load_denoise_net(kSource + "/models/denoiser-v1.ewnn");
  EXPECT_EQ(d.net.sha256_hex, manifest_sha256("denoiser.json"));
  EXPECT_EQ(d.net.version, kDenoiseNetVersion);
  EXPECT_EQ(d.noise_net_sha256, load_noise_net(kSource + "/models/noise_net-v1.ewnn").sha256_hex);
}

// A 32 x 32 tile of the astronaut with the map white noise of sigma 20
// gives (as the C++ spreads it): within the bound test_denoise_net.cpp
// argues for float against double (relative error of the network's own
// part, the output less the input, under 1e-5).
TEST(ShippedDenoiser, ForwardPassMatchesTheReferenceOnAPhoto) {
  const DenoiseNet d = load_denoise_net(kSource + "/models/denoiser-v1.ewnn");
  ImageShape shape;
  const std::vector<float> rgb = rgb_of("astronaut.png", shape);
  const int side = 32, x0 = 96, y0 = 64, cells = side / d.map_cell;
  std::vector<float> tile(size_t(side) * side * 3);
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x)
      for (int c = 0; c < 3; ++c)
        tile[(size_t(y) * side + size_t(x)) * 3 + size_t(c)] =
            rgb[(size_t(y0 + y) * size_t(shape.width) + size_t(x0 + x)) * 3 + size_t(c)];
  std::vector<float> cell_map;
  const std::vector<float> white = white_noise_cells(20.0);
  for (int i = 0; i < cells * cells; ++i) cell_map.insert(cell_map.end(), white.begin(), white.end());
  const int half = side / d.map_resolution;
  std::vector<float> map(size_t(half) * half * size_t(d.map_channels));
  map_input(d, cell_map, cells, cells, 0.0f, 0, 0, half, half, map.data());
  std::vector<float> out(tile.size(), std::nanf(""));
  DenoiseNetScratch scratch;
  denoise_net_forward(d, tile.data(), map.data(), side, side, out.data(), scratch);
  const std::vector<double> ref = edgewise_reference::denoise_net_reference(
      edgewise_test::reference_steps(d.net), std::vector<double>(tile.begin(), tile.end()),
      std::vector<double>(map.begin(), map.end()), side, side);
  ASSERT_EQ(ref.size(), out.size());
  double error = 0, own = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(std::isfinite(out[i])) << i;
    error += (out[i] - ref[i]) * (out[i] - ref[i]);
    own += (ref[i] - tile[i]) * (ref[i] - tile[i]);
  }
  EXPECT_GT(own, 0.0) << "the network changed nothing";
  EXPECT_LT(std::sqrt(error / own), 1e-5);
}

}  // namespace
}  // namespace edgewise
