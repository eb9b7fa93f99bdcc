// The learned noise map's network (core/noise_net.h): SHA-256 on the
// FIPS 180-4 examples, the .ewnn file written and read back, every refusal
// of the loader with its message, and the CPU forward pass of every
// instruction set against the double reference (tests/reference/
// noise_net_reference.h) on random networks and tiles.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "net_isas.h"
#include "noise_net.h"
#include "noise_net_test_support.h"
#include "reference/noise_net_reference.h"
#include "sha256.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test::noise_nets;
using edgewise_test::reference_layers;
using edgewise_test::runnable_isas;

std::string sha_of(const std::string& text) { return sha256_hex(sha256(text.data(), text.size())); }

TEST(Sha256, FipsExamples) {
  // FIPS 180-4's examples (NIST's "SHA256.pdf", "SHA2_Additional.pdf").
  EXPECT_EQ(sha_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmn"
                   "opqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha_of(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, LengthsAroundThePaddingBoundary) {
  // Messages whose padding takes one or two blocks (55, 56 bytes) or ends a
  // block exactly; digests from Python's hashlib (OpenSSL).
  const std::pair<size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"}};
  for (const auto& [length, digest] : cases) EXPECT_EQ(sha_of(std::string(length, 'a')), digest) << length << " bytes";
}

std::vector<float> forward(const NoiseNet& net, const std::vector<float>& tile, int size, NoiseNetScratch& scratch) {
  const int cells = size / net.cell;
  // Poisoned: an element the forward pass does not write stays NaN.
  std::vector<float> out(size_t(cells) * cells * net.outputs, std::numeric_limits<float>::quiet_NaN());
  noise_net_forward(net, tile.data(), size, out.data(), scratch);
  return out;
}

// ---- Forward pass against the double reference ----

// The float pass and the double reference see the same weights and samples
// (floats, exact in double; sample - 0.5 is exact in float from 0.25 up and
// off by at most 2^-26 below), so they differ by float32 rounding. Each
// output of a layer is its bias plus n = k^2 in products (27 to 576 in v1),
// accumulated one FMA at a time in float. The j-th FMA rounds by a uniform
// error of RMS about 0.4 u |s_j| (u = 2^-24, s_j the partial sum), and the
// partial sums of random-signed terms grow as sqrt(j) terms, so a layer's
// new error has RMS sqrt(0.16 u^2 n^2 / 2) terms = 0.28 u sqrt(n) of its
// output's RMS. He-scaled layers pass an error on with gain about 1 (ReLU
// halves the variance the weights double), so the output's relative RMS
// error is about 0.28 u sqrt(sum of n over the layers): 8e-7 for v1 (sum
// 2251; measured 3-7e-7 over the tile sizes). Hence
//   ||out - ref|| / ||ref|| < 1e-5,
// over ten times the estimate. The largest of a tile's 10^3-10^4 outputs is
// about 4 RMS (3e-6 of the output's RMS); its bound is the same sum's worst
// case, every rounding aligned (u n of a layer's output scale, gain 1):
//   max |out - ref| <= u * (sum of n over the layers) * RMS(ref),
// 1.3e-4 RMS(ref) for v1, forty times the expected largest, yet far below
// what one wrong tap or missed border gives (one product of n: about
// 1 / sqrt(n), 4 % of an output).
struct Errors {
  double relative, largest, tolerance;
  bool written;
};

Errors compare(const NoiseNet& net, const std::vector<float>& out, const std::vector<double>& ref) {
  double diff2 = 0, ref2 = 0, largest = 0;
  bool written = out.size() == ref.size();
  for (size_t i = 0; i < out.size() && written; ++i) {
    written = std::isfinite(out[i]);
    const double d = double(out[i]) - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    largest = std::max(largest, std::abs(d));
  }
  double terms = 0;
  for (const NoiseNetLayer& layer : net.layers) terms += layer.kernel * layer.kernel * layer.in;
  const double rms = std::sqrt(ref2 / double(ref.size()));
  return {std::sqrt(diff2 / ref2), largest, std::ldexp(1.0, -24) * terms * rms, written};
}

TEST(NoiseNetForward, MatchesTheDoubleReference) {
  EW_SEEDED_RNG(rng);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  const std::pair<const char*, const std::vector<Shape>*> architectures[] = {
      {"v1", &kV1}, {"small", &kSmall}, {"odd", &kOdd}};
  for (const auto& [name, shapes] : architectures) {
    const NoiseNet net = random_network(*shapes, rng);
    const auto layers = reference_layers(net);
    for (int size : {64, 8, 24, 128}) {
      std::vector<float> tile(size_t(size) * size * 3);
      for (float& v : tile) v = sample(rng);
      const std::vector<double> ref = noise_net_reference(layers, std::vector<double>(tile.begin(), tile.end()), size);
      for (NoiseNetIsa isa : runnable_isas()) {
        SCOPED_TRACE(std::string(name) + ", tile " + std::to_string(size) + ", " + noise_net_isa_name(isa));
        NoiseNetScratch scratch;
        scratch.isa = isa;
        const Errors e = compare(net, forward(net, tile, size, scratch), ref);
        EXPECT_TRUE(e.written) << "an output was not written (or is not finite)";
        EXPECT_LT(e.relative, 1e-5);
        EXPECT_LE(e.largest, e.tolerance);
        std::printf("  %-5s tile %3d %-7s relative %.2e, largest %.2e (bound %.2e)\n", name, size,
                    noise_net_isa_name(isa), e.relative, e.largest, e.tolerance);
      }
    }
  }
}

TEST(NoiseNetForward, ScratchDoesNotChangeTheOutput) {
  EW_SEEDED_RNG(rng);
  const NoiseNet net = random_network(kV1, rng);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  std::vector<float> big(128 * 128 * 3), small(64 * 64 * 3);
  for (float& v : big) v = sample(rng);
  for (float& v : small) v = sample(rng);
  // A scratch that held a larger tile gives the bits of a fresh one, and a
  // second run the bits of the first.
  NoiseNetScratch fresh, reused;
  forward(net, big, 128, reused);
  const std::vector<float> a = forward(net, small, 64, fresh), b = forward(net, small, 64, reused);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  const std::vector<float> again = forward(net, small, 64, fresh);
  EXPECT_EQ(0, std::memcmp(a.data(), again.data(), a.size() * sizeof(float)));
}

TEST(NoiseNetForward, FmaInstructionSetsAgreeToTheBit) {
  // AVX2 and AVX-512 add each output's products in the same order, one FMA
  // each; only their blocks differ. (SSE2 rounds each product: not these bits.)
  NoiseNetScratch avx2, avx512;
  avx2.isa = NoiseNetIsa::avx2;
  avx512.isa = NoiseNetIsa::avx512;
  if (std::strcmp(noise_net_isa_name(avx512.isa), "avx512") != 0)
    GTEST_SKIP() << "this processor has no AVX-512 (" << noise_net_isa_name(avx512.isa) << ")";
  EW_SEEDED_RNG(rng);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  for (const auto* shapes : {&kV1, &kOdd}) {
    const NoiseNet net = random_network(*shapes, rng);
    for (int size : {64, 24}) {
      std::vector<float> tile(size_t(size) * size * 3);
      for (float& v : tile) v = sample(rng);
      const std::vector<float> a = forward(net, tile, size, avx2), b = forward(net, tile, size, avx512);
      size_t differ = 0, first = a.size();
      for (size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && differ++ == 0) first = i;
      // Where they differ, by how much: an ulp or two is a product rounded
      // on its own (no FMA); more is a different sum.
      EXPECT_EQ(differ, 0u) << "tile " << size << ": " << differ << " of " << a.size() << " outputs differ, the first ["
                            << first << "] " << (first < a.size() ? a[first] : 0.0f) << " (AVX2) against "
                            << (first < b.size() ? b[first] : 0.0f) << " (AVX-512)";
    }
  }
}

TEST(NoiseNetForward, RefusesTilesItCannotRun) {
  EW_SEEDED_RNG(rng);
  NoiseNet net = random_network(kV1, rng);
  NoiseNetScratch scratch;
  std::vector<float> tile(60 * 60 * 3, 0.5f), out(64 * 18, 0.0f);
  EXPECT_THROW(noise_net_forward(net, tile.data(), 60, out.data(), scratch), std::invalid_argument);
  EXPECT_THROW(noise_net_forward(net, tile.data(), 0, out.data(), scratch), std::invalid_argument);
  net.layers[3].weights[0] += 1.0f;
  net.layers[3].packed_weights.clear();  // weights changed, not prepared again
  EXPECT_THROW(noise_net_forward(net, tile.data(), 56, out.data(), scratch), std::invalid_argument);
}

TEST(NoiseNetForward, CountsItsMultiplyAdds) {
  EW_SEEDED_RNG(rng);
  const NoiseNet net = random_network(kV1, rng);
  EXPECT_EQ(net.cell, 8);
  // 64^2 (27 16) + 32^2 (144 32 + 288 32) + 16^2 (288 48 + 432 48) + 8^2 (432 64 + 576 64 + 64 18).
  EXPECT_EQ(noise_net_macs(net, 64),
            4096 * 432 + 1024 * (4608 + 9216) + 256 * (13824 + 20736) + 64 * (27648 + 36864 + 1152));
}

// ---- The file ----

class NoiseNetFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/edgewise-noise-net-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& path : written_) std::remove(path.c_str());
    rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    written_.push_back(path);
    return path;
  }
  // Loading `bytes` fails with a message that names the file and holds `what`.
  void expect_refused(const std::string& name, const std::vector<uint8_t>& bytes, const std::string& what) {
    const std::string path = write(name, bytes);
    try {
      load_noise_net(path);
      ADD_FAILURE() << name << ": loaded; expected \"" << what << "\"";
    } catch (const NoiseNetError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << name << ": the message does not name the file: " << message;
      EXPECT_NE(message.find(what), std::string::npos) << name << ": expected \"" << what << "\" in: " << message;
    }
  }
  std::string dir_;
  std::vector<std::string> written_;
};

// A file from its header text and payload, with its checksum.
std::vector<uint8_t> file_bytes(const std::string& header, const std::vector<float>& payload) {
  std::vector<uint8_t> bytes = {'E', 'W', 'N', 'N', 1, 0, 0, 0};
  for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  const size_t at = bytes.size();
  bytes.resize(at + 4 * payload.size());
  std::memcpy(&bytes[at], payload.data(), 4 * payload.size());  // little-endian, as x86
  const Sha256Digest digest = sha256(bytes.data(), bytes.size());
  bytes.insert(bytes.end(), digest.begin(), digest.end());
  return bytes;
}

TEST_F(NoiseNetFile, RoundTrip) {
  EW_SEEDED_RNG(rng);
  NoiseNet net = random_network(kV1, rng);
  net.output_names = {"R0", "R1", "R2", "G0",  "G1",  "G2",  "B0",  "B1",  "B2",
                      "Y0", "Y1", "Y2", "C10", "C11", "C12", "C20", "C21", "C22"};
  net.info = {{"trained", "2026-12-06 on 123 images, seed 7"}, {"images", "123"}, {"trained", "again"}};
  const std::vector<uint8_t> bytes = serialize_noise_net(net);
  const std::string path = write("v1.ewnn", bytes);
  save_noise_net(net, path + "2");
  written_.push_back(path + "2");
  const NoiseNet back = load_noise_net(path);
  EXPECT_EQ(back.model, "noise-map");
  EXPECT_EQ(back.version, kNoiseNetVersion);
  EXPECT_EQ(back.tile, 64);
  EXPECT_EQ(back.cell, 8);
  EXPECT_EQ(back.outputs, 18);
  EXPECT_EQ(back.output_names, net.output_names);
  EXPECT_EQ(back.info, net.info);
  EXPECT_EQ(back.sha256_hex, sha256_hex(sha256(bytes.data(), bytes.size())));
  EXPECT_EQ(load_noise_net(path + "2").sha256_hex, back.sha256_hex);  // save_noise_net writes the same bytes
  ASSERT_EQ(back.layers.size(), net.layers.size());
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const NoiseNetLayer &a = net.layers[l], &b = back.layers[l];
    EXPECT_EQ(std::make_tuple(a.in, a.out, a.kernel, a.stride, a.relu),
              std::make_tuple(b.in, b.out, b.kernel, b.stride, b.relu));
    EXPECT_EQ(a.weights, b.weights);
    EXPECT_EQ(a.bias, b.bias);
    EXPECT_EQ(a.packed_weights, b.packed_weights);
  }
  // The header is the documented text.
  const std::string header(bytes.begin() + 12, bytes.begin() + 12 + (bytes[8] | bytes[9] << 8));
  const std::string start = "model noise-map\nversion 1\ninput rgb-0.5\ntile 64\noutputs 18 R0 R1 ";
  EXPECT_EQ(header.substr(0, start.size()), start);
  EXPECT_NE(header.find("\nlayer conv 16 32 3 2 relu\n"), std::string::npos);
  EXPECT_NE(header.find("\nlayer conv 64 18 1 1 none\nfloats 114802\ntrained 2026-12-06 on 123 images, seed 7\n"),
            std::string::npos);
  // A header written by another program: blank lines, tabs, no final newline.
  const std::string other =
      "model noise-map\n\nversion\t1\ninput rgb-0.5\ntile 2\noutputs 1 x\nlayer conv 3 1 1 1 none\nnote  two  spaces"
      "\nfloats 4";
  const NoiseNet read = parse_noise_net(file_bytes(other, {1, 2, 3, 0.5f}), "other");
  ASSERT_EQ(read.info.size(), 1u);
  EXPECT_EQ(read.info[0], std::make_pair(std::string("note"), std::string("two  spaces")));
  EXPECT_EQ(read.layers[0].weights, (std::vector<float>{1, 2, 3}));
}

TEST_F(NoiseNetFile, RefusesWhatItCannotRun) {
  EW_SEEDED_RNG(rng);
  const NoiseNet good = random_network(kV1, rng);
  const std::vector<uint8_t> bytes = serialize_noise_net(good);
  auto changed = [&](const std::function<void(NoiseNet&)>& change) {
    NoiseNet net = good;
    change(net);
    return serialize_noise_net(net);
  };

  // The file itself.
  const std::string missing = dir_ + "/missing.ewnn";
  try {
    load_noise_net(missing);
    ADD_FAILURE() << "a missing file loaded";
  } catch (const NoiseNetError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the network file " + missing), std::string::npos) << e.what();
  }
  std::vector<uint8_t> png = bytes;
  std::memcpy(png.data(), "\x89PNG", 4);
  expect_refused("png.ewnn", png, "is not an Edgewise network file");
  expect_refused("empty.ewnn", {}, "is not an Edgewise network file");
  expect_refused("eight.ewnn", {'E', 'W', 'N', 'N', 1, 0, 0, 0}, "is truncated");
  std::vector<uint8_t> format2 = bytes;
  format2[4] = 2;
  expect_refused("format2.ewnn", format2, "is in network file format 2; this Edgewise reads format 1");
  expect_refused("truncated.ewnn", std::vector<uint8_t>(bytes.begin(), bytes.end() - 100), "is truncated");
  expect_refused("header-cut.ewnn", std::vector<uint8_t>(bytes.begin(), bytes.begin() + 100), "is truncated");
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  expect_refused("longer.ewnn", longer, "is damaged");
  std::vector<uint8_t> flipped = bytes;
  flipped[bytes.size() - 32 - 1000] ^= 0x10;  // a payload byte
  expect_refused("flipped.ewnn", flipped, "is damaged: its checksum does not match");
  std::vector<uint8_t> header_flipped = bytes;
  header_flipped[12 + 45] ^= 0x01;  // a header byte ("tile 64" becomes "tile 65" or the like)
  expect_refused("header-flipped.ewnn", header_flipped, "is damaged: its checksum does not match");
  std::vector<uint8_t> digest_flipped = bytes;
  digest_flipped.back() ^= 0x80;
  expect_refused("digest-flipped.ewnn", digest_flipped, "is damaged: its checksum does not match");

  // The model and its version.
  expect_refused("version2.ewnn", changed([](NoiseNet& n) { n.version = 2; }),
                 "was made for version 2; this Edgewise reads version 1");
  expect_refused("model.ewnn", changed([](NoiseNet& n) { n.model = "denoiser"; }), "holds a \"denoiser\" model");
  // A later version's header may say things this one cannot read: the version is what it hears of.
  std::string future =
      "model noise-map\nversion 3\ninput rgb-0.5\ntile 8\noutputs 1 x\nlayer attention 3 1 heads 4\nfloats 4\n";
  expect_refused("future.ewnn", file_bytes(future, {1, 2, 3, 4}), "was made for version 3");

  // The header's lines.
  const std::string base = "model noise-map\nversion 1\ninput rgb-0.5\ntile 8\noutputs 1 x\n";
  const std::vector<float> four = {1, 2, 3, 4};
  expect_refused("bad-layer.ewnn", file_bytes(base + "layer conv 3 1 x 1 none\nfloats 4\n", four),
                 "header line 6 (\"layer conv 3 1 x 1 none\") is not understood");
  expect_refused("bad-activation.ewnn", file_bytes(base + "layer conv 3 1 1 1 tanh\nfloats 4\n", four),
                 "activation is relu or none");
  expect_refused("names.ewnn",
                 file_bytes("model noise-map\nversion 1\ninput rgb-0.5\ntile 8\noutputs 2 x\n"
                            "layer conv 3 1 1 1 none\nfloats 4\n",
                            four),
                 "counts 2 outputs but names 1");
  expect_refused("twice.ewnn", file_bytes(base + "tile 8\nlayer conv 3 1 1 1 none\nfloats 4\n", four),
                 "a second \"tile\" line");
  expect_refused("no-value.ewnn", file_bytes(base + "comment\nlayer conv 3 1 1 1 none\nfloats 4\n", four),
                 "a key without a value");
  expect_refused("binary.ewnn", file_bytes(base + "note caf\xc3\xa9\nlayer conv 3 1 1 1 none\nfloats 4\n", four),
                 "not printable ASCII");
  expect_refused("no-tile.ewnn",
                 file_bytes("model noise-map\nversion 1\ninput rgb-0.5\noutputs 1 x\n"
                            "layer conv 3 1 1 1 none\nfloats 4\n",
                            four),
                 "has no \"tile\" line");
  expect_refused("input.ewnn",
                 file_bytes("model noise-map\nversion 1\ninput linear\ntile 8\noutputs 1 x\n"
                            "layer conv 3 1 1 1 none\nfloats 4\n",
                            four),
                 "takes its input as \"linear\"");

  // The architecture.
  const std::string cannot = "describes a network this Edgewise cannot run: ";
  expect_refused("first.ewnn", changed([](NoiseNet& n) {
                   n.layers[0].in = 4;
                   n.layers[0].weights.resize(16 * 4 * 9);
                 }),
                 cannot + "its first layer takes 4 channels, not the 3 of R'G'B'");
  expect_refused("chain.ewnn", changed([](NoiseNet& n) {
                   n.layers[2].in = 16;
                   n.layers[2].weights.resize(32 * 16 * 9);
                 }),
                 cannot + "layer 3 takes 16 channels but layer 2 gives 32");
  expect_refused("last-relu.ewnn", changed([](NoiseNet& n) { n.layers.back().relu = true; }),
                 cannot + "its last layer ends in relu");
  expect_refused("outputs.ewnn", changed([](NoiseNet& n) {
                   n.outputs = 17;
                   n.output_names.pop_back();
                 }),
                 cannot + "its last layer gives 18 channels for 17 outputs");
  expect_refused("even-kernel.ewnn", changed([](NoiseNet& n) {
                   n.layers[1].kernel = 2;
                   n.layers[1].weights.resize(32 * 16 * 4);
                 }),
                 cannot + "layer 2's kernel is 2 (an odd size");
  expect_refused("zero-kernel.ewnn", changed([](NoiseNet& n) {
                   n.layers[7].kernel = 0;
                   n.layers[7].weights.clear();
                 }),
                 cannot + "layer 8's kernel is 0");
  expect_refused("stride.ewnn", changed([](NoiseNet& n) { n.layers[1].stride = 3; }),
                 cannot + "layer 2's stride is 3 (1 or 2)");
  expect_refused("tile.ewnn", changed([](NoiseNet& n) { n.tile = 60; }),
                 cannot + "its tile is 60, not a positive multiple of its cell (8 pixels)");
  expect_refused("no-layers.ewnn", changed([](NoiseNet& n) { n.layers.clear(); }), cannot + "it has no layers");
  expect_refused("float-count.ewnn", changed([](NoiseNet& n) { n.layers.back().bias.pop_back(); }),
                 "holds 114801 floats where its layers need 114802");
  expect_refused("nan.ewnn", changed([](NoiseNet& n) { n.layers[4].weights[7] = std::nanf(""); }),
                 "holds a weight that is not a finite number (layer 5, number 7)");
  expect_refused("inf.ewnn", changed([](NoiseNet& n) { n.layers[0].bias[3] = std::numeric_limits<float>::infinity(); }),
                 "holds a bias that is not a finite number (layer 1, number 3)");
}

TEST(NoiseNetPrepare, RefusesANetworkItCannotRun) {
  EW_SEEDED_RNG(rng);
  NoiseNet net = random_network(kSmall, rng);
  net.layers[1].weights.pop_back();
  try {
    prepare_noise_net(net);
    ADD_FAILURE() << "prepared";
  } catch (const NoiseNetError& e) {
    EXPECT_NE(std::string(e.what()).find("layer 2 holds 999 weights and 5 biases where its shape needs 1000 and 5"),
              std::string::npos)
        << e.what();
  }
  NoiseNet named = random_network(kSmall, rng);
  named.output_names[0] = "two words";
  EXPECT_THROW(serialize_noise_net(named), NoiseNetError);
}

}  // namespace
