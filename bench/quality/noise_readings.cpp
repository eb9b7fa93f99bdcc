// The learned noise reading beside the statistical one (issue 34's goals;
// core/learned_noise.h, core/noise_estimate.h), on the same noisy images in
// one run: for each photo, the clean photo, white noise (sigma 5, 10, 20,
// 30), Poisson-Gaussian noise (sigma 5, 10, 20 at mid-grey), the correlated
// cases of noise_models.h (blur 1 and 2 px, YCbCr noise and blotches) and the
// camera pipeline at its four levels without and with JPEG. The truth is
// each channel's RMS of noisy - clean (clipping and rounding included, as a
// filter sees it); the reading's error is the median over the colour
// channels of estimate / truth - 1. A tool, not a test: markdown for
// docs/quality.md. The last table times a 24 MP RGB photo (the first image
// resized to 6000x4000, white sigma 10) on 2 threads, best of 5, both
// readings.
//
// Usage: noise_readings IMAGE...   (8-bit grey or RGB)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "camera_pipeline.h"
#include "noise_estimate.h"
#include "noise_models.h"

namespace {

using edgewise::NoiseEstimate;
using edgewise::NoiseReadingChoice;

struct Photo {
  std::string name;
  cv::Mat rgb;  // 8-bit R'G'B' or grey
};

struct Case {
  std::string label;
  cv::Mat noisy;
  std::vector<double> truth;  // per channel; empty for a clean photo
};

NoiseEstimate read(const cv::Mat& image, NoiseReadingChoice choice, int threads = 0) {
  edgewise::NoiseEstimateOptions options;
  options.threads = threads;
  options.reading = choice;
  return edgewise::estimate_noise(
      edgewise::ImageBuffer{
          image.data, {image.cols, image.rows, image.channels()}, edgewise::SampleType::u8, image.step},
      options);
}

std::vector<double> rms(const cv::Mat& noisy, const cv::Mat& clean) {
  const int channels = clean.channels();
  std::vector<double> sums(size_t(channels), 0.0);
  const size_t count = clean.total() * size_t(channels);
  for (size_t i = 0; i < count; ++i) {
    const double d = double(noisy.data[i]) - double(clean.data[i]);
    sums[i % size_t(channels)] += d * d;
  }
  for (double& s : sums) s = std::sqrt(s / double(clean.total()));
  return sums;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<Case> cases_of(const Photo& photo) {
  std::vector<Case> cases;
  const cv::Mat& clean = photo.rgb;
  cases.push_back({"clean", clean, {}});
  auto with_level = [&](const std::string& label, double gain, double floor, unsigned seed) {
    cv::Mat noisy = clean.clone();
    edgewise_noise::add_noise(noisy.data, noisy.total() * noisy.elemSize(), {gain, floor}, seed);
    cases.push_back({label, noisy, rms(noisy, clean)});
  };
  for (double sigma : {5.0, 10.0, 20.0, 30.0})
    with_level("white " + std::to_string(int(sigma)), 0, sigma * sigma, 2026u + unsigned(sigma));
  for (double mid : {5.0, 10.0, 20.0}) {
    const double floor = (0.3 * mid) * (0.3 * mid);
    with_level("Poisson-Gaussian " + std::to_string(int(mid)), (mid * mid - floor) / 128.0, floor,
               4052u + unsigned(mid));
  }
  for (const edgewise_noise::CorrelatedCase& c :
       edgewise_noise::correlated_cases(clean.cols, clean.rows, clean.channels(), edgewise_noise::ChannelOrder::rgb)) {
    cv::Mat noisy = clean.clone();
    edgewise_noise::add_field(noisy.data, c.field);
    char label[96];
    std::snprintf(label, sizeof label, "%s (σ %.1f)", c.label.c_str(), c.sigma);
    cases.push_back({label, noisy, rms(noisy, clean)});
  }
  static int variant = 0;
  const edgewise_quality::Photo8 photo8{
      clean.cols, clean.rows, clean.channels(),
      std::vector<uint8_t>(clean.data, clean.data + clean.total() * clean.elemSize())};
  for (int level = 0; level < edgewise_quality::kCameraLevels; ++level)
    for (bool jpeg : {false, true}) {
      const edgewise_quality::CameraSettings settings = edgewise_quality::camera_case(level, variant, jpeg);
      const edgewise_quality::Development d = edgewise_quality::develop(photo8, settings);
      cv::Mat noisy(clean.rows, clean.cols, clean.type());
      std::copy(d.noisy.pixels.begin(), d.noisy.pixels.end(), noisy.data);
      cases.push_back(
          {"camera " + std::to_string(level) + (jpeg ? " JPEG " + std::to_string(settings.jpeg_quality) : ""), noisy,
           edgewise_quality::noise_rms(d)});
    }
  ++variant;
  return cases;
}

std::string per_channel(const NoiseEstimate& e) {
  std::string text;
  for (const edgewise::ChannelNoise& c : e.channels) {
    char value[24];
    std::snprintf(value, sizeof value, "%s%.1f", text.empty() ? "" : "/", c.sigma);
    text += value;
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: noise_readings IMAGE...\n");
    return 2;
  }
  std::vector<Photo> photos;
  for (int i = 1; i < argc; ++i) {
    cv::Mat image = cv::imread(argv[i], cv::IMREAD_UNCHANGED);
    if (image.empty() || image.depth() != CV_8U || (image.channels() != 1 && image.channels() != 3)) {
      std::fprintf(stderr, "noise_readings: %s is not an 8-bit grey or RGB image\n", argv[i]);
      return 1;
    }
    if (image.channels() == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
    const std::string path = argv[i];
    photos.push_back({path.substr(path.find_last_of('/') + 1), image});
  }
  // EDGEWISE_READINGS=timing runs the timing alone.
  const char* only = std::getenv("EDGEWISE_READINGS");
  const bool timing_only = only && std::string(only) == "timing";
  if (!timing_only) {
    std::printf(
        "| photo | noise | true σ per channel | statistical | error | learned | error "
        "|\n|---|---|---|---|---|---|---|\n");
    int cases = 0, within[2] = {0, 0}, clean_cases = 0, clean_ok[2] = {0, 0};
    double worst[2] = {0, 0};
    for (const Photo& photo : photos)
      for (const Case& c : cases_of(photo)) {
        const NoiseEstimate e[2] = {read(c.noisy, NoiseReadingChoice::statistical),
                                    read(c.noisy, NoiseReadingChoice::learned)};
        std::string truth = "-", error[2] = {"", ""};
        if (c.truth.empty()) {
          ++clean_cases;
          for (int k = 0; k < 2; ++k) {
            const bool ok = e[k].sigma() <= 1.5;
            clean_ok[k] += ok;
            error[k] = ok ? "≤ 1.5" : "> 1.5";
          }
        } else {
          ++cases;
          truth.clear();
          for (double t : c.truth) {
            char value[24];
            std::snprintf(value, sizeof value, "%s%.1f", truth.empty() ? "" : "/", t);
            truth += value;
          }
          for (int k = 0; k < 2; ++k) {
            std::vector<double> ratios;
            for (size_t ch = 0; ch < c.truth.size() && ch < e[k].channels.size(); ++ch)
              ratios.push_back(e[k].channels[ch].sigma / std::max(c.truth[ch], 1e-9) - 1);
            const double m = median(ratios);
            within[k] += std::abs(m) <= 0.2;
            if (std::abs(m) > std::abs(worst[k])) worst[k] = m;
            char value[32];
            std::snprintf(value, sizeof value, "%+.0f %%%s", 100 * m, std::abs(m) <= 0.2 ? "" : " ✗");
            error[k] = value;
          }
        }
        std::printf("| %s | %s | %s | %s%s | %s | %s%s | %s |\n", photo.name.c_str(), c.label.c_str(), truth.c_str(),
                    per_channel(e[0]).c_str(), e[0].fallback ? " (fallback)" : "", error[0].c_str(),
                    per_channel(e[1]).c_str(), e[1].reading_note.empty() ? "" : " (unsure)", error[1].c_str());
        std::fflush(stdout);
      }
    std::printf(
        "\nWithin 20 %% of the truth (median over channels): statistical %d of %d, learned %d of %d; worst "
        "%+.0f %% and %+.0f %%. Clean photos read ≤ 1.5: statistical %d of %d, learned %d of %d.\n",
        within[0], cases, within[1], cases, 100 * worst[0], 100 * worst[1], clean_ok[0], clean_cases, clean_ok[1],
        clean_cases);
  }

  if (std::getenv("EDGEWISE_READINGS_NO_TIMING")) return 0;
  cv::Mat big;
  cv::resize(photos.front().rgb, big, cv::Size(6000, 4000), 0, 0, cv::INTER_CUBIC);
  if (big.channels() == 1) cv::cvtColor(big, big, cv::COLOR_GRAY2RGB);
  edgewise_noise::add_noise(big.data, big.total() * big.elemSize(), {0, 100}, 7);
  std::printf("\n| reading | 24 MP, 2 threads (best of 5) | σ per channel |\n|---|---|---|\n");
  for (NoiseReadingChoice choice : {NoiseReadingChoice::statistical, NoiseReadingChoice::learned}) {
    double best = 1e30;
    NoiseEstimate e;
    for (int run = 0; run < 5; ++run) {
      const auto start = std::chrono::steady_clock::now();
      e = read(big, choice, 2);
      best =
          std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("| %s | %.1f ms | %s |\n", choice == NoiseReadingChoice::learned ? "learned" : "statistical", best,
                per_channel(e).c_str());
  }
  return 0;
}
