// The collaborative denoiser (--filter nlbayes) on the CPU: a 4 MP photo
// with white Gaussian noise (sigma 20 code values, fixed seed), blind (sigma-n
// at auto, as a user runs it), at its defaults and at faster reference steps,
// with the work each run does counted from its plan (groups, and per group
// the candidates' distances, covariances, factorisations, solves and
// aggregation in flops) beside the measured time. Configurations run in
// rounds, one run of each per round, and each keeps its fastest round: the
// machine is shared, and interleaving keeps load changes from favouring one.
// With EDGEWISE_BM3D_PYTHON naming a Python that has the bm3d package
// (bench/quality/bm3d_peer.py), a 512 x 512 crop is timed against BM3D too,
// in the same run.
//
// EDGEWISE_BENCH_NOISE=camera replaces the white noise by the camera
// pipeline's (bench/quality/camera_pipeline.h: level 3 with JPEG, variant
// 0, the photo developed as a camera would), measured against its
// noise-free development: the noise --scales auto gives two scales
// (a "--scales 1" row shows what the second scale costs).
//
// Usage: bench_nlbayes_cpu [photo] [threads] [rounds]   (default:
// tests/data/astronaut.png upscaled to 2448x1632, 2 threads, 3 rounds)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <string>
#include <vector>

#include "camera_pipeline.h"
#include "engine.h"
#include "nlbayes.h"
#include "nlbayes_math.h"
#include "quality/image_quality.h"
#include "wall_timing.h"

namespace {

struct Work {
  double groups = 0, flops = 0;
};

// Flops of one step at one scale of width x height (multiply-add = 2),
// from the plan's values: per group, the distances of every candidate
// (3 per sample), the selection's 31 counting passes, per channel (step 1)
// or jointly (step 2) the means and the covariance (2 per member and entry
// of the lower triangle), the factorisation (dim^3 / 3), the two
// substitutions and the correction for every member (2 dim^2 + 2 dim), and
// the aggregation (2 per sample, 1 per weight).
Work step_work(const edgewise::NlbStep& step, int channels, bool second, int width, int height) {
  const int p = edgewise::nlb_patch_side(step.patch, width, height), n = p * p;
  const double groups =
      double(edgewise::nlb_grid_count(width, p, step.step)) * double(edgewise::nlb_grid_count(height, p, step.step));
  const double window = double(2 * step.search_radius + 1) * double(2 * step.search_radius + 1);
  const double members = second ? 1.5 * step.group : step.group;  // step 2: between N and 2N; tau adds some
  const int searched = second ? channels : 1;
  const int dim = second ? channels * n : n, systems = second ? 1 : channels;
  double flops = 3.0 * window * n * searched + 31.0 * window;
  flops += systems * (2.0 * members * dim + members * dim * (dim + 1) + dim * dim * double(dim) / 3.0 +
                      members * (2.0 * dim * dim + 2.0 * dim));
  flops += members * n * (2.0 * channels + 1.0);
  return {groups, groups * flops};
}

Work plan_work(const edgewise::NlbPlan& plan) {
  Work total;
  int width = plan.shape.width, height = plan.shape.height;
  for (int scale = 0; scale < plan.params.scales; ++scale) {
    for (bool second : {false, true}) {
      const Work w =
          step_work(second ? plan.params.second : plan.params.first, plan.params.channels, second, width, height);
      total.groups += w.groups;
      total.flops += w.flops;
    }
    width = (width + 1) / 2;
    height = (height + 1) / 2;
  }
  return total;
}

cv::Mat run_nlbayes(const cv::Mat& noisy_bgr, const edgewise::FilterSpec& spec, int threads) {
  cv::Mat rgb, out;
  cv::cvtColor(noisy_bgr, rgb, cv::COLOR_BGR2RGB);
  out = rgb.clone();
  const edgewise::ImageShape shape{rgb.cols, rgb.rows, 3};
  edgewise::RunOptions options;
  options.backend = "cpu";
  options.backend_options.threads = threads;
  edgewise::run_filter(spec, edgewise::ImageBuffer{rgb.data, shape, edgewise::SampleType::u8, rgb.step},
                       edgewise::ImageBuffer{out.data, shape, edgewise::SampleType::u8, out.step}, options);
  cv::cvtColor(out, out, cv::COLOR_RGB2BGR);
  return out;
}

cv::Mat add_noise(const cv::Mat& clean, double sigma) {
  cv::Mat noisy = clean.clone();
  std::mt19937 rng(2026);
  std::normal_distribution<double> noise(0.0, sigma);
  for (size_t i = 0; i < noisy.total() * 3; ++i)
    noisy.data[i] = cv::saturate_cast<uint8_t>(std::lround(clean.data[i] + noise(rng)));
  return noisy;
}

struct Config {
  const char* label;
  int reference_step;
  int scales = 0;  // auto
};

// The camera pipeline's level 3 with JPEG (variant 0) on a BGR photo: the
// noisy development, and the noise-free one in `clean`.
cv::Mat camera_noise(cv::Mat& clean) {
  cv::Mat rgb;
  cv::cvtColor(clean, rgb, cv::COLOR_BGR2RGB);
  const edgewise_quality::Photo8 photo{rgb.cols, rgb.rows, 3,
                                       std::vector<uint8_t>(rgb.data, rgb.data + rgb.total() * rgb.elemSize())};
  const edgewise_quality::Development d = edgewise_quality::develop(photo, edgewise_quality::camera_case(3, 0, true));
  auto to_bgr = [&](const edgewise_quality::Photo8& developed) {
    cv::Mat bgr;
    cv::cvtColor(cv::Mat(rgb.rows, rgb.cols, CV_8UC3, const_cast<uint8_t*>(developed.pixels.data())), bgr,
                 cv::COLOR_RGB2BGR);
    return bgr;
  };
  clean = to_bgr(d.clean);
  return to_bgr(d.noisy);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : EDGEWISE_SOURCE_DIR "/tests/data/astronaut.png";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  cv::Mat clean = cv::imread(path, cv::IMREAD_COLOR);
  if (clean.empty()) {
    std::fprintf(stderr, "bench_nlbayes_cpu: cannot read %s\n", path.c_str());
    return 1;
  }
  if (argc <= 1) cv::resize(clean, clean, cv::Size(2448, 1632), 0, 0, cv::INTER_CUBIC);
  const double sigma = 20.0;
  const char* noise_kind = std::getenv("EDGEWISE_BENCH_NOISE");
  const bool camera = noise_kind && std::string(noise_kind) == "camera";
  const cv::Mat noisy = camera ? camera_noise(clean) : add_noise(clean, sigma);
  std::printf("%dx%d RGB (%.1f MP), %s (PSNR %.2f dB), %d threads, fastest of %d rounds\n\n", clean.cols, clean.rows,
              clean.total() / 1e6, camera ? "camera noise, level 3 with JPEG" : "white noise sigma 20",
              edgewise_quality::psnr(clean, noisy), threads, rounds);

  std::vector<Config> configs = {{"defaults", 0}, {"--reference-step 3", 3}, {"--reference-step 4 (fast preset)", 4}};
  if (camera) configs.push_back({"--scales 1", 0, 1});
  const int count = int(configs.size());
  std::vector<double> best(size_t(count), 1e30);
  std::vector<cv::Mat> outputs(static_cast<size_t>(count));
  std::vector<edgewise::FilterSpec> specs;
  for (const Config& config : configs) {
    edgewise::NlBayesParameters parameters;
    parameters.sigma_n = float(edgewise::kNoiseAuto);
    parameters.reference_step = config.reference_step;
    parameters.scales = config.scales;
    specs.push_back(edgewise::nlbayes_spec(parameters));
  }
  run_nlbayes(noisy, specs[0], threads);  // warm-up
  for (int round = 0; round < rounds; ++round)
    for (int c = 0; c < count; ++c) {
      const double s =
          edgewise_bench::seconds([&] { outputs[size_t(c)] = run_nlbayes(noisy, specs[size_t(c)], threads); });
      best[size_t(c)] = std::min(best[size_t(c)], s);
    }
  // The work, from the plans the runs made (sigma-n resolved as they did).
  cv::Mat rgb;
  cv::cvtColor(noisy, rgb, cv::COLOR_BGR2RGB);
  const edgewise::ImageShape shape{rgb.cols, rgb.rows, 3};
  const edgewise::NoiseEstimate estimate =
      edgewise::estimate_noise(edgewise::ImageBuffer{rgb.data, shape, edgewise::SampleType::u8, rgb.step});
  std::printf(
      "| settings | scales | groups | Gflop (counted) | s | Gflop/s | PSNR dB |\n|---|---|---|---|---|---|---|\n");
  for (int c = 0; c < count; ++c) {
    edgewise::PlanRequest request;
    request.noise = &estimate;
    request.noise_auto_flags = edgewise::noise_auto_flags(specs[size_t(c)]);
    const auto plan = edgewise::make_plan(edgewise::resolve_noise(specs[size_t(c)], estimate), shape, request);
    const Work work = plan_work(static_cast<const edgewise::NlbPlan&>(*plan));
    std::printf("| %s | %d | %.2f M | %.1f | %.2f | %.1f | %.2f |\n", configs[size_t(c)].label,
                static_cast<const edgewise::NlbPlan&>(*plan).params.scales, work.groups / 1e6, work.flops / 1e9,
                best[size_t(c)], work.flops / 1e9 / best[size_t(c)], edgewise_quality::psnr(clean, outputs[size_t(c)]));
  }

  // The BM3D peer on a crop, in the same run.
  const char* python = std::getenv("EDGEWISE_BM3D_PYTHON");
  if (!python || camera) {
    std::printf(camera ? "\nCamera noise: no BM3D peer row (bench/quality runs it with the true noise)\n"
                       : "\nEDGEWISE_BM3D_PYTHON not set: no BM3D peer row\n");
    return 0;
  }
  const cv::Rect crop((clean.cols - 512) / 2, (clean.rows - 512) / 2, 512, 512);
  const cv::Mat clean_crop = clean(crop).clone(), noisy_crop = noisy(crop).clone();
  const std::string dir = "/tmp/edgewise-bench-nlbayes-" + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  cv::imwrite(dir + "/in.png", noisy_crop);
  const std::string command = std::string(python) + " " EDGEWISE_SOURCE_DIR "/bench/quality/bm3d_peer.py " + dir +
                              "/in.png " + dir + "/out.png 20 20 20 > " + dir + "/seconds.txt";
  const double bm3d_wall = edgewise_bench::seconds([&] { std::system(command.c_str()); });
  double bm3d_seconds = bm3d_wall;
  if (FILE* f = std::fopen((dir + "/seconds.txt").c_str(), "r")) {
    if (std::fscanf(f, "%lf", &bm3d_seconds) != 1) bm3d_seconds = bm3d_wall;
    std::fclose(f);
  }
  const cv::Mat bm3d = cv::imread(dir + "/out.png", cv::IMREAD_COLOR);
  cv::Mat ours;
  double ours_seconds = 1e30;
  for (int round = 0; round < rounds; ++round)
    ours_seconds =
        std::min(ours_seconds, edgewise_bench::seconds([&] { ours = run_nlbayes(noisy_crop, specs[0], threads); }));
  std::printf(
      "\n512x512 crop, same noise: nlbayes defaults (blind) %.3f s, %.2f dB; bm3d package (bm3d_rgb, true "
      "sigma) %.2f s, %.2f dB (BM3D's own time; %.2f s with Python's start)\n",
      ours_seconds, edgewise_quality::psnr(clean_crop, ours), bm3d_seconds,
      bm3d.empty() ? 0.0 : edgewise_quality::psnr(clean_crop, bm3d), bm3d_wall);
  std::system(("rm -rf " + dir).c_str());
  return 0;
}
