// GPU benchmark (run on the device machine): for a 24 MP RGBA image resident
// on the GPU, the filter kernel's time and Gtaps/s (pixels * (2r+1)^2 per
// second) at r = 2, 7, 15 for each mode; then 24 MP 8-bit RGBA end to end,
// host -> GPU -> host, at r = 7 through the engine (pinned and pageable
// host memory, backend made per run or kept; `--end-to-end` runs only that). Timings are medians of device-event or
// host-clock runs after a warm-up. Prints one table.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bilateral_cuda.h"
#include "color_lab.h"
#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;

namespace {

constexpr int kWidth = 6000, kHeight = 4000;  // 24 MP

// A photo-like test card: smooth gradients, edges and noise, so weights vary.
float sample(int x, int y, int c, std::mt19937& rng) {
  std::normal_distribution<float> noise(0.0f, 0.03f);
  const float base = 0.5f + 0.3f * std::sin(x * 0.01f + c) * std::cos(y * 0.013f) + ((x / 300 + y / 200) % 2) * 0.15f;
  return std::clamp(base + noise(rng), 0.0f, 1.0f);
}

// EDGEWISE_BENCH_ONLY=mode:r (e.g. rgb:7) runs one row, for the profiler.
bool selected(ColorMode mode, int r) {
  const char* only = std::getenv("EDGEWISE_BENCH_ONLY");
  return !only || std::string(only) == std::string(to_string(mode)) + ":" + std::to_string(r);
}

void kernel_table() {
  std::mt19937 rng(7);
  std::printf("%-12s %3s %10s %10s %12s %8s\n", "mode", "r", "kernel ms", "Gtaps/s", "adaptive ms", "ratio");
  for (ColorMode mode : {ColorMode::per_channel, ColorMode::rgb, ColorMode::lab}) {
    for (int r : {2, 7, 15}) {
      if (!selected(mode, r)) continue;
      BilateralParameters parameters;
      parameters.mode = mode;
      parameters.radius = r;
      parameters.sigma_s = r / 2.0f;
      parameters.sigma_r = mode == ColorMode::lab ? 10.0f : 30.0f;
      const auto planned = make_plan(bilateral_spec(parameters), {kWidth, kHeight, 4});
      const auto& plan = static_cast<const BilateralPlan&>(*planned);
      const int pw = plan.padded_width(), prow = kHeight + 2 * r;
      const size_t plane = size_t(pw) * prow;
      std::vector<float> host(plane * 4);
      for (int c = 0; c < 4; ++c)
        for (int y = 0; y < prow; ++y)
          for (int x = 0; x < pw; ++x) {
            float v = c == 3 ? 1.0f : sample(x, y, c, rng);
            host[c * plane + size_t(y) * pw + x] = v;
          }
      if (plan.params.lab)  // the kernel works on Lab planes in lab mode
        for (size_t i = 0; i < plane; ++i)
          rgb_to_lab(host[i], host[plane + i], host[2 * plane + i], host[i], host[plane + i], host[2 * plane + i]);
      cuda::DeviceMemory in_memory(host.size() * sizeof(float)), out_memory(size_t(kWidth) * kHeight * 4 * 4);
      cuda::check(cudaMemcpy(in_memory.as<float>(), host.data(), host.size() * 4, cudaMemcpyHostToDevice), "upload");
      cuda::DeviceMemory table(plan.spatial_term.size() * sizeof(float));
      cuda::upload_spatial_table(plan, table.as<float>(), nullptr);
      const cuda::DeviceBand in = cuda::describe_device_band(in_memory.as<float>(), -r, prow, kWidth, r);
      const cuda::DeviceOutput out{out_memory.as<float>(),  0, kHeight, kWidth, size_t(kWidth),
                                   size_t(kWidth) * kHeight};
      const cuda::DeviceOutput no_sigma{};
      const float ms =
          median_event_ms([&] { cuda::launch_filter(plan, in, out, no_sigma, 0, table.as<float>(), nullptr); }, 9);
      const double taps = double(kWidth) * kHeight * double(plan.taps());
      // The adaptive filter on the same data: both walks fused in one kernel.
      const auto adaptive_planned = make_plan(adaptive_spec(parameters, {}), {kWidth, kHeight, 4});
      const auto& adaptive_plan = static_cast<const BilateralPlan&>(*adaptive_planned);
      const float adaptive_ms = median_event_ms(
          [&] { cuda::launch_filter(adaptive_plan, in, out, no_sigma, 0, table.as<float>(), nullptr); }, 9);
      std::printf("%-12s %3d %10.3f %10.1f %12.3f %8.2f\n", to_string(mode), r, ms, taps / (ms * 1e-3) / 1e9,
                  adaptive_ms, adaptive_ms / ms);
    }
  }
}

double end_to_end_ms(bool pinned, bool kept) {
  const size_t bytes = size_t(kWidth) * kHeight * 4;
  cuda::PinnedMemory pinned_in(pinned ? bytes : 0), pinned_out(pinned ? bytes : 0);
  std::vector<uint8_t> pageable_in(pinned ? 0 : bytes), pageable_out(pinned ? 0 : bytes);
  uint8_t* in = pinned ? pinned_in.as<uint8_t>() : pageable_in.data();
  uint8_t* out = pinned ? pinned_out.as<uint8_t>() : pageable_out.data();
  std::mt19937 rng(3);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      for (int c = 0; c < 4; ++c)
        in[(size_t(y) * kWidth + x) * 4 + c] = c == 3 ? 255 : float_to_u8(sample(x, y, c, rng));
  BilateralParameters parameters;
  parameters.radius = 7;
  parameters.sigma_s = 3.5f;
  parameters.sigma_r = 30.0f;
  const FilterSpec spec = bilateral_spec(parameters);
  RunOptions options;
  options.backend = "cuda";
  KeptBackends backends;  // as the CLI's batches and the dialog's previews keep theirs
  if (kept) options.kept = &backends;
  const ImageBuffer src{in, {kWidth, kHeight, 4}, SampleType::u8, 0};
  const ImageBuffer dst{out, {kWidth, kHeight, 4}, SampleType::u8, 0};
  run_filter(spec, src, dst, options);  // warm-up: context, allocations
  std::vector<double> times;
  for (int i = 0; i < 9; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run_filter(spec, src, dst, options);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const bool end_to_end_only = argc > 1 && std::string(argv[1]) == "--end-to-end";
  std::string why;
  std::string device;
  find_backend(installed_backends(), "cuda")->usable(device);
  std::printf("device: %s\n", device.c_str());
  try {
    if (!end_to_end_only) kernel_table();
    if (std::getenv("EDGEWISE_BENCH_ONLY")) return 0;
    // From the caller's own buffers: pinned ones, and ordinary (pageable)
    // ones as the CLI decodes into, with the backend made per run or kept
    // from the last (its buffers and pinned staging allocated once).
    std::printf(
        "end to end, 24 MP 8-bit RGBA, rgb r=7, median of 9:\n"
        "| host buffers | backend made per run ms | backend kept ms |\n|---|---:|---:|\n");
    std::printf("| pinned | %.2f | %.2f |\n", end_to_end_ms(true, false), end_to_end_ms(true, true));
    std::printf("| pageable | %.2f | %.2f |\n", end_to_end_ms(false, false), end_to_end_ms(false, true));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_cuda: %s\n", error.what());
    return 1;
  }
  return 0;
}
