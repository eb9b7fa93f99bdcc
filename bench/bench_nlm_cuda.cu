// The non-local-means bilateral filter's GPU kernel (run on the device
// machine): a 12 MP RGB image resident on the GPU, S = 10, the fused
// kernel's time per mode and patch radius, and the rate of pixel-offset
// evaluations (pixels * (2S+1)^2 per second). Medians of 9 device-event
// timings after a warm-up. bench/RESULTS.md, "Non-local means (issue 13)".
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "color_lab.h"
#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"
#include "nlm_cuda.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;

namespace {

constexpr int kWidth = 4240, kHeight = 2832;  // 12.0 MP

float sample(int x, int y, int c, std::mt19937& rng) {
  std::normal_distribution<float> noise(0.0f, 20.0f / 255.0f);
  const float base = 0.5f + 0.3f * std::sin(x * 0.01f + c) * std::cos(y * 0.013f) + ((x / 300 + y / 200) % 2) * 0.15f;
  return std::clamp(base + noise(rng), 0.0f, 1.0f);
}

void row(ColorMode mode, int search, int patch, std::mt19937& rng) {
  NlmParameters parameters;
  parameters.mode = mode;
  parameters.search_radius = search;
  parameters.patch_radius = patch;
  parameters.h = mode == ColorMode::lab ? 4.0f : 9.0f;
  parameters.sigma_n = mode == ColorMode::lab ? 5.0f : 20.0f;
  const auto planned = make_plan(nlm_spec(parameters), {kWidth, kHeight, 3});
  const auto& plan = static_cast<const NlmPlan&>(*planned);
  const int reach = plan.reach, pw = plan.padded_width(), prow = kHeight + 2 * reach;
  const size_t plane = size_t(pw) * prow;
  std::vector<float> host(plane * 3);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < prow; ++y)
      for (int x = 0; x < pw; ++x) host[c * plane + size_t(y) * pw + x] = sample(x, y, c, rng);
  if (plan.params.lab)
    for (size_t i = 0; i < plane; ++i)
      rgb_to_lab(host[i], host[plane + i], host[2 * plane + i], host[i], host[plane + i], host[2 * plane + i]);
  cuda::DeviceMemory in_memory(host.size() * sizeof(float)), out_memory(size_t(kWidth) * kHeight * 3 * 4);
  cuda::check(cudaMemcpy(in_memory.as<float>(), host.data(), host.size() * 4, cudaMemcpyHostToDevice), "upload");
  const cuda::DeviceBand in = cuda::describe_device_band(in_memory.as<float>(), -reach, prow, kWidth, reach);
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, kHeight, kWidth, size_t(kWidth), size_t(kWidth) * kHeight};
  const float ms = median_event_ms([&] { cuda::launch_nlm(plan, in, out, nullptr); }, 9);
  const double evaluations = double(kWidth) * kHeight * double(plan.offsets());
  std::printf("%-12s %3d %3d %10.3f %12.1f\n", to_string(mode), search, patch, ms, evaluations / (ms * 1e-3) / 1e9);
}

}  // namespace

int main() {
  std::string device;
  find_backend(installed_backends(), "cuda")->usable(device);
  std::printf("device: %s\n12 MP RGB (%dx%d), kernel alone, data resident\n", device.c_str(), kWidth, kHeight);
  std::printf("%-12s %3s %3s %10s %12s\n", "mode", "S", "f", "kernel ms", "G evals/s");
  try {
    std::mt19937 rng(13);
    for (ColorMode mode : {ColorMode::rgb, ColorMode::per_channel, ColorMode::lab}) row(mode, 10, 2, rng);
    for (int patch : {0, 1, 3, 5}) row(ColorMode::rgb, 10, patch, rng);
    row(ColorMode::rgb, 5, 2, rng);
    row(ColorMode::rgb, 20, 2, rng);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_nlm_cuda: %s\n", error.what());
    return 1;
  }
  return 0;
}
