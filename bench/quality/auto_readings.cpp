// Every filter at auto with the learned noise reading, with the statistical
// one, and given the true noise (issue 34's goals; core/learned_noise.h):
// the same noisy image, the same filter at its defaults, only the noise its
// auto parameters follow differs. Cases: the clean photo (PSNR to itself:
// what auto takes from a photo without noise), white noise sigma 10, 20,
// 30, and the camera pipeline at its four levels without and with JPEG
// (camera_pipeline.h). "Given the truth" is white noise of each channel's
// true RMS (white_noise_estimate per channel, the opponent planes from
// the RGB covariance of the true noise): the number a user would type. A
// tool, not a test: markdown for docs/quality.md.
//
// Usage: auto_readings IMAGE...   (8-bit grey or RGB)
// EDGEWISE_QUALITY_ONLY=WORD[,WORD] keeps the filters whose label holds a word.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "camera_pipeline.h"
#include "engine.h"
#include "filter_registry.h"
#include "image_quality.h"
#include "noise_models.h"
#include "opponent_color.h"

namespace {

using edgewise::FilterSpec;
using edgewise::NoiseEstimate;

struct Subject {
  std::string label;
  FilterSpec spec;
};

std::vector<Subject> subjects() {
  auto make = [](const char* filter, const char* mode) {
    FilterSpec spec(*edgewise::builtin_registry().find(filter));
    if (mode) edgewise::throw_if_error(edgewise::set_param(spec, "mode", std::string(mode)));
    return Subject{std::string(filter) + (mode ? std::string(" ") + mode : ""), spec};
  };
  std::vector<Subject> all = {make("bilateral", "rgb"), make("adaptive", nullptr), make("nlm", nullptr),
                              make("fourier", nullptr), make("pyramid", "lab"),    make("nlbayes", nullptr)};
  const char* only = std::getenv("EDGEWISE_QUALITY_ONLY");
  if (!only) return all;
  std::vector<Subject> kept;
  const std::string words = only;
  for (const Subject& s : all) {
    size_t start = 0;
    while (start <= words.size()) {
      const size_t end = std::min(words.find(',', start), words.size());
      if (end > start && s.label.find(words.substr(start, end - start)) != std::string::npos) {
        kept.push_back(s);
        break;
      }
      start = end + 1;
    }
  }
  return kept;
}

struct Case {
  std::string label;
  cv::Mat reference, noisy;
};

edgewise::ImageBuffer view(const cv::Mat& m) {
  return {m.data, {m.cols, m.rows, m.channels()}, edgewise::SampleType::u8, m.step};
}

NoiseEstimate read(const cv::Mat& image, edgewise::NoiseReadingChoice choice) {
  edgewise::NoiseEstimateOptions options;
  options.reading = choice;
  return edgewise::estimate_noise(view(image), options);
}

// White noise of each channel's true deviation; the opponent planes' from
// the true noise's own values (as a user who knew the noise would give it).
NoiseEstimate truth_of(const cv::Mat& reference, const cv::Mat& noisy) {
  const int channels = reference.channels();
  std::vector<double> sums(channels == 3 ? 6 : 1, 0.0);
  const size_t pixels = reference.total();
  for (size_t p = 0; p < pixels; ++p) {
    double n[3] = {0, 0, 0};
    for (int c = 0; c < channels; ++c)
      n[c] = double(noisy.data[p * size_t(channels) + size_t(c)]) - reference.data[p * size_t(channels) + size_t(c)];
    for (int c = 0; c < channels; ++c) sums[size_t(c)] += n[c] * n[c];
    if (channels == 3) {
      double o[3];
      edgewise::rgb_to_opponent(n[0], n[1], n[2], o[0], o[1], o[2]);
      for (int c = 0; c < 3; ++c) sums[size_t(3 + c)] += o[c] * o[c];
    }
  }
  NoiseEstimate e = edgewise::white_noise_estimate(1.0, channels == 3 ? 3 : 1);
  for (size_t c = 0; c < e.channels.size(); ++c) e.channels[c].sigma = std::sqrt(sums[c] / double(pixels));
  for (size_t c = 0; c < e.opponent.size(); ++c) e.opponent[c].sigma = std::sqrt(sums[3 + c] / double(pixels));
  return e;
}

cv::Mat run(const FilterSpec& spec, const cv::Mat& noisy, const NoiseEstimate& noise) {
  cv::Mat out(noisy.size(), noisy.type());
  edgewise::RunOptions options;
  options.backend = "cpu";
  options.noise = &noise;
  edgewise::run_filter(spec, view(noisy), view(out), options);
  return out;
}

std::vector<Case> cases_of(const cv::Mat& clean, int variant) {
  std::vector<Case> cases;
  cases.push_back({"clean", clean, clean});
  for (double sigma : {10.0, 20.0, 30.0}) {
    cv::Mat noisy = clean.clone();
    edgewise_noise::add_noise(noisy.data, noisy.total() * noisy.elemSize(), edgewise_noise::white_level(sigma),
                              unsigned(sigma));
    cases.push_back({"white " + std::to_string(int(sigma)), clean, noisy});
  }
  const edgewise_quality::Photo8 photo{clean.cols, clean.rows, clean.channels(),
                                       std::vector<uint8_t>(clean.data, clean.data + clean.total() * clean.elemSize())};
  for (int level = 0; level < edgewise_quality::kCameraLevels; ++level)
    for (bool jpeg : {false, true}) {
      const edgewise_quality::Development d =
          edgewise_quality::develop(photo, edgewise_quality::camera_case(level, variant, jpeg));
      cv::Mat reference(clean.rows, clean.cols, clean.type()), noisy(clean.rows, clean.cols, clean.type());
      std::copy(d.clean.pixels.begin(), d.clean.pixels.end(), reference.data);
      std::copy(d.noisy.pixels.begin(), d.noisy.pixels.end(), noisy.data);
      cases.push_back({"camera " + std::to_string(level) + (jpeg ? " JPEG" : ""), reference, noisy});
    }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: auto_readings IMAGE...\n");
    return 2;
  }
  const std::vector<Subject> filters = subjects();
  std::printf(
      "| photo | noise | filter | learned (dB) | statistical | given the truth | learned − truth |\n"
      "|---|---|---|---|---|---|---|\n");
  int clean_cases = 0, clean_ok[2] = {0, 0}, white_cases = 0, white_ok[2] = {0, 0};
  double worst_white[2] = {0, 0}, worst_camera[2] = {0, 0}, worst_clean[2] = {1e9, 1e9};
  for (int i = 1; i < argc; ++i) {
    cv::Mat image = cv::imread(argv[i], cv::IMREAD_UNCHANGED);
    if (image.empty() || image.depth() != CV_8U || (image.channels() != 1 && image.channels() != 3)) {
      std::fprintf(stderr, "auto_readings: %s is not an 8-bit grey or RGB image\n", argv[i]);
      return 1;
    }
    if (image.channels() == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
    const std::string path = argv[i];
    const std::string name = path.substr(path.find_last_of('/') + 1);
    for (const Case& c : cases_of(image, i - 1)) {
      const bool clean = c.label == "clean";
      const NoiseEstimate learned = read(c.noisy, edgewise::NoiseReadingChoice::learned);
      const NoiseEstimate statistical = read(c.noisy, edgewise::NoiseReadingChoice::statistical);
      const NoiseEstimate truth = clean ? NoiseEstimate{} : truth_of(c.reference, c.noisy);
      for (const Subject& s : filters) {
        const double p_learned = edgewise_quality::psnr(c.reference, run(s.spec, c.noisy, learned));
        const double p_stat = edgewise_quality::psnr(c.reference, run(s.spec, c.noisy, statistical));
        if (clean) {
          ++clean_cases;
          clean_ok[0] += p_learned >= 45, clean_ok[1] += p_stat >= 45;
          worst_clean[0] = std::min(worst_clean[0], p_learned), worst_clean[1] = std::min(worst_clean[1], p_stat);
          std::printf("| %s | clean | %s | %.2f | %.2f | - | - |\n", name.c_str(), s.label.c_str(), p_learned, p_stat);
        } else {
          const double p_truth = edgewise_quality::psnr(c.reference, run(s.spec, c.noisy, truth));
          const double d[2] = {p_learned - p_truth, p_stat - p_truth};
          if (c.label.rfind("white", 0) == 0) {
            ++white_cases;
            for (int k = 0; k < 2; ++k) {
              white_ok[k] += d[k] >= -0.3;
              worst_white[k] = std::min(worst_white[k], d[k]);
            }
          } else {
            for (int k = 0; k < 2; ++k) worst_camera[k] = std::min(worst_camera[k], d[k]);
          }
          std::printf("| %s | %s | %s | %.2f | %.2f | %.2f | %+.2f |\n", name.c_str(), c.label.c_str(), s.label.c_str(),
                      p_learned, p_stat, p_truth, d[0]);
        }
        std::fflush(stdout);
      }
    }
  }
  std::printf(
      "\nClean photos ≥ 45 dB: learned %d of %d (lowest %.2f), statistical %d of %d (lowest %.2f). "
      "White noise within 0.3 dB of the truth: learned %d of %d (worst %+.2f), statistical %d of %d (worst "
      "%+.2f). Camera noise, worst against the truth: learned %+.2f, statistical %+.2f.\n",
      clean_ok[0], clean_cases, worst_clean[0], clean_ok[1], clean_cases, worst_clean[1], white_ok[0], white_cases,
      worst_white[0], white_ok[1], white_cases, worst_white[1], worst_camera[0], worst_camera[1]);
  return 0;
}
