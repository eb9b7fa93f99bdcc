// The non-local-means bilateral filter on the CPU against OpenCV's
// cv::fastNlMeansDenoisingColored on the same 4 MP photo with Gaussian noise
// (sigma 20 code values, fixed seed), same thread count, equal search and
// patch sizes (Edgewise S, f against OpenCV's search window 2S+1 and
// template 2f+1), in one run: wall time and the PSNR of each against the
// clean photo. Each at strengths near its own best on the quality grid
// (docs/quality.md): Edgewise h = 0.45 sigma with sigma-n = sigma, OpenCV
// h = hColor = 0.8 sigma. Medians of 3 runs after a warm-up.
//
// Usage: bench_nlm_cpu [photo] [threads]   (default: tests/data/astronaut.png
// upscaled to 2448x1632)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine.h"
#include "nlm.h"
#include "quality/image_quality.h"
#include "wall_timing.h"

using edgewise_bench::median_ms;

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : EDGEWISE_SOURCE_DIR "/tests/data/astronaut.png";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  cv::Mat clean = cv::imread(path, cv::IMREAD_COLOR);
  if (clean.empty()) {
    std::fprintf(stderr, "bench_nlm_cpu: cannot read %s\n", path.c_str());
    return 1;
  }
  if (argc <= 1) cv::resize(clean, clean, cv::Size(2448, 1632), 0, 0, cv::INTER_CUBIC);
  const double sigma = 20.0;
  cv::Mat noisy = clean.clone();
  std::mt19937 rng(2026);
  std::normal_distribution<double> noise(0.0, sigma);
  for (size_t i = 0; i < noisy.total() * 3; ++i)
    noisy.data[i] = cv::saturate_cast<uint8_t>(std::lround(clean.data[i] + noise(rng)));
  cv::setNumThreads(threads);
  std::printf("%dx%d RGB (%.1f MP), noise sigma %g (PSNR %.2f dB), %d threads\n\n", clean.cols, clean.rows,
              clean.total() / 1e6, sigma, edgewise_quality::psnr(clean, noisy), threads);
  std::printf("| search, patch | edgewise ms | PSNR | opencv ms | PSNR | time ratio |\n|---|---|---|---|---|---|\n");
  for (const auto& [S, f] : {std::pair{10, 1}, std::pair{10, 2}, std::pair{10, 3}, std::pair{7, 1}}) {
    cv::Mat rgb, out;
    cv::cvtColor(noisy, rgb, cv::COLOR_BGR2RGB);
    out = rgb.clone();
    edgewise::NlmParameters parameters;
    parameters.search_radius = S;
    parameters.patch_radius = f;
    parameters.h = float(0.45 * sigma);
    parameters.sigma_n = float(sigma);
    const edgewise::ImageShape shape{rgb.cols, rgb.rows, 3};
    edgewise::RunOptions options;
    options.backend = "cpu";
    options.backend_options.threads = threads;
    const double ours = median_ms(
        [&] {
          edgewise::run_filter(edgewise::nlm_spec(parameters),
                               edgewise::ImageBuffer{rgb.data, shape, edgewise::SampleType::u8, rgb.step},
                               edgewise::ImageBuffer{out.data, shape, edgewise::SampleType::u8, out.step}, options);
        },
        3);
    cv::cvtColor(out, out, cv::COLOR_RGB2BGR);
    cv::Mat theirs;
    const double opencv = median_ms(
        [&] { cv::fastNlMeansDenoisingColored(noisy, theirs, float(0.8 * sigma), float(0.8 * sigma), 2 * f + 1, 2 * S + 1); },
        3);
    std::printf("| %dx%d, %dx%d | %.0f | %.2f | %.0f | %.2f | %.2f |\n", 2 * S + 1, 2 * S + 1, 2 * f + 1, 2 * f + 1,
                ours, edgewise_quality::psnr(clean, out), opencv, edgewise_quality::psnr(clean, theirs),
                ours / opencv);
    std::fflush(stdout);
  }
  return 0;
}
