// The Fourier bilateral filter on the CPU against G'MIC's `bilateral` (a
// bilateral grid: approximate too) in the same run: a 24 MP RGB photo
// (tests/data/astronaut_noisy.png upscaled to 6000 x 4000, bicubic), sigma-r
// 25, per-channel, sigma-s 2 to 64. Edgewise: run_filter on 8-bit buffers
// (median of 3 after a warm-up); G'MIC: its own tic/toc around the filter,
// median of 3. Then each method's PSNR against the exact filter (per-channel,
// radius ceil(4 sigma-s), same sigma-s and sigma-r) on the photo itself
// (352 x 352), where the exact filter is affordable.
//
// Usage: bench_fourier_cpu [threads] [--edgewise [SIGMA [RUNS]]]   (default
// 2 threads; --edgewise: Edgewise's times alone, no G'MIC and no PSNR, at
// every sigma-s or at SIGMA, RUNS runs (default 3): median and fastest)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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
#include "engine_mat.h"
#include "fourier.h"
#include "fourier_exact.h"
#include "quality/image_quality.h"
#include "wall_timing.h"

namespace {

using namespace edgewise;
using edgewise_bench::median_seconds;
using edgewise_bench::seconds;

using edgewise_bench::process_seconds;

// An RGB Mat (OpenCV's BGR order swapped) through the engine.
cv::Mat edgewise_filter(const FilterSpec& spec, const cv::Mat& bgr, int threads) {
  cv::Mat rgb, out;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  out = rgb.clone();
  edgewise_bench::run_cpu_u8(spec, rgb, out, threads);
  cv::cvtColor(out, out, cv::COLOR_RGB2BGR);
  return out;
}

FilterSpec fourier(double sigma_s) {
  FourierParameters f;
  f.sigma_s = float(sigma_s);
  f.sigma_r = 25.0f;
  return fourier_spec(f);
}

// The exact filter at radius ceil(4 sigma-s) on a BGR 8-bit photo: the
// engine's up to radius 128, fourier_exact.h's beyond.
cv::Mat exact(double sigma_s, const cv::Mat& bgr, int threads) {
  BilateralParameters b;
  b.mode = ColorMode::per_channel;
  b.sigma_s = float(sigma_s);
  b.sigma_r = 25.0f;
  b.radius = int(std::ceil(4.0 * sigma_s));
  if (b.radius <= 128) return edgewise_filter(bilateral_spec(b), bgr, threads);
  FloatImage image({bgr.cols, bgr.rows, 3});
  for (int y = 0; y < bgr.rows; ++y)
    for (int x = 0; x < bgr.cols; ++x)
      for (int c = 0; c < 3; ++c) image.at(x, y, c) = float(bgr.ptr<uint8_t>(y)[x * 3 + c]) / 255.0f;
  const FloatImage out = edgewise_bench::exact_wide(image, RangeKernel::gaussian, sigma_s, 25.0, b.radius);
  cv::Mat result = bgr.clone();
  for (int y = 0; y < bgr.rows; ++y)
    for (int x = 0; x < bgr.cols; ++x)
      for (int c = 0; c < 3; ++c)
        result.ptr<uint8_t>(y)[x * 3 + c] = cv::saturate_cast<uint8_t>(out.at(x, y, c) * 255.0f);
  return result;
}

std::string gmic_command(const std::string& in, const std::string& filter, const std::string& out, int threads) {
  return "OMP_NUM_THREADS=" + std::to_string(threads) + " gmic -v -1 " + in + " " + filter + " -o " + out +
         " > /dev/null 2>&1";
}

// G'MIC's own time for `filter` alone on the image in `in`: its tic and
// toc around the filter (the PNG read and write are outside them; their
// subtraction was noisy enough to give negative times). Median of 3.
double gmic_seconds(const std::string& in, const std::string& filter, const std::string& out, int threads) {
  const std::string command = "OMP_NUM_THREADS=" + std::to_string(threads) + " gmic -v -1 " + in + " -tic " + filter +
                              " -toc -o " + out + " 2>&1";
  std::vector<double> times;
  for (int run = 0; run < 3; ++run) {
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return NAN;
    std::string text;
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) text += buffer;
    pclose(pipe);
    const size_t at = text.find("Elapsed time: ");
    if (at == std::string::npos) return NAN;
    times.push_back(std::atof(text.c_str() + at + 14));
  }
  std::sort(times.begin(), times.end());
  return times[1];
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const bool edgewise_only = argc > 2 && std::string(argv[2]) == "--edgewise";
  const cv::Mat photo = cv::imread(EDGEWISE_SOURCE_DIR "/tests/data/astronaut_noisy.png", cv::IMREAD_COLOR);
  if (photo.empty()) return 1;
  cv::Mat large;
  cv::resize(photo, large, cv::Size(6000, 4000), 0, 0, cv::INTER_CUBIC);
  if (edgewise_only) {
    // Beside the wall time, the process's CPU time over the threads: what
    // an unloaded machine's wall time would be (less any serial part), for
    // runs on a shared one.
    std::printf("24 MP RGB (6000x4000), per-channel, sigma-r 25, %d threads\n\n", threads);
    std::printf("| sigma-s | edgewise s | fastest s | CPU s / threads |\n|---|---|---|---|\n");
    std::vector<double> sigmas = {2.0, 4.0, 8.0, 12.0, 16.0, 32.0, 64.0};
    if (argc > 3) sigmas = {std::atof(argv[3])};
    const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 3;
    for (double sigma_s : sigmas) {
      edgewise_filter(fourier(sigma_s), large, threads);
      std::vector<double> wall, cpu;
      for (int i = 0; i < runs; ++i) {
        const double cpu_start = process_seconds();
        wall.push_back(seconds([&] { edgewise_filter(fourier(sigma_s), large, threads); }));
        cpu.push_back((process_seconds() - cpu_start) / threads);
      }
      std::sort(wall.begin(), wall.end());
      std::sort(cpu.begin(), cpu.end());
      std::printf("| %g | %.2f | %.2f | %.2f |\n", sigma_s, wall[size_t(runs / 2)], wall[0], cpu[size_t(runs / 2)]);
      std::fflush(stdout);
    }
    return 0;
  }
  const bool have_gmic = std::system("gmic -v -1 -version > /dev/null 2>&1") == 0;
  const std::string dir = "/tmp/bench_fourier_cpu." + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  cv::imwrite(dir + "/large.png", large);
  cv::imwrite(dir + "/small.png", photo);
  std::printf("24 MP RGB (6000x4000), per-channel, sigma-r 25, %d threads; G'MIC timed by its tic and toc\n\n",
              threads);
  std::printf("| sigma-s | N | edgewise s | G'MIC s | edgewise dB | G'MIC dB |\n|---|---|---|---|---|---|\n");
  for (double sigma_s : {2.0, 4.0, 8.0, 12.0, 16.0, 32.0, 64.0}) {
    const double ours = median_seconds([&] { edgewise_filter(fourier(sigma_s), large, threads); }, 3);
    const auto plan = make_plan(fourier(sigma_s), {6000, 4000, 3});
    const int terms = static_cast<const FourierPlan&>(*plan).params.terms;
    const std::string gmic_filter = "bilateral " + std::to_string(sigma_s) + ",25";
    double theirs = NAN, theirs_db = NAN;
    const cv::Mat reference = exact(sigma_s, photo, threads);
    if (have_gmic) {
      theirs = gmic_seconds(dir + "/large.png", gmic_filter, dir + "/out.png", threads);
      std::system(gmic_command(dir + "/small.png", gmic_filter, dir + "/small_out.png", threads).c_str());
      const cv::Mat gmic_small = cv::imread(dir + "/small_out.png", cv::IMREAD_COLOR);
      if (!gmic_small.empty()) theirs_db = edgewise_quality::psnr(reference, gmic_small);
    }
    const double ours_db = edgewise_quality::psnr(reference, edgewise_filter(fourier(sigma_s), photo, threads));
    std::printf("| %g | %d | %.2f | %.2f | %.1f | %.1f |\n", sigma_s, terms, ours, theirs, ours_db, theirs_db);
    std::fflush(stdout);
  }
  std::system(("rm -rf " + dir).c_str());
  return 0;
}
