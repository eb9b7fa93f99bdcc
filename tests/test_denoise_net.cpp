// The learned denoiser's network (core/denoise_net.h): its program checked
// and refused with one message each, its file written and read back, and
// the CPU forward pass of every instruction set against the double
// reference (tests/reference/denoise_net_reference.h) on random networks,
// maps and tiles of awkward sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "denoise_net.h"
#include "denoise_net_test_support.h"
#include "reference/denoise_net_reference.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

struct Tile {
  int width, height;
  std::vector<float> rgb, map;
};

Tile random_tile(const DenoiseNet& d, int width, int height, std::mt19937_64& rng) {
  Tile t{width, height, std::vector<float>(size_t(width) * height * 3), {}};
  std::uniform_real_distribution<float> sample(0.0f, 1.0f), level(-2.0f, 2.0f);
  for (float& v : t.rgb) v = sample(rng);
  t.map.resize(size_t(width / d.map_resolution) * size_t(height / d.map_resolution) * size_t(d.map_channels));
  for (float& v : t.map) v = level(rng);
  return t;
}

std::vector<float> forward(const DenoiseNet& d, const Tile& t, DenoiseNetScratch& scratch) {
  std::vector<float> out(t.rgb.size(), std::numeric_limits<float>::quiet_NaN());
  denoise_net_forward(d, t.rgb.data(), t.map.data(), t.width, t.height, out.data(), scratch);
  return out;
}

// Float against double, as tests/test_noise_net.cpp argues the bounds:
// each convolution adds rounding of relative RMS about 0.28 u sqrt(n)
// (n = k^2 in products, u = 2^-24) and passes what came before on with
// gain about 1; the skips add two such paths. The relative error over a
// tile stays under 1e-5, and no output is off by more than u times the
// sum of n over the convolutions times the output's RMS (every rounding
// aligned), far below what one wrong tap, channel order or border gives.
// The residual adds the input (order 1) to outputs of order 1: compared
// without it, so that the bound sees the network's own part.
struct Errors {
  double relative, largest, tolerance;
  bool written;
};

Errors compare(const NoiseNet& net, const Tile& t, const std::vector<float>& out, const std::vector<double>& ref) {
  double diff2 = 0, ref2 = 0, largest = 0;
  bool written = out.size() == ref.size();
  for (size_t i = 0; i < out.size() && written; ++i) {
    written = std::isfinite(out[i]);
    const double d = double(out[i]) - ref[i];
    const double own = ref[i] - double(t.rgb[i]);
    diff2 += d * d;
    ref2 += own * own;
    largest = std::max(largest, std::abs(d));
  }
  double terms = 0;
  for (const NoiseNetLayer& l : net.layers)
    if (l.op == NetOp::conv) terms += l.kernel * l.kernel * l.in;
  const double rms = std::sqrt(ref2 / double(ref.size()));
  return {std::sqrt(diff2 / ref2), largest, std::ldexp(1.0, -24) * terms * rms, written};
}

TEST(DenoiseNetForward, MatchesTheDoubleReference) {
  EW_SEEDED_RNG(rng);
  const std::pair<const char*, Spec> specs[] = {{"v1", kV1}, {"small", kSmall}, {"odd", kOdd}};
  int compared = 0;
  for (const auto& [name, spec] : specs) {
    const NoiseNet file = random_file(spec, rng);
    const DenoiseNet d = prepare_denoise_net(file);
    const auto steps = reference_steps(file);
    for (const auto& [width, height] : {std::pair{8, 8}, {16, 40}, {48, 24}}) {
      const Tile t = random_tile(d, width, height, rng);
      const std::vector<double> ref = edgewise_reference::denoise_net_reference(
          steps, std::vector<double>(t.rgb.begin(), t.rgb.end()), std::vector<double>(t.map.begin(), t.map.end()),
          width, height);
      for (NoiseNetIsa isa : runnable_isas()) {
        SCOPED_TRACE(std::string(name) + ", " + std::to_string(width) + " x " + std::to_string(height) + ", " +
                     noise_net_isa_name(isa));
        DenoiseNetScratch scratch;
        scratch.isa = isa;
        const Errors e = compare(file, t, forward(d, t, scratch), ref);
        EXPECT_TRUE(e.written) << "an output was not written (or is not finite)";
        EXPECT_LT(e.relative, 1e-5);
        EXPECT_LE(e.largest, e.tolerance);
        ++compared;
        std::printf("  %-5s %2d x %2d %-7s relative %.2e, largest %.2e (bound %.2e)\n", name, width, height,
                    noise_net_isa_name(isa), e.relative, e.largest, e.tolerance);
      }
    }
  }
  EXPECT_GE(compared, 9);
}

TEST(DenoiseNetForward, TheMapAndEveryPixelMatter) {
  // A wrong map channel order or a map ignored would pass a reference that
  // shared the mistake only by chance; here each changes the output.
  EW_SEEDED_RNG(rng);
  const DenoiseNet d = prepare_denoise_net(random_file(kSmall, rng));
  Tile t = random_tile(d, 16, 16, rng);
  DenoiseNetScratch scratch;
  const std::vector<float> base = forward(d, t, scratch);
  t.map[5] += 1.0f;
  const std::vector<float> moved = forward(d, t, scratch);
  EXPECT_NE(0, std::memcmp(base.data(), moved.data(), base.size() * sizeof(float)));
}

TEST(DenoiseNetForward, ScratchAndInstructionSetKeepTheBits) {
  EW_SEEDED_RNG(rng);
  const DenoiseNet d = prepare_denoise_net(random_file(kOdd, rng));
  const Tile big = random_tile(d, 64, 48, rng), small = random_tile(d, 24, 16, rng);
  DenoiseNetScratch fresh, reused;
  forward(d, big, reused);
  const std::vector<float> a = forward(d, small, fresh), b = forward(d, small, reused);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "a used scratch changed the output";
  DenoiseNetScratch avx2, avx512;
  avx2.isa = NoiseNetIsa::avx2;
  avx512.isa = NoiseNetIsa::avx512;
  if (std::strcmp(noise_net_isa_name(avx512.isa), "avx512") != 0)
    GTEST_SKIP() << "this processor has no AVX-512 (" << noise_net_isa_name(avx512.isa) << ")";
  const std::vector<float> x = forward(d, small, avx2), y = forward(d, small, avx512);
  EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(float))) << "AVX2 and AVX-512 differ";
}

TEST(DenoiseNetForward, RefusesTilesOffTheGrid) {
  EW_SEEDED_RNG(rng);
  const DenoiseNet d = prepare_denoise_net(random_file(kSmall, rng));
  ASSERT_EQ(d.align, 8);
  std::vector<float> rgb(12 * 8 * 3), map(6 * 4 * 5), out(rgb.size());
  DenoiseNetScratch scratch;
  EXPECT_THROW(denoise_net_forward(d, rgb.data(), map.data(), 12, 8, out.data(), scratch), std::invalid_argument);
}

TEST(DenoiseNetFile, WrittenAndReadBack) {
  EW_SEEDED_RNG(rng);
  const NoiseNet file = random_file(kOdd, rng);
  const std::vector<uint8_t> bytes = serialize_noise_net(file);
  const DenoiseNet d = parse_denoise_net(bytes, "odd.ewnn");
  EXPECT_EQ(d.align, 8);
  EXPECT_EQ(d.map_channels, 7);
  EXPECT_EQ(d.map_resolution, 2);
  EXPECT_EQ(d.map_cell, 8);
  EXPECT_DOUBLE_EQ(d.map_offset, 3.0);
  EXPECT_DOUBLE_EQ(d.map_scale, 0.333333);
  ASSERT_EQ(d.net.layers.size(), file.layers.size());
  for (size_t i = 0; i < file.layers.size(); ++i) {
    const NoiseNetLayer &a = file.layers[i], &b = d.net.layers[i];
    EXPECT_EQ(int(a.op), int(b.op)) << "layer " << i + 1;
    EXPECT_EQ(a.factor, b.factor) << "layer " << i + 1;
    EXPECT_EQ(a.weights, b.weights) << "layer " << i + 1;
    EXPECT_EQ(a.bias, b.bias) << "layer " << i + 1;
  }
  const std::string header(bytes.begin() + 12, bytes.begin() + 12 + (bytes[8] | bytes[9] << 8));
  EXPECT_EQ(header.substr(0, 57), "model denoiser\nversion 1\ninput rgb-0.5\ntile 128\noutputs 3");
  EXPECT_NE(header.find("\nlayer unshuffle 2\nlayer map 7\nlayer conv 19 12 5 1 relu\nlayer save\n"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("\nlayer shuffle 2\nlayer residual\nfloats "), std::string::npos) << header;
  // The same bytes through the noise map's loader: refused, naming the model.
  try {
    parse_noise_net(bytes, "odd.ewnn");
    ADD_FAILURE() << "the noise map's loader took a denoiser";
  } catch (const NoiseNetError& e) {
    EXPECT_STREQ(e.what(),
                 "odd.ewnn holds a \"denoiser\" model; this Edgewise reads the noise map (model noise-map)");
  }
}

TEST(DenoiseNetFile, RefusesWhatItCannotRun) {
  EW_SEEDED_RNG(rng);
  const NoiseNet good = random_file(kSmall, rng);
  auto refused = [&](const char* what, const std::function<void(NoiseNet&)>& change, const std::string& message) {
    NoiseNet net = good;
    change(net);
    try {
      parse_denoise_net(serialize_noise_net(net), "bad.ewnn");
      ADD_FAILURE() << what << ": accepted";
    } catch (const NoiseNetError& e) {
      EXPECT_EQ(std::string(e.what()), message) << what;
    }
  };
  const std::string cannot = "bad.ewnn describes a network this Edgewise cannot run: ";
  // Layer 4 is the first save (unshuffle, map, conv, save).
  refused("add without save", [](NoiseNet& n) { n.layers[3] = step(NetOp::add); },
          cannot + "layer 4 adds with nothing saved");
  refused("no map", [](NoiseNet& n) {
    n.layers.erase(n.layers.begin() + 1);
    n.layers[1].in = 12;
    n.layers[1].weights.resize(size_t(12 * 8 * 9));
  }, cannot + "it has no map step (the denoiser reads the noise map)");
  refused("channels", [](NoiseNet& n) { n.layers[2].in = 18; n.layers[2].weights.resize(size_t(18 * 8 * 9)); },
          cannot + "layer 3 takes 18 channels where the program has 17");
  refused("stride", [](NoiseNet& n) { n.layers[2].stride = 2; }, cannot + "layer 3's stride is 2 (the denoiser's are 1)");
  refused("residual early", [](NoiseNet& n) { n.layers.insert(n.layers.begin(), step(NetOp::residual)); },
          cannot + "layer 1, the residual, is not the last step");
  refused("shuffle", [](NoiseNet& n) { n.layers[0] = step(NetOp::shuffle, 2); },
          cannot + "layer 1 cannot shuffle (3 channels at 1/1)");
  refused("tile", [](NoiseNet& n) { n.tile = 100; }, cannot + "its tile is 100, not a positive multiple of 8");
  refused("unsaved", [](NoiseNet& n) { n.layers.insert(n.layers.begin(), step(NetOp::save)); },
          cannot + "1 saved tensors are never added");
  refused("map offset", [](NoiseNet& n) { n.info.erase(n.info.begin()); },
          "bad.ewnn has no \"map-offset\" line in its header");
  refused("noise net", [](NoiseNet& n) { n.info.back().second = "abc"; },
          "bad.ewnn does not name its noise-map network (a \"noise-net SHA256\" line)");
  refused("version", [](NoiseNet& n) { n.version = 2; },
          "bad.ewnn was made for version 2; this Edgewise reads version 1");
  // A noise map with a denoiser's step is refused by the noise map's loader.
  NoiseNet map;
  map.tile = 8;
  map.outputs = 1;
  map.output_names = {"x"};
  map.layers = {conv_layer(3, 1, 1, false), step(NetOp::save)};
  map.layers[0].weights = {1, 2, 3};
  map.layers[0].bias = {0};
  try {
    parse_noise_net(serialize_noise_net(map), "map.ewnn");
    ADD_FAILURE() << "a noise map with a save step was taken";
  } catch (const NoiseNetError& e) {
    EXPECT_STREQ(e.what(), "map.ewnn describes a network this Edgewise cannot run: layer 2 is a save step; the noise "
                           "map is a stack of convolutions");
  }
}

// PyTorch's own output for a small network of the training program
// (training/make_denoise_golden.py: random float32 weights, a 24 x 16 tile,
// computed in float64), so that the forward pass and the reference follow
// PyTorch's unshuffle, shuffle, concatenation and convolution orders and
// not merely each other. The bound is the one argued above.
TEST(DenoiseNetTorch, MatchesPyTorch) {
  const std::string dir = EDGEWISE_TEST_DATA;
  const DenoiseNet d = load_denoise_net(dir + "/denoise_net_golden.ewnn");
  std::ifstream in(dir + "/denoise_net_golden.bin", std::ios::binary);
  const std::vector<char> blob{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const int width = 24, height = 16;
  Tile t{width, height, std::vector<float>(size_t(width) * height * 3),
         std::vector<float>(size_t(width / 2) * (height / 2) * size_t(d.map_channels))};
  std::vector<double> torch_out(t.rgb.size());
  ASSERT_EQ(blob.size(), (t.rgb.size() + t.map.size()) * sizeof(float) + torch_out.size() * sizeof(double));
  std::memcpy(t.rgb.data(), blob.data(), t.rgb.size() * sizeof(float));
  std::memcpy(t.map.data(), blob.data() + t.rgb.size() * sizeof(float), t.map.size() * sizeof(float));
  std::memcpy(torch_out.data(), blob.data() + (t.rgb.size() + t.map.size()) * sizeof(float),
              torch_out.size() * sizeof(double));
  const std::vector<double> ref = edgewise_reference::denoise_net_reference(
      reference_steps(d.net), std::vector<double>(t.rgb.begin(), t.rgb.end()),
      std::vector<double>(t.map.begin(), t.map.end()), width, height);
  double largest_ref = 0;
  for (size_t i = 0; i < ref.size(); ++i) largest_ref = std::max(largest_ref, std::abs(ref[i] - torch_out[i]));
  // Both in double: they differ by double rounding only.
  EXPECT_LT(largest_ref, 1e-12) << "the double reference is not PyTorch's network";
  for (NoiseNetIsa isa : runnable_isas()) {
    DenoiseNetScratch scratch;
    scratch.isa = isa;
    const Errors e = compare(d.net, t, forward(d, t, scratch), torch_out);
    EXPECT_TRUE(e.written) << noise_net_isa_name(isa);
    EXPECT_LT(e.relative, 1e-5) << noise_net_isa_name(isa);
    EXPECT_LE(e.largest, e.tolerance) << noise_net_isa_name(isa);
  }
}

}  // namespace
