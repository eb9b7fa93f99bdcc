// The Fourier bilateral filter on the GPU (run on the device machine): 24 MP
// RGB (6000 x 4000), per-channel, sigma-r 25, automatic terms, at sigma-s
// 2 to 64. Per row: the band kernel alone on the whole image resident on
// the GPU as one band (medians of 5 device-event timings after a warm-up;
// the kernel prepares its input in place, so later runs see prepared
// samples: the work does not depend on the values), and run_filter end to
// end from 8-bit host buffers (transfers and bands included, median of 3).
// Then the dialog's preview (800 x 600 at sigma-s 32, the same two
// timings), and the exact filter's kernel (radius ceil(4 sigma-s)) end to
// end at the smaller sigmas, for where the Fourier filter overtakes it.
// `--kernel [SIGMA]` times the kernel alone (for ncu or a quick look), at
// every sigma-s or at SIGMA.
// bench/RESULTS.md, "Fourier bilateral (issue 14)".
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"
#include "fourier_cuda.h"
#include "gpu_photo.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;
using edgewise_bench::photo_like;

namespace {

constexpr int kWidth = 6000, kHeight = 4000;  // 24 MP
constexpr int kPreviewWidth = 800, kPreviewHeight = 600;

float kernel_ms(const FilterSpec& spec, const std::vector<uint8_t>& pixels, int width, int height) {
  const auto planned = make_plan(spec, {width, height, 3});
  const auto& plan = static_cast<const FourierPlan&>(*planned);
  const edgewise_bench::ResidentBand in = edgewise_bench::resident_band(pixels, width, height, plan.reach, 0);
  cuda::DeviceMemory out_memory(size_t(width) * height * 3 * 4);
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, height, width, size_t(width), size_t(width) * height};
  const auto kernel = cuda::make_fourier_device_kernel(plan);
  return median_event_ms([&] { kernel->run(in.band, out, {}, nullptr, nullptr); }, 5);
}

double end_to_end_ms(const FilterSpec& spec, std::vector<uint8_t>& pixels, std::vector<uint8_t>& output, int width,
                     int height) {
  return edgewise_bench::end_to_end_ms(spec, pixels.data(), output.data(), width, height);
}

FilterSpec fourier_at(float sigma_s) {
  FourierParameters f;
  f.sigma_s = sigma_s;
  f.sigma_r = 25.0f;
  return fourier_spec(f);
}

}  // namespace

int main(int argc, char** argv) {
  const bool kernel_only = argc > 1 && std::string(argv[1]) == "--kernel";
  std::vector<float> sigmas = {2.0f, 4.0f, 8.0f, 16.0f, 32.0f, 64.0f};
  if (kernel_only && argc > 2) sigmas = {std::stof(argv[2])};
  std::string device;
  find_backend(installed_backends(), "cuda")->usable(device);
  std::printf("device: %s\n24 MP RGB (%dx%d) 8-bit, per-channel, sigma-r 25\n\n", device.c_str(), kWidth, kHeight);
  try {
    std::vector<uint8_t> pixels = photo_like(kWidth, kHeight), output(pixels.size());
    std::printf("| sigma-s | N | reach | kernel ms | end to end ms |\n|---|---|---|---|---|\n");
    for (float sigma : sigmas) {
      const FilterSpec spec = fourier_at(sigma);
      const auto plan = make_plan(spec, {kWidth, kHeight, 3});
      const float kernel = kernel_ms(spec, pixels, kWidth, kHeight);
      const double whole = kernel_only ? 0.0 : end_to_end_ms(spec, pixels, output, kWidth, kHeight);
      std::printf("| %g | %d | %d | %.2f | %.1f |\n", sigma, static_cast<const FourierPlan&>(*plan).params.terms,
                  plan->reach, kernel, whole);
      std::fflush(stdout);
    }
    if (kernel_only) return 0;
    std::vector<uint8_t> preview = photo_like(kPreviewWidth, kPreviewHeight), preview_out(preview.size());
    const FilterSpec preview_spec = fourier_at(32.0f);
    std::printf("\npreview %dx%d RGB 8-bit, sigma-s 32: kernel %.2f ms, end to end %.2f ms\n", kPreviewWidth,
                kPreviewHeight, kernel_ms(preview_spec, preview, kPreviewWidth, kPreviewHeight),
                end_to_end_ms(preview_spec, preview, preview_out, kPreviewWidth, kPreviewHeight));
    std::printf("\nexact filter (bilateral, per-channel, radius ceil(4 sigma-s)), end to end:\n");
    std::printf("| sigma-s | radius | ms |\n|---|---|---|\n");
    for (float sigma : {1.0f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f}) {
      BilateralParameters b;
      b.mode = ColorMode::per_channel;
      b.sigma_s = sigma;
      b.sigma_r = 25.0f;
      b.radius = int(std::ceil(4.0f * sigma));
      std::printf("| %g | %d | %.1f |\n", sigma, b.radius,
                  end_to_end_ms(bilateral_spec(b), pixels, output, kWidth, kHeight));
      std::fflush(stdout);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_fourier_cuda: %s\n", error.what());
    return 1;
  }
  return 0;
}
