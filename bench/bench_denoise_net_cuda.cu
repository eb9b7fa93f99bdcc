// The learned denoiser's forward pass on the GPU (cuda/denoise_net_cuda.h)
// on one tile of a photo's size (default 6000 x 4000, 24 MP), random
// samples and map: kernel time by CUDA events, the median of 7 after a
// warm-up, with the multiply-adds it stands for and the rate. The peer is
// bench/peers/torch_denoiser.py (PyTorch on the same file, the same size).
//
// Usage: bench_denoise_net_cuda FILE.ewnn [width height]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "denoise_net_cuda.h"

using namespace edgewise;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.ewnn [width height]\n", argv[0]);
    return 2;
  }
  const std::string why = cuda::denoise_net_unsupported();
  if (!why.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  const DenoiseNet d = load_denoise_net(argv[1]);
  const int width = argc > 3 ? std::atoi(argv[2]) / d.align * d.align : 6000;
  const int height = argc > 3 ? std::atoi(argv[3]) / d.align * d.align : 4000;
  const cuda::DeviceDenoiseNet net(d);
  const size_t pixels = size_t(width) * height, map_floats = pixels / 4 * size_t(d.map_channels);
  std::vector<float> rgb(pixels * 3), map(map_floats);
  std::mt19937 rng(36);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  for (float& v : rgb) v = sample(rng);
  for (float& v : map) v = sample(rng) - 0.5f;
  cuda::DeviceMemory d_rgb(rgb.size() * 4), d_map(map.size() * 4), d_out(rgb.size() * 4),
      work(net.workspace_bytes(width, height));
  cuda::check(cudaMemcpy(d_rgb.as<float>(), rgb.data(), rgb.size() * 4, cudaMemcpyHostToDevice), "upload");
  cuda::check(cudaMemcpy(d_map.as<float>(), map.data(), map.size() * 4, cudaMemcpyHostToDevice), "upload");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int r = 0; r < 8; ++r) {
    cudaEventRecord(start);
    net.forward(d_rgb.as<float>(), d_map.as<float>(), width, height, d_out.as<float>(), work.as<void>(), nullptr);
    cudaEventRecord(stop);
    cuda::check(cudaEventSynchronize(stop), "running the denoiser");
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (r) ms.push_back(t);  // the first warms up
  }
  std::sort(ms.begin(), ms.end());
  const double macs = double(denoise_net_macs(d, width, height));
  std::printf("%s, %d x %d (%.1f MP): %.2f ms median of %zu (%.2f-%.2f); %.2f T multiply-adds, %.0f TFLOP/s; "
              "workspace %.0f MiB\n",
              argv[1], width, height, double(pixels) / 1e6, ms[ms.size() / 2], ms.size(), ms.front(), ms.back(),
              macs / 1e12, 2 * macs / (ms[ms.size() / 2] * 1e-3) / 1e12,
              double(net.workspace_bytes(width, height)) / 1048576.0);
  return 0;
}
