// The learned filter (--filter learned) on the GPU (run on the device
// machine), issue 36's goals: 24 MP RGB at the defaults at most 150 ms of
// kernel time, the noise map at most 10 ms of it, 800 x 600 end to end at
// most 30 ms. Per row: the band kernel alone on the whole image resident
// on the GPU as one band (gpu_photo.h's card with noise sigma 15; median of
// 5 device-event timings after a warm-up), with the noise network's map
// (the defaults) and with sigma-n given (no noise network: the difference
// is the map's cost), the work counted (the noise network's and the
// denoiser's multiply-adds) and the rate it implies, and run_filter end to
// end from 8-bit host buffers (transfers and bands included; the image's
// noise estimate excluded: the estimate is given).
//
// Usage: bench_learned_cuda [--kernel]   (--kernel: each case once, for ncu)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"
#include "filters/learned.h"
#include "gpu_photo.h"
#include "learned_cuda.h"
#include "learned_denoise.h"
#include "noise_estimate.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;

namespace {

FilterSpec spec_with(double sigma_n) {
  LearnedParameters p;
  p.sigma_n = float(sigma_n);
  return learned_spec(p);
}

std::unique_ptr<LearnedPlan> plan_for(int width, int height, bool map, const NoiseEstimate& noise) {
  PlanRequest request;
  if (map) {
    request.noise = &noise;
    request.noise_auto_flags = {"sigma-n"};
  }
  std::unique_ptr<Plan> plan = make_plan(spec_with(15.0), ImageShape{width, height, 3}, request);
  return std::unique_ptr<LearnedPlan>(static_cast<LearnedPlan*>(plan.release()));
}

float kernel_ms(const LearnedPlan& plan, const std::vector<uint8_t>& pixels, int repeats) {
  const int width = plan.shape.width, height = plan.shape.height;
  const edgewise_bench::ResidentBand in = edgewise_bench::resident_band(pixels, width, height, plan.reach, 0);
  cuda::DeviceMemory out_memory(size_t(width) * size_t(height) * 3 * sizeof(float));
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, height, width, size_t(width), size_t(width) * size_t(height)};
  const auto kernel = cuda::make_learned_device_kernel(plan);
  const float ms = median_event_ms([&] { kernel->run(in.band, out, {}, nullptr, nullptr); }, repeats);
  cuda::check(cudaDeviceSynchronize(), "running the learned band kernel");
  return ms;
}

// run_filter on the CUDA backend from and into 8-bit RGB host buffers,
// sigma-n at auto with the estimate given (the noise map run, the image's
// noise estimate not): median of 3 after a warm-up.
double end_to_end_ms(const uint8_t* pixels, uint8_t* output, int width, int height, const NoiseEstimate& noise) {
  const ImageShape shape{width, height, 3};
  RunOptions options;
  options.backend = "cuda";
  options.noise = &noise;
  return edgewise_bench::median_ms(
      [&] {
        run_filter(spec_with(kNoiseAuto), ImageBuffer{const_cast<uint8_t*>(pixels), shape, SampleType::u8, 0},
                   ImageBuffer{output, shape, SampleType::u8, 0}, options);
      },
      3);
}

// Host time to make the band kernel (the networks' weights converted and
// uploaded) and to run it once on a fresh kernel (its scratch allocated):
// what every run_filter call pays before the kernels, the fastest of 3.
void setup_ms(const LearnedPlan& plan, const std::vector<uint8_t>& pixels, double& make, double& first_run) {
  const int width = plan.shape.width, height = plan.shape.height;
  const edgewise_bench::ResidentBand in = edgewise_bench::resident_band(pixels, width, height, plan.reach, 0);
  cuda::DeviceMemory out_memory(size_t(width) * size_t(height) * 3 * sizeof(float));
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, height, width, size_t(width), size_t(width) * size_t(height)};
  make = first_run = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto kernel = cuda::make_learned_device_kernel(plan);
    cuda::check(cudaDeviceSynchronize(), "making the learned band kernel");
    const auto t1 = std::chrono::steady_clock::now();
    kernel->run(in.band, out, {}, nullptr, nullptr);
    cuda::check(cudaDeviceSynchronize(), "running the learned band kernel");
    const auto t2 = std::chrono::steady_clock::now();
    make = std::min(make, std::chrono::duration<double, std::milli>(t1 - t0).count());
    first_run = std::min(first_run, std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool kernel_only = argc > 1 && std::string(argv[1]) == "--kernel";
  std::string device;
  if (!find_backend(installed_backends(), "cuda")->usable(device)) {
    std::printf("no usable CUDA device: %s\n", device.c_str());
    return 1;
  }
  const ShippedDenoiseNet& shipped = shipped_denoise_net();
  if (!shipped.net) {
    std::printf("%s\n", shipped.problem.c_str());
    return 1;
  }
  std::printf("device: %s\nlearned filter, %s, RGB 8-bit test card (noise sigma 15)\n\n", device.c_str(),
              shipped.path.c_str());
  struct Case {
    const char* name;
    int width, height;
    double goal_ms;
  };
  const Case cases[] = {{"800x600", 800, 600, 30.0}, {"24 MP", 6000, 4000, 150.0}};
  const NoiseEstimate noise = white_noise_estimate(15.0, 3);
  std::printf("| case | G multiply-adds | kernel ms, map | kernel ms, sigma-n given | map ms | TFLOP/s | goal ms | "
              "end to end ms | making the kernel ms | its first run ms |\n|---|---|---|---|---|---|---|---|---|---|\n");
  int status = 0;
  for (const Case& c : cases) {
    const std::vector<uint8_t> pixels = edgewise_bench::photo_like(c.width, c.height);
    const std::unique_ptr<LearnedPlan> with_map = plan_for(c.width, c.height, true, noise);
    const std::unique_ptr<LearnedPlan> given = plan_for(c.width, c.height, false, noise);
    const std::string why = cuda::learned_unsupported(*with_map);
    if (!why.empty()) {
      std::printf("| %s | unsupported: %s |\n", c.name, why.c_str());
      status = 1;
      continue;
    }
    // The work: the denoiser on the extended image, the noise network on its 64 px tiles.
    const int pw = padded_side(c.width, 64), ph = padded_side(c.height, 64);
    const double macs = double(denoise_net_macs(*with_map->denoiser, pw, ph)) +
                        double(pw / 64) * double(ph / 64) * 28.9e6;
    const int repeats = kernel_only ? 1 : 5;
    const float map_ms = kernel_ms(*with_map, pixels, repeats), given_ms = kernel_ms(*given, pixels, repeats);
    double end_to_end = 0.0;
    if (!kernel_only) {
      std::vector<uint8_t> output(pixels.size());
      end_to_end = end_to_end_ms(pixels.data(), output.data(), c.width, c.height, noise);
    }
    double make = 0.0, first_run = 0.0;
    if (!kernel_only) setup_ms(*with_map, pixels, make, first_run);
    std::printf("| %s | %.1f | %.2f | %.2f | %.2f | %.0f | %.0f | %.1f | %.1f | %.1f |%s\n", c.name, macs * 1e-9, map_ms,
                given_ms, map_ms - given_ms, 2 * macs * 1e-12 / (map_ms * 1e-3), c.goal_ms, end_to_end, make,
                first_run, map_ms > c.goal_ms ? " over the goal" : "");
  }
  return status;
}
