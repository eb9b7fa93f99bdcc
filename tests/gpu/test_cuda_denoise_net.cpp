// The learned denoiser's forward pass on the GPU (cuda/denoise_net_cuda.h)
// against the double reference and the CPU's, on random networks of the
// training program, random maps and tiles of awkward sizes. Where no
// usable GPU exists (or the build has no CUDA) every test reports itself
// skipped with the reason; tests/gpu/run.sh runs them on the device.
//
// Tolerance: the GPU stores every tensor in fp16 (relative rounding up to
// 2^-11, RMS about 2^-11 / sqrt(3)) and rounds the weights to fp16 once;
// the ~20 roundings a value passes through add as independent errors, so
// the output's relative RMS error is about 2^-11 / sqrt(3) x sqrt(2 x
// convolutions): 2e-3 for v1's 21 convolutions. The bound, 6e-3, is three
// times that, and far under one wrong tap, channel or border (an error of
// order 1 / sqrt(taps), several per cent).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "denoise_net_test_support.h"
#include "test_support.h"

#if EDGEWISE_HAVE_CUDA
#include "denoise_net_cuda.h"
#include "require_tensor_cores.h"
#endif

namespace {

using namespace edgewise;
using namespace edgewise_test;

#if EDGEWISE_HAVE_CUDA
struct DeviceTile {
  cuda::DeviceMemory rgb, map, out, workspace;
};

// One tile through the GPU: uploads, runs, downloads.
std::vector<float> gpu_forward(const cuda::DeviceDenoiseNet& net, const std::vector<float>& rgb,
                               const std::vector<float>& map, int width, int height) {
  DeviceTile t{cuda::DeviceMemory(rgb.size() * 4), cuda::DeviceMemory(map.size() * 4),
               cuda::DeviceMemory(rgb.size() * 4), cuda::DeviceMemory(net.workspace_bytes(width, height))};
  cuda::check(cudaMemcpy(t.rgb.as<float>(), rgb.data(), rgb.size() * 4, cudaMemcpyHostToDevice), "test upload");
  cuda::check(cudaMemcpy(t.map.as<float>(), map.data(), map.size() * 4, cudaMemcpyHostToDevice), "test upload");
  cuda::check(cudaMemset(t.out.as<float>(), 0xff, rgb.size() * 4), "test poison");  // NaN where nothing is written
  net.forward(t.rgb.as<float>(), t.map.as<float>(), width, height, t.out.as<float>(), t.workspace.as<void>(), nullptr);
  cuda::check(cudaDeviceSynchronize(), "test run");
  std::vector<float> out(rgb.size());
  cuda::check(cudaMemcpy(out.data(), t.out.as<float>(), out.size() * 4, cudaMemcpyDeviceToHost), "test download");
  return out;
}

TEST(CudaDenoiseNet, MatchesTheReferenceAndTheCpu) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  const std::pair<const char*, Spec> specs[] = {{"v1", kV1}, {"small", kSmall}, {"odd", kOdd}};
  int compared = 0;
  for (const auto& [name, spec] : specs) {
    const NoiseNet file = random_file(spec, rng);
    const DenoiseNet d = prepare_denoise_net(file);
    const cuda::DeviceDenoiseNet gpu(d);
    for (const auto& [width, height] : {std::pair{8, 8}, {16, 40}, {48, 24}, {72, 64}}) {
      std::vector<float> rgb(size_t(width) * height * 3), map(size_t(width / 2) * (height / 2) * d.map_channels);
      std::uniform_real_distribution<float> sample(0.0f, 1.0f), level(-2.0f, 2.0f);
      for (float& v : rgb) v = sample(rng);
      for (float& v : map) v = level(rng);
      const std::vector<double> ref = edgewise_reference::denoise_net_reference(
          reference_steps(file), std::vector<double>(rgb.begin(), rgb.end()), std::vector<double>(map.begin(), map.end()),
          width, height);
      const std::vector<float> got = gpu_forward(gpu, rgb, map, width, height);
      DenoiseNetScratch scratch;
      std::vector<float> cpu(rgb.size());
      denoise_net_forward(d, rgb.data(), map.data(), width, height, cpu.data(), scratch);
      double diff2 = 0, own2 = 0, largest = 0, cpu_largest = 0;
      bool written = true;
      for (size_t i = 0; i < got.size(); ++i) {
        written = written && std::isfinite(got[i]);
        const double d_ref = double(got[i]) - ref[i], own = ref[i] - rgb[i];
        diff2 += d_ref * d_ref;
        own2 += own * own;
        largest = std::max(largest, std::abs(d_ref));
        cpu_largest = std::max(cpu_largest, std::abs(double(got[i]) - double(cpu[i])));
      }
      const double relative = std::sqrt(diff2 / own2);
      SCOPED_TRACE(std::string(name) + ", " + std::to_string(width) + " x " + std::to_string(height));
      EXPECT_TRUE(written) << "an output was not written (or is not finite)";
      EXPECT_LT(relative, 6e-3);
      ++compared;
      std::printf("[   INFO   ] %-5s %2d x %2d: relative RMS error %.2e, largest %.2e (RMS of the network's part "
                  "%.2e), largest GPU - CPU %.2e\n",
                  name, width, height, relative, largest, std::sqrt(own2 / double(got.size())), cpu_largest);
    }
  }
  EXPECT_EQ(compared, 12);
}

TEST(CudaDenoiseNet, RunsAgainToTheBit) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  const DenoiseNet d = prepare_denoise_net(random_file(kV1, rng));
  const cuda::DeviceDenoiseNet gpu(d);
  const int width = 136, height = 96;
  std::vector<float> rgb(size_t(width) * height * 3), map(size_t(width / 2) * (height / 2) * d.map_channels);
  std::uniform_real_distribution<float> sample(0.0f, 1.0f);
  for (float& v : rgb) v = sample(rng);
  for (float& v : map) v = sample(rng) - 0.5f;
  const std::vector<float> a = gpu_forward(gpu, rgb, map, width, height), b = gpu_forward(gpu, rgb, map, width, height);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
}

TEST(CudaDenoiseNet, RefusesTilesOffTheGrid) {
  REQUIRE_TENSOR_CORES();
  EW_SEEDED_RNG(rng);
  const cuda::DeviceDenoiseNet gpu(prepare_denoise_net(random_file(kSmall, rng)));
  EXPECT_THROW(gpu.forward(nullptr, nullptr, 12, 8, nullptr, nullptr, nullptr), std::invalid_argument);
}
#else
TEST(CudaDenoiseNet, MatchesTheReferenceAndTheCpu) { GTEST_SKIP() << "no usable CUDA device: this build has no CUDA"; }
TEST(CudaDenoiseNet, RunsAgainToTheBit) { GTEST_SKIP() << "no usable CUDA device: this build has no CUDA"; }
TEST(CudaDenoiseNet, RefusesTilesOffTheGrid) { GTEST_SKIP() << "no usable CUDA device: this build has no CUDA"; }
#endif

}  // namespace
