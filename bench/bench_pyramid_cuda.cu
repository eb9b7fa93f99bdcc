// The multiresolution bilateral filter on the GPU (run on the device
// machine), issue 15's GPU goal: the band kernel at most 3 ms on 24 MP RGB
// 8-bit (6000 x 4000, gpu_photo.h's card), 5 levels, radius 2 per level
// (sigma-s 1), rgb mode, sigma-r 20 (10 Delta E in lab). Per row: the band
// kernel alone on the whole image resident on the GPU as one band (median
// of 9 device-event timings after a warm-up; it leaves its input as it
// is), the single-scale bilateral filter's band kernel at the same radius
// beside it (its lab mode converts the band in place, so each run starts
// from a fresh copy whose time is subtracted), and run_filter end to end
// from 8-bit host buffers, pageable and pinned (transfers and bands
// included, median of 3). `--kernel` times the kernels alone (for ncu).
//
// The count behind the goal (a prediction, not a measurement), rgb, 5
// levels, 3 float planes (12 bytes a pixel): the levels hold 24, 6, 1.5,
// 0.375 and 0.094 MP, 31.97 MP in all.
//   taps: 31.97 MP x 25 = 0.80 G (the finest level 0.60 G: ~0.61 ms at the
//     single-scale kernel's 0.98 T taps/s for rgb r = 2, bench/RESULTS.md),
//     so ~0.81 ms of bilateral passes, their own reads and writes included;
//   the build and collapse, each sample counted once per kernel (REDUCE's
//     and EXPAND's taps hit the caches): G_0 from the input 576 MB, REDUCE
//     383 MB read + 96 MB written, the top level's C = R - G 3 MB, the
//     collapse of levels 3..1 (R and G read, R written, R above read)
//     307 MB, of level 0 (the output read and written, R_1 read) 648 MB:
//     2.01 GB, ~0.7 ms at the ~2.9 TB/s an H100's copies reach;
//   15 launches, the coarse levels' a few microseconds each.
// About 1.6 ms in all; per-channel ~2.0 (its taps cost 1.5x), lab ~1.8
// (powf and cbrtf per sample in and out, partly hidden by the sweeps), lab
// with luma and chroma apart ~2.6 (two passes a level, 1.60 G taps, 2.52
// GB). sweep_bytes() prints the count per row.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bilateral_cuda.h"
#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"
#include "gpu_photo.h"
#include "pyramid_cases.h"
#include "pyramid_cuda.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;

namespace {

constexpr int kWidth = 6000, kHeight = 4000;  // 24 MP

using KernelMaker = std::unique_ptr<cuda::DeviceBandKernel> (*)(const Plan& plan);

double pixels_of(const PyramidPlan& plan, int k) {
  return double(plan.widths[size_t(k)]) * double(plan.heights[size_t(k)]);
}

// Bilateral taps over every pass of every level, whole image.
double taps(const PyramidPlan& plan) {
  const double window = double(2 * plan.radius + 1) * double(2 * plan.radius + 1);
  double sum = 0.0;
  for (int k = 0; k < plan.levels; ++k) sum += double(plan.passes[size_t(k)].size()) * pixels_of(plan, k) * window;
  return sum;
}

// Bytes the band kernel moves besides the bilateral passes' own, each
// sample counted once per kernel that reads or writes it (pyramid.cu's
// kernels in order; pads ignored).
double sweep_bytes(const PyramidPlan& plan) {
  const int levels = plan.levels, colours = plan.color_channels, planes = colours + (plan.has_alpha ? 1 : 0);
  const bool gaussian = plan.gaussian_weights;
  double floats = 2.0 * planes * pixels_of(plan, 0);                                                      // G_0
  for (int k = 0; k + 1 < levels; ++k) floats += planes * (pixels_of(plan, k) + pixels_of(plan, k + 1));  // REDUCE
  for (int k = 0; k < levels; ++k) {
    const double here = pixels_of(plan, k);
    if (!gaussian && k + 1 < levels) floats += 2.0 * planes * here + colours * pixels_of(plan, k + 1);  // L_k
    int filtered = 0;
    const std::vector<PyramidPass>& passes = plan.passes[size_t(k)];
    for (size_t s = 0; s < passes.size(); ++s) {
      filtered += passes[s].planes;
      if (s > 0) floats += 2.0 * passes[s].planes * here;  // kept planes copied from the spare output
    }
    floats += 2.0 * (colours - filtered) * here;  // planes no pass filters
  }
  if (gaussian && levels > 1) floats += 3.0 * colours * pixels_of(plan, levels - 1);  // the top's C = R - G
  for (int k = 1; k + 1 < levels; ++k)
    floats += colours * ((gaussian ? 3.0 : 2.0) * pixels_of(plan, k) + pixels_of(plan, k + 1));
  if (levels > 1 || plan.lab) floats += colours * (2.0 * pixels_of(plan, 0) + (levels > 1 ? pixels_of(plan, 1) : 0.0));
  if (plan.has_alpha) floats += 2.0 * pixels_of(plan, 0);
  return 4.0 * floats;
}

// The band kernel alone, whole image as one band. A kernel that converts
// its input in place (`fresh`) runs on a copy made before each run, the
// copy's own time subtracted.
float kernel_ms(const Plan& plan, KernelMaker make, const std::vector<uint8_t>& pixels, bool fresh) {
  const edgewise_bench::ResidentBand in = edgewise_bench::resident_band(pixels, kWidth, kHeight, plan.reach, plan.pad);
  const size_t band_bytes = in.band.plane_stride * 3 * sizeof(float);
  cuda::DeviceMemory work(fresh ? band_bytes : 0), out_memory(size_t(kWidth) * kHeight * 3 * sizeof(float));
  cuda::DeviceBand band = in.band;
  if (fresh) band.data = work.as<float>();
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, kHeight, kWidth, size_t(kWidth), size_t(kWidth) * kHeight};
  const auto kernel = make(plan);
  auto copy = [&] {
    if (fresh)
      cuda::check(cudaMemcpyAsync(work.as<float>(), in.band.data, band_bytes, cudaMemcpyDeviceToDevice, nullptr),
                  "copying the band");
  };
  const float both = median_event_ms(
      [&] {
        copy();
        kernel->run(band, out, {}, nullptr, nullptr);
      },
      9);
  return fresh ? both - median_event_ms(copy, 9) : both;
}

}  // namespace

int main(int argc, char** argv) {
  const bool kernel_only = argc > 1 && std::string(argv[1]) == "--kernel";
  std::string device;
  find_backend(installed_backends(), "cuda")->usable(device);
  std::printf("device: %s\n24 MP RGB (%dx%d) 8-bit, radius 2 per level (sigma-s 1), sigma-r 20 (10 Delta E in lab)\n\n",
              device.c_str(), kWidth, kHeight);
  try {
    const std::vector<uint8_t> pixels = edgewise_bench::photo_like(kWidth, kHeight);
    std::vector<uint8_t> output(pixels.size());
    cuda::PinnedMemory pinned_in(pixels.size()), pinned_out(pixels.size());
    std::memcpy(pinned_in.as<uint8_t>(), pixels.data(), pixels.size());
    std::printf(
        "| mode | filter | levels | reach | taps G | sweeps GB | kernel ms | x bilateral | end to end ms (pageable) | "
        "end to end ms (pinned) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    struct Row {
      ColorMode mode;
      int levels;  // 1: the single-scale bilateral filter
      PyramidGuide guide;
      float chroma_strength;
      const char* name;
    };
    const Row rows[] = {
        {ColorMode::rgb, 1, PyramidGuide::gaussian, 1.0f, "bilateral"},
        {ColorMode::rgb, 5, PyramidGuide::gaussian, 1.0f, "pyramid"},
        {ColorMode::rgb, 5, PyramidGuide::laplacian, 1.0f, "pyramid (laplacian guide)"},
        {ColorMode::rgb, 6, PyramidGuide::gaussian, 1.0f, "pyramid"},
        {ColorMode::per_channel, 1, PyramidGuide::gaussian, 1.0f, "bilateral"},
        {ColorMode::per_channel, 5, PyramidGuide::gaussian, 1.0f, "pyramid"},
        {ColorMode::lab, 1, PyramidGuide::gaussian, 1.0f, "bilateral"},
        {ColorMode::lab, 5, PyramidGuide::gaussian, 1.0f, "pyramid"},
        {ColorMode::lab, 5, PyramidGuide::gaussian, 2.0f, "pyramid (chroma 2)"},
    };
    float single = 0.0f;
    for (const Row& row : rows) {
      const bool one = row.levels == 1;
      const FilterSpec spec = one ? edgewise_bench::bilateral(row.mode)
                                  : edgewise_bench::pyramid(row.mode, row.levels, row.guide, row.chroma_strength);
      const auto plan = make_plan(spec, {kWidth, kHeight, 3});
      const float ms = one ? kernel_ms(*plan, cuda::make_bilateral_device_kernel, pixels, row.mode == ColorMode::lab)
                           : kernel_ms(*plan, cuda::make_pyramid_device_kernel, pixels, false);
      if (one) single = ms;
      double row_taps = double(kWidth) * kHeight * 25.0, bytes = 0.0;
      if (!one) {
        const auto& pyramid_plan = static_cast<const PyramidPlan&>(*plan);
        row_taps = taps(pyramid_plan);
        bytes = sweep_bytes(pyramid_plan);
      }
      const double pageable =
          kernel_only ? 0.0 : edgewise_bench::end_to_end_ms(spec, pixels.data(), output.data(), kWidth, kHeight);
      const double pinned = kernel_only ? 0.0
                                        : edgewise_bench::end_to_end_ms(spec, pinned_in.as<uint8_t>(),
                                                                        pinned_out.as<uint8_t>(), kWidth, kHeight);
      const std::string sweeps = one ? "-" : std::to_string(bytes * 1e-9).substr(0, 4);
      std::printf("| %s | %s | %d | %d | %.3f | %s | %.3f | %.2f | %.1f | %.1f |\n", to_string(row.mode), row.name,
                  row.levels, plan->reach, row_taps * 1e-9, sweeps.c_str(), ms, ms / single, pageable, pinned);
      std::fflush(stdout);
    }
    std::printf(
        "\ntaps: bilateral taps over every level and pass; sweeps: bytes the pyramid's build and collapse move "
        "besides the passes' own (each sample once per kernel, sweep_bytes)\n");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_pyramid_cuda: %s\n", error.what());
    return 1;
  }
  return 0;
}
