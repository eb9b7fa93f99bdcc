// The noise-map network's forward pass on the GPU (cuda/noise_net_cuda.h:
// fp16 tensors on the tensor cores) against the double reference and the
// CPU's, on random networks of the training code's architectures and of
// awkward shapes, and on the shipped network; tiles run in batches must
// give each tile's bits alone. Where no usable GPU exists (or the build has
// no CUDA) every test reports itself skipped with the reason;
// tests/gpu/run.sh runs them on the device.
//
// Tolerance: the GPU rounds the input (sample - 0.5), every stored
// activation and every weight to fp16 (relative error RMS 2^-11 / sqrt(3)
// each, sums in fp32; the last layer's outputs stay fp32). A He-scaled
// layer passes an error on with gain about 1 and adds two new independent
// ones (its weights', its output's), so the output's relative RMS error is
// about 2^-11 / sqrt(3) x sqrt(2 L + 1) for L layers: 1.2e-3 for v1. The
// bound is three times that; the largest error five times the bound (of
// 10^3-10^4 outputs, a normal error's largest is about 4 RMS). One wrong
// tap, channel or border costs an output about 1 / sqrt(taps), 4 % to 15 %,
// far over both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "noise_net.h"
#include "noise_net_test_support.h"
#include "reference/noise_net_reference.h"
#include "test_support.h"

#if EDGEWISE_HAVE_CUDA
#include "noise_net_cuda.h"
#include "require_tensor_cores.h"
#endif

namespace {

using namespace edgewise;
using namespace edgewise_test;
using namespace edgewise_test::noise_nets;

#if EDGEWISE_HAVE_CUDA
// Tiles (each size x size x 3 interleaved samples) through the GPU in one
// batch: CHW uploads, one forward, the cells of every tile.
std::vector<float> gpu_forward(const cuda::DeviceNoiseNet& gpu, const std::vector<std::vector<float>>& tiles) {
  const NoiseNet& net = gpu.net();
  const int t = net.tile, n = int(tiles.size()), cells = (t / net.cell) * (t / net.cell) * net.outputs;
  std::vector<float> chw(size_t(n) * 3 * t * t);
  for (int k = 0; k < n; ++k)
    for (int p = 0; p < t * t; ++p)
      for (int c = 0; c < 3; ++c) chw[(size_t(k) * 3 + size_t(c)) * t * t + size_t(p)] = tiles[size_t(k)][size_t(p) * 3 + size_t(c)];
  cuda::DeviceMemory input(chw.size() * 4), out(size_t(n) * cells * 4), work(gpu.workspace_bytes(n));
  cuda::check(cudaMemcpy(input.as<float>(), chw.data(), chw.size() * 4, cudaMemcpyHostToDevice), "test upload");
  cuda::check(cudaMemset(out.as<float>(), 0xff, size_t(n) * cells * 4), "test poison");  // NaN where nothing is written
  gpu.forward(input.as<float>(), n, out.as<float>(), work.as<void>(), nullptr);
  cuda::check(cudaDeviceSynchronize(), "test run");
  std::vector<float> cells_out(size_t(n) * cells);
  cuda::check(cudaMemcpy(cells_out.data(), out.as<float>(), cells_out.size() * 4, cudaMemcpyDeviceToHost),
              "test download");
  return cells_out;
}

double relative_bound(const NoiseNet& net) {
  return 3.0 * std::ldexp(1.0, -11) / std::sqrt(3.0) * std::sqrt(2.0 * double(net.layers.size()) + 1.0);
}

struct Errors {
  double relative = 0, largest = 0, rms = 0, cpu_largest = 0;
  bool written = true;
};

// The GPU's cells of tile k of a batch against the reference and the CPU.
Errors compare(const NoiseNet& net, const std::vector<float>& got, size_t k, const std::vector<float>& tile) {
  const int t = net.tile;
  const std::vector<double> ref =
      edgewise_reference::noise_net_reference(reference_layers(net), std::vector<double>(tile.begin(), tile.end()), t);
  std::vector<float> cpu(ref.size());
  NoiseNetScratch scratch;
  noise_net_forward(net, tile.data(), t, cpu.data(), scratch);
  Errors e;
  double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double g = got[k * ref.size() + i], d = g - ref[i];
    e.written = e.written && std::isfinite(g);
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    e.largest = std::max(e.largest, std::abs(d));
    e.cpu_largest = std::max(e.cpu_largest, std::abs(g - double(cpu[i])));
  }
  e.relative = std::sqrt(diff2 / ref2);
  e.rms = std::sqrt(ref2 / double(ref.size()));
  return e;
}

std::vector<float> random_tile(int t, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  std::vector<float> tile(size_t(t) * t * 3);
  for (float& v : tile) v = sample(rng);
  return tile;
}

// A photo-like tile: a smooth gradient with Gaussian noise of `sigma` (0..1).
std::vector<float> noisy_tile(int t, double sigma, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<float> tile(size_t(t) * t * 3);
  for (int y = 0; y < t; ++y)
    for (int x = 0; x < t; ++x)
      for (int c = 0; c < 3; ++c)
        tile[(size_t(y) * t + size_t(x)) * 3 + size_t(c)] =
            float(std::clamp(0.3 + 0.4 * (x + y) / (2.0 * t) + 0.05 * c + noise(rng), 0.0, 1.0));
  return tile;
}

TEST(CudaNoiseNet, MatchesTheReferenceAndTheCpu) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  // v1 at its training tile; the small one at 24 (cell 1); the odd one at
  // 40 (cell 4: a 10 x 10 output, so the last blocks are partial).
  const struct {
    const char* name;
    const std::vector<Shape>* shapes;
    int tile;
  } cases[] = {{"v1", &kV1, 64}, {"small", &kSmall, 24}, {"odd", &kOdd, 40}};
  int compared = 0;
  for (const auto& c : cases) {
    const NoiseNet net = random_network(*c.shapes, rng, c.tile);
    const cuda::DeviceNoiseNet gpu(net);
    std::vector<std::vector<float>> tiles;
    for (int k = 0; k < 5; ++k) tiles.push_back(random_tile(c.tile, rng));
    const std::vector<float> got = gpu_forward(gpu, tiles);
    for (size_t k = 0; k < tiles.size(); ++k) {
      SCOPED_TRACE(std::string(c.name) + ", tile " + std::to_string(k) + " of the batch");
      const Errors e = compare(net, got, k, tiles[k]);
      const double bound = relative_bound(net);
      EXPECT_TRUE(e.written) << "an output was not written (or is not finite)";
      EXPECT_LT(e.relative, bound);
      EXPECT_LE(e.largest, 5 * bound * e.rms);
      ++compared;
      std::printf("[   INFO   ] %-5s tile %zu: relative RMS error %.2e (bound %.2e), largest %.2e (of RMS %.2e), "
                  "largest GPU - CPU %.2e\n",
                  c.name, k, e.relative, bound, e.largest, e.rms, e.cpu_largest);
    }
  }
  EXPECT_EQ(compared, 15);
}

// The shipped network on photo-like tiles: its outputs are log-variances,
// so an error of d is a factor exp(d / 2) on the noise's sigma.
TEST(CudaNoiseNet, ShippedNetworkMatchesTheReference) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  const NoiseNet net = load_noise_net(std::string(EDGEWISE_SOURCE_DIR) + "/models/noise_net-v1.ewnn");
  const cuda::DeviceNoiseNet gpu(net);
  std::vector<std::vector<float>> tiles;
  for (double sigma : {1.0, 5.0, 20.0}) tiles.push_back(noisy_tile(net.tile, sigma / 255.0, rng));
  const std::vector<float> got = gpu_forward(gpu, tiles);
  for (size_t k = 0; k < tiles.size(); ++k) {
    SCOPED_TRACE("tile " + std::to_string(k));
    const Errors e = compare(net, got, k, tiles[k]);
    const double bound = relative_bound(net);
    EXPECT_TRUE(e.written);
    EXPECT_LT(e.relative, bound);
    EXPECT_LE(e.largest, 5 * bound * e.rms);
    std::printf("[   INFO   ] shipped, tile %zu: relative RMS error %.2e (bound %.2e), largest %.2e log-variance "
                "(sigma off by %.3f %%), largest GPU - CPU %.2e\n",
                k, e.relative, bound, e.largest, 100 * (std::exp(e.largest / 2) - 1), e.cpu_largest);
  }
}

// A tile gives the same bits alone as in any place of a batch.
TEST(CudaNoiseNet, BatchesGiveEachTilesBits) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  const NoiseNet net = random_network(kOdd, rng, 40);
  const cuda::DeviceNoiseNet gpu(net);
  std::vector<std::vector<float>> tiles;
  for (int k = 0; k < 7; ++k) tiles.push_back(random_tile(net.tile, rng));
  const std::vector<float> batch = gpu_forward(gpu, tiles);
  const size_t cells = batch.size() / tiles.size();
  for (size_t k : {size_t(0), size_t(3), size_t(6)}) {
    const std::vector<float> alone = gpu_forward(gpu, {tiles[k]});
    EXPECT_EQ(0, std::memcmp(alone.data(), batch.data() + k * cells, cells * sizeof(float))) << "tile " << k;
  }
}

TEST(CudaNoiseNet, RefusesWhatItCannotRun) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  NoiseNet net = random_network(kSmall, rng, 24);
  net.layers[0].kernel = 7;
  net.layers[0].weights.resize(size_t(net.layers[0].out) * net.layers[0].in * 49);
  EXPECT_THROW(cuda::DeviceNoiseNet{net}, std::invalid_argument);
}
#else
TEST(CudaNoiseNet, MatchesTheReferenceAndTheCpu) { GTEST_SKIP() << "no usable CUDA device: this build has no CUDA"; }
TEST(CudaNoiseNet, ShippedNetworkMatchesTheReference) {
  GTEST_SKIP() << "no usable CUDA device: this build has no CUDA";
}
TEST(CudaNoiseNet, BatchesGiveEachTilesBits) { GTEST_SKIP() << "no usable CUDA device: this build has no CUDA"; }
TEST(CudaNoiseNet, RefusesWhatItCannotRun) { GTEST_SKIP() << "no usable CUDA device: this build has no CUDA"; }
#endif

}  // namespace
