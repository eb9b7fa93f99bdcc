// The Fourier bilateral filter on the GPU (run on the device machine): 24 MP
// RGB (6000 x 4000), per-channel, sigma-r 25, automatic terms, at sigma-s
// 2 to 64. Per row: the band kernel alone on the whole image resident on
// the GPU as one band (medians of 5 device-event timings after a warm-up;
// the kernel prepares its input in place, so later runs see prepared
// samples: the work does not depend on the values), and run_filter end to
// end from 8-bit host buffers (transfers and bands included, median of 3).
// Then the exact filter's kernel (radius ceil(4 sigma-s)) end to end at the
// smaller sigmas, for where the Fourier filter overtakes it.
// bench/RESULTS.md, "Fourier bilateral (issue 14)".
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"
#include "fourier_cuda.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;

namespace {

constexpr int kWidth = 6000, kHeight = 4000;  // 24 MP

double median_wall_ms(const std::function<void()>& run, int repeats) {
  run();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<uint8_t> photo_like() {
  std::mt19937 rng(14);
  std::normal_distribution<float> noise(0.0f, 15.0f);
  std::vector<uint8_t> pixels(size_t(kWidth) * kHeight * 3);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      for (int c = 0; c < 3; ++c) {
        const float base =
            128.0f + 70.0f * std::sin(x * 0.004f + c) * std::cos(y * 0.005f) + ((x / 700 + y / 500) % 2) * 40.0f;
        pixels[(size_t(y) * kWidth + x) * 3 + c] = uint8_t(std::clamp(base + noise(rng), 0.0f, 255.0f));
      }
  return pixels;
}

float kernel_ms(const FilterSpec& spec, const std::vector<uint8_t>& pixels) {
  const auto planned = make_plan(spec, {kWidth, kHeight, 3});
  const auto& plan = static_cast<const FourierPlan&>(*planned);
  const int reach = plan.reach, rows = kHeight + 2 * reach;
  const size_t plane = size_t(kWidth) * rows;
  std::vector<float> host(plane * 3);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < rows; ++y) {
      const int from = std::clamp(y - reach, 0, kHeight - 1);
      for (int x = 0; x < kWidth; ++x)
        host[c * plane + size_t(y) * kWidth + x] = pixels[(size_t(from) * kWidth + x) * 3 + c] / 255.0f;
    }
  cuda::DeviceMemory in_memory(host.size() * sizeof(float)), out_memory(size_t(kWidth) * kHeight * 3 * 4);
  cuda::check(cudaMemcpy(in_memory.as<float>(), host.data(), host.size() * 4, cudaMemcpyHostToDevice), "upload");
  const cuda::DeviceBand in = cuda::describe_device_band(in_memory.as<float>(), -reach, rows, kWidth, 0);
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, kHeight, kWidth, size_t(kWidth), size_t(kWidth) * kHeight};
  const auto kernel = cuda::make_fourier_device_kernel(plan);
  return median_event_ms([&] { kernel->run(in, out, {}, nullptr, nullptr); }, 5);
}

double end_to_end_ms(const FilterSpec& spec, std::vector<uint8_t>& pixels, std::vector<uint8_t>& output) {
  const ImageShape shape{kWidth, kHeight, 3};
  RunOptions options;
  options.backend = "cuda";
  return median_wall_ms(
      [&] {
        run_filter(spec, ImageBuffer{pixels.data(), shape, SampleType::u8, 0},
                   ImageBuffer{output.data(), shape, SampleType::u8, 0}, options);
      },
      3);
}

}  // namespace

int main() {
  std::string device;
  find_backend(installed_backends(), "cuda")->usable(device);
  std::printf("device: %s\n24 MP RGB (%dx%d) 8-bit, per-channel, sigma-r 25\n\n", device.c_str(), kWidth, kHeight);
  try {
    std::vector<uint8_t> pixels = photo_like(), output(pixels.size());
    std::printf("| sigma-s | N | reach | kernel ms | end to end ms |\n|---|---|---|---|---|\n");
    for (float sigma : {2.0f, 4.0f, 8.0f, 16.0f, 32.0f, 64.0f}) {
      FourierParameters f;
      f.sigma_s = sigma;
      f.sigma_r = 25.0f;
      const FilterSpec spec = fourier_spec(f);
      const auto plan = make_plan(spec, {kWidth, kHeight, 3});
      std::printf("| %g | %d | %d | %.2f | %.1f |\n", sigma, static_cast<const FourierPlan&>(*plan).params.terms,
                  plan->reach, kernel_ms(spec, pixels), end_to_end_ms(spec, pixels, output));
      std::fflush(stdout);
    }
    std::printf("\nexact filter (bilateral, per-channel, radius ceil(4 sigma-s)), end to end:\n");
    std::printf("| sigma-s | radius | ms |\n|---|---|---|\n");
    for (float sigma : {1.0f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f}) {
      BilateralParameters b;
      b.mode = ColorMode::per_channel;
      b.sigma_s = sigma;
      b.sigma_r = 25.0f;
      b.radius = int(std::ceil(4.0f * sigma));
      std::printf("| %g | %d | %.1f |\n", sigma, b.radius, end_to_end_ms(bilateral_spec(b), pixels, output));
      std::fflush(stdout);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_fourier_cuda: %s\n", error.what());
    return 1;
  }
  return 0;
}
