// DawyD/bm3d-gpu (Honzátko & Kruliš, "Accelerating block-matching and 3D
// filtering method for image denoising on GPUs", Journal of Real-Time Image
// Processing, 2017) timed warm, beside the times its own program prints
// from one cold run. The steps of its main (src/main_nodisplay.cpp): CImg's
// RGB to YCbCr, each channel's noise variance from sigma as it computes
// them, its parameters (hard thresholding n 19, k 8, N 16, T 2500, p 3,
// L3D 2.7; Wiener n 19, k 8, N 32, T 400, p 3), colour, both steps. Then
// BM3D::denoise_host_image once to warm up (its allocations, module
// loading, clocks) and `repeats` times between CUDA events on the default
// stream, for step 1 alone and for both steps: each call copies the image
// to the GPU, runs the step's kernels (the peer synchronises after each
// launch) and copies the result back, so the events hold those copies and
// the host's gaps between launches, not the kernels alone. End to end adds
// the host's colour conversions, as its main does them (files excluded).
//
// Compiled by bench/peers/run_peers.sh with the peer's own sources (the
// carried bench/peers/.inputs/bm3d-gpu, never committed), not by CMake.
//
// Usage: bm3d_gpu_timed NOISY.ppm OUT.ppm SIGMA [REPEATS]
// Prints, last, one line of medians: "medians: step1_event_ms A
// both_event_ms B both_call_ms C end_to_end_ms D"; OUT is the last run's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <vector>

#include "bm3d.hpp"
#define cimg_display 0
#include "CImg.h"

using cimg_library::CImg;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double wall_ms(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct Timing {
  double event_ms = 0, call_ms = 0;
};

// One warm-up call, then the medians of `repeats` calls.
Timing timed(const std::function<void()>& call, int repeats) {
  call();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> events, calls;
  for (int i = 0; i < repeats; ++i) {
    cudaEventRecord(start, 0);
    calls.push_back(wall_ms(call));
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    events.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {median(events), median(calls)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bm3d_gpu_timed NOISY.ppm OUT.ppm SIGMA [REPEATS]\n");
    return 2;
  }
  const float sigma = std::strtof(argv[3], nullptr);
  const int repeats = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
  try {
    const CImg<unsigned char> rgb(argv[1]);
    CImg<unsigned char> ycbcr = rgb.get_channels(0, 2).RGBtoYCbCr();
    CImg<unsigned char> denoised(rgb.width(), rgb.height(), 1, 3, 0), out;
    // As main_nodisplay.cpp converts the variance to YCbCr (integer arithmetic).
    const long s = sigma * sigma;
    std::vector<unsigned int> variance = {
        unsigned(((66l * 66l * s + 129l * 129l * s + 25l * 25l * s) / (256l * 256l))),
        unsigned(((38l * 38l * s + 74l * 74l * s + 112l * 112l * s) / (256l * 256l))),
        unsigned(((112l * 112l * s + 94l * 94l * s + 18l * 18l * s) / (256l * 256l)))};
    std::printf("%dx%d, sigma %g: variances Y %u, Cb %u, Cr %u\n", rgb.width(), rgb.height(), sigma, variance[0],
                variance[1], variance[2]);

    BM3D bm3d;
    bm3d.set_hard_params(19, 8, 16, 2500, 3, 2.7f);
    bm3d.set_wien_params(19, 8, 32, 400, 3);
    bm3d.set_verbose(false);
    auto denoise = [&](bool two_step) {
      bm3d.denoise_host_image(ycbcr.data(), denoised.data(), rgb.width(), rgb.height(), 3, variance.data(), two_step);
    };
    const Timing step1 = timed([&] { denoise(false); }, repeats);
    const Timing both = timed([&] { denoise(true); }, repeats);
    std::vector<double> end_to_end;
    for (int i = 0; i < repeats; ++i)
      end_to_end.push_back(wall_ms([&] {
        ycbcr = rgb.get_channels(0, 2).RGBtoYCbCr();
        denoise(true);
        out = denoised.get_channels(0, 2).YCbCrtoRGB();
      }));
    out.save(argv[2]);
    std::printf("medians: step1_event_ms %.2f both_event_ms %.2f both_call_ms %.2f end_to_end_ms %.1f\n",
                step1.event_ms, both.event_ms, both.call_ms, median(end_to_end));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bm3d_gpu_timed: %s\n", error.what());
    return 1;
  }
  return 0;
}
