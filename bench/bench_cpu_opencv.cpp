// CPU backend against OpenCV's cv::bilateralFilter on the same 4 MP RGB
// photo, same thread count, r = 2, 7, 15, in one run.
//
// Fair comparison: OpenCV's window is the disk i^2 + j^2 <= r^2 and it looks
// range weights up in a table (L1 colour distance, 8-bit: exact LUT index;
// float: interpolated LUT); Edgewise computes the exact square (2r+1)^2
// window with one exponential per tap. The table therefore shows wall time
// (what a user waits for) and throughput per tap (work done per second).
//
// Usage: bench_cpu_opencv [photo] [threads] [radius] [mode]
// Photo "" is the default; a radius (2, 7, 15) or a mode (rgb, per-channel,
// lab) keeps a timing run short on the shared machine. For a profiler:
// EDGEWISE_BENCH_PROFILE=N runs Edgewise alone N times (no OpenCV),
// EDGEWISE_BENCH_BAND_ROWS=N forces the band height.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "bilateral.h"
#include "engine.h"
#include "float_image.h"
#include "image_buffer.h"
#include "wall_timing.h"

using edgewise_bench::median_ms;

namespace {

long disk_taps(int r) {
  long taps = 0;
  for (int i = -r; i <= r; ++i)
    for (int j = -r; j <= r; ++j) taps += (i * i + j * j <= r * r);
  return taps;
}

// The photo as the CLI holds an 8-bit file: interleaved R'G'B' bytes.
std::vector<uint8_t> to_rgb8(const cv::Mat& bgr8) {
  std::vector<uint8_t> rgb(size_t(bgr8.cols) * size_t(bgr8.rows) * 3);
  for (int y = 0; y < bgr8.rows; ++y)
    for (int x = 0; x < bgr8.cols; ++x)
      for (int c = 0; c < 3; ++c)
        rgb[(size_t(y) * size_t(bgr8.cols) + size_t(x)) * 3 + size_t(c)] = bgr8.at<cv::Vec3b>(y, x)[2 - c];
  return rgb;
}

edgewise::FloatImage to_float_rgb(const cv::Mat& bgr8) {
  edgewise::FloatImage image({bgr8.cols, bgr8.rows, 3});
  for (int y = 0; y < bgr8.rows; ++y)
    for (int x = 0; x < bgr8.cols; ++x) {
      const cv::Vec3b& p = bgr8.at<cv::Vec3b>(y, x);
      for (int c = 0; c < 3; ++c) image.at(x, y, c) = p[2 - c] / 255.0f;
    }
  return image;
}

// The run the table times for one mode and radius: sigma_s = r / 2, sigma_r
// 30 code values (10 Delta E in lab).
struct EdgewiseRun {
  edgewise::FilterSpec spec;
  edgewise::RunOptions options;
};

EdgewiseRun edgewise_run(edgewise::ColorMode mode, int r, float sigma_r, int threads) {
  edgewise::BilateralParameters parameters;
  parameters.mode = mode;
  parameters.radius = r;
  parameters.sigma_s = r / 2.0f;
  parameters.sigma_r = mode == edgewise::ColorMode::lab ? 10.0f : sigma_r;
  EdgewiseRun run{edgewise::bilateral_spec(parameters), {}};
  run.options.backend = "cpu";
  run.options.backend_options.threads = threads;
  if (const char* rows = std::getenv("EDGEWISE_BENCH_BAND_ROWS")) run.options.band_rows = std::atoi(rows);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 && *argv[1] ? argv[1] : EDGEWISE_SOURCE_DIR "/tests/data/astronaut.png";
  const int threads = argc > 2 ? std::atoi(argv[2]) : omp_get_num_procs();
  const int only_radius = argc > 3 ? std::atoi(argv[3]) : 0;
  const std::string only_mode = argc > 4 ? argv[4] : "";
  const char* profile = std::getenv("EDGEWISE_BENCH_PROFILE");
  cv::Mat photo = cv::imread(path, cv::IMREAD_COLOR);
  if (photo.empty()) {
    std::fprintf(stderr, "bench_cpu_opencv: cannot read %s\n", path.c_str());
    return 1;
  }
  // 4 MP (2448 x 1632, a common sensor size), upscaled bicubically when the
  // photo is smaller, so both filters see the same real image content.
  cv::Mat src8;
  cv::resize(photo, src8, cv::Size(2448, 1632), 0, 0, cv::INTER_CUBIC);
  cv::Mat src32;
  src8.convertTo(src32, CV_32FC3, 1.0 / 255.0);
  cv::setNumThreads(threads);
  const edgewise::FloatImage input = to_float_rgb(src8);
  edgewise::FloatImage output(input.shape());
  std::vector<uint8_t> rgb8 = to_rgb8(src8), out8(rgb8.size());
  const double megapixels = double(src8.cols) * src8.rows / 1e6;
  const float sigma_r = 30.0f;  // code values

  std::printf("photo %s upscaled to %dx%d (%.1f MP), %d threads, sigma_r %.0f, sigma_s r/2\n", path.c_str(), src8.cols,
              src8.rows, megapixels, threads, sigma_r);
  std::printf("%-3s %-21s %6s %10s %10s %14s %12s\n", "r", "filter", "taps", "ms", "Gtaps/s", "time ratio",
              "per-tap ratio");

  const edgewise::ColorMode modes[] = {edgewise::ColorMode::rgb, edgewise::ColorMode::per_channel,
                                       edgewise::ColorMode::lab};
  for (int r : {2, 7, 15}) {
    if (only_radius && r != only_radius) continue;
    if (profile) {
      for (edgewise::ColorMode mode : modes) {
        if (!only_mode.empty() && only_mode != edgewise::to_string(mode)) continue;
        EdgewiseRun run = edgewise_run(mode, r, sigma_r, threads);
        edgewise::FloatImage source = input;
        const double ms = median_ms([&] { edgewise::run_filter(run.spec, input.shape(), source, output, run.options); },
                                    std::atoi(profile));
        std::printf("%-3d edgewise %-12s alone %10.1f\n", r, edgewise::to_string(mode), ms);
      }
      continue;
    }
    const int repeats = r >= 15 ? 3 : 5;
    const long square = long(2 * r + 1) * (2 * r + 1), disk = disk_taps(r);
    cv::Mat dst;
    const double cv8 = median_ms([&] { cv::bilateralFilter(src8, dst, 2 * r + 1, sigma_r, r / 2.0); }, repeats);
    const double cv32 =
        median_ms([&] { cv::bilateralFilter(src32, dst, 2 * r + 1, sigma_r / 255.0, r / 2.0); }, repeats);
    auto rate = [&](long taps, double ms) { return megapixels * 1e6 * double(taps) / (ms * 1e6); };
    std::printf("%-3d %-21s %6ld %10.1f %10.2f %14s %12s\n", r, "opencv 8u", disk, cv8, rate(disk, cv8), "", "");
    std::printf("%-3d %-21s %6ld %10.1f %10.2f %14s %12s\n", r, "opencv 32f", disk, cv32, rate(disk, cv32), "", "");

    for (edgewise::ColorMode mode : modes) {
      if (!only_mode.empty() && only_mode != edgewise::to_string(mode)) continue;
      EdgewiseRun run = edgewise_run(mode, r, sigma_r, threads);
      edgewise::FloatImage source = input;
      const double ms =
          median_ms([&] { edgewise::run_filter(run.spec, input.shape(), source, output, run.options); }, repeats);
      char ratio8[64], per_tap8[64];
      std::snprintf(ratio8, sizeof ratio8, "%.2f / %.2f", ms / cv8, ms / cv32);
      std::snprintf(per_tap8, sizeof per_tap8, "%.2f / %.2f", rate(disk, cv8) / rate(square, ms),
                    rate(disk, cv32) / rate(square, ms));
      const std::string name = std::string("edgewise ") + edgewise::to_string(mode);
      std::printf("%-3d %-21s %6ld %10.1f %10.2f %14s %12s\n", r, name.c_str(), square, ms, rate(square, ms), ratio8,
                  per_tap8);
    }
    if (only_mode.empty() || only_mode == "rgb") {
      // Not a goal's row: rgb from and into 8-bit buffers in memory, as the
      // CLI runs an 8-bit file (rows read in place, no float stream copies).
      EdgewiseRun run = edgewise_run(edgewise::ColorMode::rgb, r, sigma_r, threads);
      const edgewise::ImageBuffer in{rgb8.data(), input.shape(), edgewise::SampleType::u8, 0};
      const edgewise::ImageBuffer out{out8.data(), input.shape(), edgewise::SampleType::u8, 0};
      const double ms = median_ms([&] { edgewise::run_filter(run.spec, in, out, run.options); }, repeats);
      char ratio8[64];
      std::snprintf(ratio8, sizeof ratio8, "%.2f / %.2f", ms / cv8, ms / cv32);
      std::printf("%-3d %-21s %6ld %10.1f %10.2f %14s %12s\n", r, "(edgewise rgb u8 buf)", square, ms, rate(square, ms),
                  ratio8, "");
    }
  }
  std::printf("ratios are edgewise / opencv-8u and edgewise / opencv-32f; below 1 Edgewise is faster\n");
  return 0;
}
