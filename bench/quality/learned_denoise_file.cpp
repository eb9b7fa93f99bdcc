// The learned denoiser (core/learned_denoise.h) on one 8-bit RGB file, for
// the quality scripts (bench/quality/learned_texture.py) until the filter
// has its registry row: it reads IN, denoises it with the shipped noise
// network's map (or, with --sigma S, the map of white noise of deviation S
// code values) and writes OUT as 8-bit PNG, rounded.
//
//   learned_denoise_file [--weights FILE] [--sigma S] [--strength K] [--threads N] IN OUT
//
// The weights: --weights, else $EDGEWISE_DENOISE_NET (as the filter reads
// it, so a candidate file is measured the same way through every tool),
// else the source tree's models/denoiser-v1.ewnn.
//
// Prints the seconds the network took (processor threads as OpenMP gives
// them) on stderr.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "denoise_net.h"
#include "learned_denoise.h"
#include "learned_noise.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: learned_denoise_file [--weights FILE] [--sigma S] [--strength K] [--threads N] IN OUT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string weights = EDGEWISE_SOURCE_DIR "/models/denoiser-v1.ewnn";
  if (const char* chosen = std::getenv("EDGEWISE_DENOISE_NET"); chosen && *chosen) weights = chosen;
  edgewise::LearnedDenoiseOptions options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--weights" && has_value) {
      weights = argv[++i];
    } else if (arg == "--sigma" && has_value) {
      options.sigma = std::atof(argv[++i]);
    } else if (arg == "--strength" && has_value) {
      options.strength = std::atof(argv[++i]);
    } else if (arg == "--threads" && has_value) {
      options.threads = std::atoi(argv[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      return usage();
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2) return usage();
  try {
    const cv::Mat bgr = cv::imread(files[0], cv::IMREAD_COLOR);
    if (bgr.empty()) {
      std::fprintf(stderr, "learned_denoise_file: cannot read %s as an image\n", files[0].c_str());
      return 1;
    }
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
    const edgewise::ShippedNoiseNet& noise_net = edgewise::shipped_noise_net();
    if (!noise_net.net) {
      std::fprintf(stderr, "learned_denoise_file: %s\n", noise_net.problem.c_str());
      return 1;
    }
    const edgewise::DenoiseNet denoiser = edgewise::load_denoise_net(weights);
    cv::Mat out(rgb.rows, rgb.cols, CV_32FC3);
    const auto start = std::chrono::steady_clock::now();
    edgewise::learned_denoise_rgb(denoiser, *noise_net.net, rgb.ptr<float>(), rgb.cols, rgb.rows, out.ptr<float>(),
                                  options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "%s: %d x %d in %.2f s (weights %s)\n", files[0].c_str(), rgb.cols, rgb.rows, seconds,
                 weights.c_str());
    cv::Mat out8;
    out.convertTo(out8, CV_8UC3, 255.0);  // saturates and rounds to nearest
    cv::cvtColor(out8, out8, cv::COLOR_RGB2BGR);
    if (!cv::imwrite(files[1], out8)) {
      std::fprintf(stderr, "learned_denoise_file: cannot write %s\n", files[1].c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "learned_denoise_file: %s\n", e.what());
    return 1;
  }
  return 0;
}
