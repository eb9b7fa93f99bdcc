// The learned denoiser's CPU forward pass (core/denoise_net_forward.cpp) on
// random tiles and maps of several sizes: each instruction set on one
// thread, then the widest on 2 threads (one tile each, as a band executor
// runs them). Prints ms a tile, megapixels a second and GMAC/s (the
// program's multiply-adds, not the padded ones), the median of 5 runs
// after a warm-up. Weights do not change the time (no denormals: a trained
// file and an untrained export time alike).
//
// Usage: bench_denoise_net_cpu FILE.ewnn [tile sides...]   (default 128 256 384 640)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "denoise_net.h"

namespace {

using namespace edgewise;

constexpr int kRepeats = 5;

double median_seconds(const DenoiseNet& d, int side, int threads, NoiseNetIsa isa) {
  std::mt19937 rng(35);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f), level(-1.0f, 1.0f);
  std::vector<float> rgb(size_t(side) * side * 3), out(rgb.size());
  const int m = side / d.map_resolution;
  std::vector<float> map(size_t(m) * m * size_t(d.map_channels));
  for (float& v : rgb) v = sample(rng);
  for (float& v : map) v = level(rng);
  std::vector<DenoiseNetScratch> scratch(static_cast<size_t>(threads));
  std::vector<std::vector<float>> outs(size_t(threads), out);
  for (DenoiseNetScratch& s : scratch) s.isa = isa;
  auto run = [&] {
#pragma omp parallel for num_threads(threads)
    for (int t = 0; t < threads; ++t)
      denoise_net_forward(d, rgb.data(), map.data(), side, side, outs[size_t(t)].data(), scratch[size_t(t)]);
  };
  run();
  std::vector<double> times;
  for (int r = 0; r < kRepeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.ewnn [tile sides...]\n", argv[0]);
    return 2;
  }
  const DenoiseNet d = load_denoise_net(argv[1]);
  std::vector<int> sides;
  for (int i = 2; i < argc; ++i) sides.push_back(std::atoi(argv[i]));
  if (sides.empty()) sides = {128, 256, 384, 640};
  std::printf("%s: %.1f k multiply-adds a pixel; median of %d\n\n", argv[1],
              double(denoise_net_macs(d, 256, 256)) / (256.0 * 256.0) / 1e3, kRepeats);
  std::printf("%-8s %8s %6s %10s %8s %8s\n", "isa", "threads", "tile", "ms/tile", "MP/s", "GMAC/s");
  for (int side : sides) {
    side = std::max(d.align, side / d.align * d.align);
    const double macs = double(denoise_net_macs(d, side, side));
    auto row = [&](NoiseNetIsa isa, int threads) {
      const double seconds = median_seconds(d, side, threads, isa);
      std::printf("%-8s %8d %6d %10.1f %8.3f %8.1f\n", noise_net_isa_name(isa), threads, side, 1e3 * seconds,
                  threads * double(side) * side / seconds / 1e6, threads * macs / seconds / 1e9);
    };
    for (NoiseNetIsa isa : {NoiseNetIsa::generic, NoiseNetIsa::avx2, NoiseNetIsa::avx512})
      if (isa <= noise_net_machine_isa() && (side == sides.front() || isa == noise_net_machine_isa())) row(isa, 1);
    row(NoiseNetIsa::automatic, 2);
  }
  return 0;
}
