// The noise network's CPU forward pass (core/noise_net_forward.cpp): the v1
// architecture with random He-scaled weights on random 64 x 64 tiles, each
// instruction set on one thread, then the widest on 1 and 2 threads (OpenMP
// over tiles, one scratch a thread, as core/learned_noise runs it). Prints
// ms a tile, tiles a second and GMAC/s (the network's multiply-adds, not
// the padded ones), the median of 7 runs of a batch after a warm-up.
//
// Usage: bench_noise_net_cpu [tiles per batch]   (default 64)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "noise_net.h"

namespace {

using namespace edgewise;

constexpr int kRepeats = 7;

NoiseNet v1_network(std::mt19937& rng) {
  const int shape[][4] = {{3, 16, 3, 1},  {16, 32, 3, 2}, {32, 32, 3, 1}, {32, 48, 3, 2},
                          {48, 48, 3, 1}, {48, 64, 3, 2}, {64, 64, 3, 1}, {64, 18, 1, 1}};
  NoiseNet net;
  net.tile = 64;
  net.outputs = 18;
  for (const char* name : {"R0", "R1", "R2", "G0", "G1", "G2", "B0", "B1", "B2", "Y0", "Y1", "Y2", "C10", "C11", "C12",
                           "C20", "C21", "C22"})
    net.output_names.push_back(name);
  for (const auto& s : shape) {
    NoiseNetLayer layer;
    layer.in = s[0];
    layer.out = s[1];
    layer.kernel = s[2];
    layer.stride = s[3];
    layer.relu = layer.out != 18;
    const float bound = std::sqrt(6.0f / float(layer.in * layer.kernel * layer.kernel));
    std::uniform_real_distribution<float> weight(-bound, bound), bias(-0.1f, 0.1f);
    for (int i = 0; i < layer.out * layer.in * layer.kernel * layer.kernel; ++i) layer.weights.push_back(weight(rng));
    for (int i = 0; i < layer.out; ++i) layer.bias.push_back(bias(rng));
    net.layers.push_back(std::move(layer));
  }
  prepare_noise_net(net);
  return net;
}

// Median seconds of one batch of `tiles` tiles on `threads` threads.
double batch_seconds(const NoiseNet& net, const std::vector<float>& tiles, int count, int threads, NoiseNetIsa isa) {
  const int size = net.tile, cells = size / net.cell;
  std::vector<float> out(size_t(count) * cells * cells * net.outputs);
  std::vector<NoiseNetScratch> scratch(static_cast<size_t>(threads));
  for (NoiseNetScratch& s : scratch) s.isa = isa;
  auto batch = [&] {
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int t = 0; t < count; ++t)
      noise_net_forward(net, &tiles[size_t(t) * size * size * 3], size, &out[size_t(t) * cells * cells * net.outputs],
                        scratch[size_t(omp_get_thread_num())]);
  };
  batch();
  std::vector<double> times;
  for (int r = 0; r < kRepeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    batch();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::max(1, std::atoi(argv[1])) : 64;
  std::mt19937 rng(2026);
  const NoiseNet net = v1_network(rng);
  std::vector<float> tiles(size_t(count) * net.tile * net.tile * 3);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  for (float& v : tiles) v = sample(rng);
  const double macs = double(noise_net_macs(net, net.tile));
  std::printf("noise network v1, %dx%d tiles (%.1f M multiply-adds each), batches of %d, median of %d\n\n", net.tile,
              net.tile, macs / 1e6, count, kRepeats);
  std::printf("%-8s %8s %10s %10s %8s\n", "isa", "threads", "ms/tile", "tiles/s", "GMAC/s");
  auto row = [&](NoiseNetIsa isa, int threads) {
    const double seconds = batch_seconds(net, tiles, count, threads, isa);
    std::printf("%-8s %8d %10.3f %10.0f %8.1f\n", noise_net_isa_name(isa), threads, 1e3 * seconds / count,
                count / seconds, macs * count / seconds / 1e9);
  };
  for (NoiseNetIsa isa : {NoiseNetIsa::generic, NoiseNetIsa::avx2, NoiseNetIsa::avx512})
    if (isa <= noise_net_machine_isa()) row(isa, 1);
  row(NoiseNetIsa::automatic, 2);
  return 0;
}
