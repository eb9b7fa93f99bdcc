// The multiresolution bilateral filter on the CPU against the single-scale
// bilateral filter at the same per-level radius (issue 15's speed goal: at
// most 1.5x it on 2 cores): a 24 MP RGB photo (tests/data/astronaut_noisy.png
// upscaled to 6000 x 4000, bicubic), 8-bit buffers through run_filter,
// radius 2 (sigma-s 1), sigma-r 20; per mode, the filters timed in turn,
// five rounds after a warm-up, the median of each.
//
// Usage: bench_pyramid_cpu [threads]   (default 2)

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
#include "engine_mat.h"
#include "pyramid.h"
#include "pyramid_cases.h"

namespace {

using namespace edgewise;

using edgewise_bench::process_seconds;

constexpr int kRepeats = 5;

// Median wall seconds and median CPU seconds of the process (all threads):
// on a machine shared with other jobs the CPU time is the steadier figure.
struct Timing {
  double wall, cpu;
};

// Each run once to warm up, then `repeats` rounds of every run in turn:
// another job's burst slows the single-scale filter and the pyramid alike,
// where timing one after the other set the ratio by when the burst came.
std::vector<Timing> interleaved_medians(const std::vector<std::function<void()>>& runs, int repeats) {
  for (const auto& run : runs) run();
  std::vector<std::vector<double>> walls(runs.size()), cpus(runs.size());
  for (int i = 0; i < repeats; ++i)
    for (size_t r = 0; r < runs.size(); ++r) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = process_seconds();
      runs[r]();
      cpus[r].push_back(process_seconds() - cpu_start);
      walls[r].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  std::vector<Timing> medians;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::sort(walls[r].begin(), walls[r].end());
    std::sort(cpus[r].begin(), cpus[r].end());
    medians.push_back({walls[r][walls[r].size() / 2], cpus[r][cpus[r].size() / 2]});
  }
  return medians;
}

void run(const FilterSpec& spec, cv::Mat& rgb, cv::Mat& out, int threads) {
  edgewise_bench::run_cpu_u8(spec, rgb, out, threads);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const cv::Mat photo = cv::imread(EDGEWISE_SOURCE_DIR "/tests/data/astronaut_noisy.png", cv::IMREAD_COLOR);
  if (photo.empty()) return 1;
  cv::Mat large, rgb;
  cv::resize(photo, large, cv::Size(6000, 4000), 0, 0, cv::INTER_CUBIC);
  cv::cvtColor(large, rgb, cv::COLOR_BGR2RGB);
  cv::Mat out = rgb.clone();
  std::printf(
      "24 MP RGB 8-bit (6000x4000), radius 2 per level (sigma-s 1), %d threads, median of %d interleaved rounds\n\n",
      threads, kRepeats);
  std::printf(
      "| mode | filter | levels | reach (rows) | wall s | x bilateral | CPU s | x bilateral |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (ColorMode mode : {ColorMode::rgb, ColorMode::per_channel, ColorMode::lab}) {
    std::vector<std::pair<int, float>> cases = {{5, 1.0f}, {6, 1.0f}};
    if (mode == ColorMode::lab) cases.push_back({5, 2.0f});  // luma and chroma apart: two passes per level
    std::vector<FilterSpec> specs = {edgewise_bench::bilateral(mode)};
    for (const auto& c : cases)
      specs.push_back(edgewise_bench::pyramid(mode, c.first, PyramidGuide::gaussian, c.second));
    std::vector<std::function<void()>> runs;
    for (const FilterSpec& spec : specs) runs.push_back([&, spec] { run(spec, rgb, out, threads); });
    const std::vector<Timing> t = interleaved_medians(runs, kRepeats);
    const Timing single = t[0];
    std::printf("| %s | bilateral | 1 | 2 | %.2f | 1.00 | %.2f | 1.00 |\n", to_string(mode), single.wall, single.cpu);
    for (size_t c = 0; c < cases.size(); ++c) {
      const Timing& p = t[c + 1];
      std::printf("| %s | pyramid%s | %d | %d | %.2f | %.2f | %.2f | %.2f |\n", to_string(mode),
                  cases[c].second != 1.0f ? " (chroma 2)" : "", cases[c].first, filter_reach(specs[c + 1]), p.wall,
                  p.wall / single.wall, p.cpu, p.cpu / single.cpu);
    }
    std::fflush(stdout);
  }
  return 0;
}
