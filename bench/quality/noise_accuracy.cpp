// The noise estimator's accuracy (issue 16, item 4a; core/noise_estimate.h):
// clean photos plus noise of known level, as an 8-bit file holds it
// (rounded, clipped to 0..255), five seeds per case; the estimate against
// the truth. A tool, not a test: it prints markdown tables for
// docs/quality.md.
//
//   white: sigma in {2, 5, 10, 20, 30, 40} code values on every sample;
//     the median over channels against sigma, and the worst channel.
//   Poisson-Gaussian: variance gain * I + floor, sigma at I = 128 in
//     {5, 10, 20, 30, 40}, floor = (0.3 sigma_128)^2 (read noise); each
//     measured bin of the noise level function against sqrt(gain * I +
//     floor) at the bin's intensity.
//
// The clean photos are not noise-free (scanning, compression, resizing):
// their own level, as the estimator reads it, is printed first, and the
// white-noise table also gives the error against the sigma the file then
// holds, sqrt(sigma^2 + own^2 + 1/12) (1/12: rounding to integers).
//
// Usage: noise_accuracy IMAGE...   (8-bit grey or RGB; prints markdown)
// The last table times a 24 MP RGB photo (the first image resized to
// 6000x4000, white sigma 10) on 2 threads: best of 7.
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
#include "opponent_color.h"

namespace {

using edgewise::NoiseEstimate;

const double kWhite[] = {2, 5, 10, 20, 30, 40};
const double kMidGrey[] = {5, 10, 20, 30, 40};
constexpr int kSeeds = 5;

struct Photo {
  std::string name;
  cv::Mat rgb;  // 8-bit, R'G'B' (or grey)
};

cv::Mat add_noise(const cv::Mat& clean, double gain, double floor, unsigned seed) {
  cv::Mat noisy = clean.clone();
  edgewise_noise::add_noise(noisy.data, noisy.total() * noisy.elemSize(), {gain, floor}, seed);
  return noisy;
}

NoiseEstimate estimate(const cv::Mat& image, int threads = 0) {
  edgewise::NoiseEstimateOptions options;
  options.threads = threads;
  return edgewise::estimate_noise(
      edgewise::ImageBuffer{
          image.data, {image.cols, image.rows, image.channels()}, edgewise::SampleType::u8, image.step},
      options);
}

std::string sigmas(const NoiseEstimate& e) {
  std::string text;
  for (const edgewise::ChannelNoise& channel : e.channels) {
    char value[32];
    std::snprintf(value, sizeof value, "%s%.2f", text.empty() ? "" : " / ", channel.sigma);
    text += channel.valid ? value : (text.empty() ? "-" : " / -");
  }
  return text;
}

void own_levels(const std::vector<Photo>& photos) {
  std::printf("| photo | own sigma per channel | median |\n|---|---|---|\n");
  for (const Photo& photo : photos) {
    const NoiseEstimate e = estimate(photo.rgb);
    std::printf("| %s | %s | %.2f |\n", photo.name.c_str(), sigmas(e).c_str(), e.sigma());
  }
}

void white_noise(const std::vector<Photo>& photos) {
  std::printf(
      "\n| photo | white σ | estimate (median, mean of %d seeds) | error | worst channel, any seed | error vs the "
      "file's σ |\n|---|---|---|---|---|---|\n",
      kSeeds);
  for (const Photo& photo : photos) {
    const double own = estimate(photo.rgb).sigma();
    for (double sigma : kWhite) {
      double sum = 0, worst = 0;
      for (int s = 0; s < kSeeds; ++s) {
        const NoiseEstimate e = estimate(add_noise(photo.rgb, 0, sigma * sigma, 2026u + unsigned(sigma) + 1000u * s));
        sum += e.sigma();
        for (const edgewise::ChannelNoise& channel : e.channels)
          if (std::abs(channel.sigma / sigma - 1) > std::abs(worst)) worst = channel.sigma / sigma - 1;
      }
      const double mean = sum / kSeeds;
      const double held = std::sqrt(sigma * sigma + own * own + 1.0 / 12);
      std::printf("| %s | %g | %.2f | %+.1f %% | %+.1f %% | %+.1f %% |\n", photo.name.c_str(), sigma, mean,
                  100 * (mean / sigma - 1), 100 * worst, 100 * (mean / held - 1));
    }
  }
}

void poisson_gaussian(const std::vector<Photo>& photos) {
  std::printf(
      "\n| photo | σ at 128 | bins measured | median bin error | worst bin | bins beyond 15 %% | median |error| "
      "of the channel σ vs RMS truth |\n|---|---|---|---|---|---|---|\n");
  for (const Photo& photo : photos)
    for (double mid : kMidGrey) {
      const double floor = (0.3 * mid) * (0.3 * mid), gain = (mid * mid - floor) / 128.0;
      std::vector<double> errors, channel_errors;
      int measured = 0, bins = 0, beyond = 0;
      double worst = 0;
      for (int s = 0; s < kSeeds; ++s) {
        const cv::Mat noisy = add_noise(photo.rgb, gain, floor, 4052u + unsigned(mid) + 1000u * s);
        const NoiseEstimate e = estimate(noisy);
        for (size_t c = 0; c < e.channels.size(); ++c) {
          for (const edgewise::NoiseLevelBin& bin : e.channels[c].bins) {
            ++bins;
            if (!bin.valid) continue;
            ++measured;
            const double error = bin.sigma / std::sqrt(gain * bin.intensity + floor) - 1;
            errors.push_back(std::abs(error));
            beyond += std::abs(error) > 0.15;
            if (std::abs(error) > std::abs(worst)) worst = error;
          }
          // The truth for one number: the noise's RMS over the channel's pixels.
          double variance = 0;
          for (int i = 0; i < int(photo.rgb.total()); ++i)
            variance += gain * photo.rgb.data[size_t(i) * e.channels.size() + c] + floor;
          channel_errors.push_back(std::abs(e.channels[c].sigma / std::sqrt(variance / double(photo.rgb.total())) - 1));
        }
      }
      std::sort(errors.begin(), errors.end());
      std::sort(channel_errors.begin(), channel_errors.end());
      std::printf("| %s | %g | %d / %d | %.1f %% | %+.1f %% | %d | %.1f %% |\n", photo.name.c_str(), mid, measured,
                  bins, errors.empty() ? 0.0 : 100 * errors[errors.size() / 2], 100 * worst, beyond,
                  100 * channel_errors[channel_errors.size() / 2]);
    }
}

// Camera noise (camera_pipeline.h): every level, with and without JPEG;
// the estimate of each channel (R, G, B and the opponent Y, C1, C2)
// against the RMS of noisy - clean in that channel.
void camera_noise(const std::vector<Photo>& photos) {
  std::printf(
      "\n| photo | level | JPEG | true σ R / G / B | estimate | worst RGB error | true σ Y / C1 / C2 | estimate | "
      "worst opponent error |\n|---|---|---|---|---|---|---|---|---|\n");
  double worst_rgb = 0, worst_opponent = 0;
  // Over every channel: how many within 20 %, and the RMS of log(estimate / truth).
  int within[2] = {0, 0}, channels[2] = {0, 0};
  double log_squares[2] = {0, 0};
  for (size_t i = 0; i < photos.size(); ++i) {
    const Photo& photo = photos[i];
    const edgewise_quality::Photo8 clean{photo.rgb.cols, photo.rgb.rows, photo.rgb.channels(),
                                         std::vector<uint8_t>(photo.rgb.data, photo.rgb.data + photo.rgb.total() *
                                                                                           photo.rgb.elemSize())};
    for (int level = 0; level < edgewise_quality::kCameraLevels; ++level)
      for (bool jpeg : {false, true}) {
        const edgewise_quality::Development d =
            edgewise_quality::develop(clean, edgewise_quality::camera_case(level, int(i), jpeg));
        const cv::Mat noisy(clean.height, clean.width, CV_8UC(clean.channels), const_cast<uint8_t*>(d.noisy.pixels.data()));
        const NoiseEstimate e = estimate(noisy);
        std::vector<double> truth = edgewise_quality::noise_rms(d);
        // The clean photo's own noise, developed (grain, its own JPEG): the
        // noisy file holds it too. Added where EDGEWISE_NOISE_OWN is set.
        NoiseEstimate own;
        const bool with_own = std::getenv("EDGEWISE_NOISE_OWN") != nullptr;
        if (with_own) {
          const cv::Mat developed(clean.height, clean.width, CV_8UC(clean.channels),
                                  const_cast<uint8_t*>(d.clean.pixels.data()));
          own = estimate(developed);
          for (size_t c = 0; c < truth.size(); ++c)
            if (own.channels[c].valid) truth[c] = std::hypot(truth[c], own.channels[c].sigma);
        }
        // The opponent channels' truth.
        std::vector<double> opponent_truth;
        if (clean.channels == 3) {
          double sums[3] = {0, 0, 0};
          for (size_t p = 0; p < d.clean.pixels.size() / 3; ++p) {
            double n[3];
            for (int c = 0; c < 3; ++c) n[c] = double(d.noisy.pixels[3 * p + size_t(c)]) - d.clean.pixels[3 * p + size_t(c)];
            double o[3];
            edgewise::rgb_to_opponent(n[0], n[1], n[2], o[0], o[1], o[2]);
            for (int c = 0; c < 3; ++c) sums[c] += o[c] * o[c];
          }
          for (double sum : sums) opponent_truth.push_back(std::sqrt(sum / double(d.clean.pixels.size() / 3)));
          for (size_t c = 0; c < opponent_truth.size() && with_own; ++c)
            if (own.opponent[c].valid) opponent_truth[c] = std::hypot(opponent_truth[c], own.opponent[c].sigma);
        }
        auto row = [&](const std::vector<edgewise::ChannelNoise>& estimates, const std::vector<double>& truths,
                       std::string& truth_text, std::string& estimate_text) {
          const int set = &estimates == &e.channels ? 0 : 1;
          double worst = 0;
          for (size_t c = 0; c < truths.size(); ++c) {
            char value[48];
            std::snprintf(value, sizeof value, "%s%.1f", c ? " / " : "", truths[c]);
            truth_text += value;
            std::snprintf(value, sizeof value, "%s%.1f", c ? " / " : "", estimates[c].sigma);
            estimate_text += value;
            const double error = estimates[c].sigma / truths[c] - 1;
            ++channels[set];
            within[set] += std::abs(error) <= 0.2;
            const double log_error = std::log(std::max(estimates[c].sigma, 1e-3) / truths[c]);
            log_squares[set] += log_error * log_error;
            if (std::abs(error) > std::abs(worst)) worst = error;
          }
          return worst;
        };
        std::string rgb_truth, rgb_estimate, opp_truth, opp_estimate;
        const double rgb = row(e.channels, truth, rgb_truth, rgb_estimate);
        const double opp = clean.channels == 3 ? row(e.opponent, opponent_truth, opp_truth, opp_estimate) : 0;
        if (std::abs(rgb) > std::abs(worst_rgb)) worst_rgb = rgb;
        if (std::abs(opp) > std::abs(worst_opponent)) worst_opponent = opp;
        std::printf("| %s | %d | %s | %s | %s%s | %+.1f %% | %s | %s | %+.1f %% |\n", photo.name.c_str(), level,
                    jpeg ? "yes" : "no", rgb_truth.c_str(), rgb_estimate.c_str(), e.fallback ? " (fallback)" : "",
                    100 * rgb, opp_truth.c_str(), opp_estimate.c_str(), 100 * opp);
      }
  }
  std::printf("\nWorst RGB channel error %+.1f %%, worst opponent channel error %+.1f %%.\n", 100 * worst_rgb,
              100 * worst_opponent);
  for (int set = 0; set < 2; ++set)
    if (channels[set])
      std::printf("%s channels: %d of %d within 20 %%, RMS log error %.3f\n", set ? "Opponent" : "Colour (or grey)",
                  within[set], channels[set], std::sqrt(log_squares[set] / channels[set]));
}

void timing(const Photo& photo) {
  cv::Mat big;
  cv::resize(photo.rgb, big, cv::Size(6000, 4000), 0, 0, cv::INTER_CUBIC);
  if (big.channels() == 1) cv::cvtColor(big, big, cv::COLOR_GRAY2RGB);
  big = add_noise(big, 0, 100, 7);
  double best = 1e30;
  NoiseEstimate e;
  for (int run = 0; run < 7; ++run) {
    const auto start = std::chrono::steady_clock::now();
    e = estimate(big, 2);
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf("\n| image | threads | time (best of 7) | estimate |\n|---|---|---|---|\n");
  std::printf("| %s resized to 6000x4000 RGB 8-bit, white σ 10 | 2 | %.1f ms | %s |\n", photo.name.c_str(), best,
              sigmas(e).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: noise_accuracy IMAGE...\n");
    return 2;
  }
  std::vector<Photo> photos;
  for (int i = 1; i < argc; ++i) {
    cv::Mat image = cv::imread(argv[i], cv::IMREAD_UNCHANGED);
    if (image.empty() || image.depth() != CV_8U || (image.channels() != 1 && image.channels() != 3)) {
      std::fprintf(stderr, "noise_accuracy: %s is not an 8-bit grey or RGB image\n", argv[i]);
      return 1;
    }
    if (image.channels() == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
    const std::string path = argv[i];
    photos.push_back({path.substr(path.find_last_of('/') + 1), image});
  }
  // EDGEWISE_NOISE_ONLY=camera (or white, poisson, timing) runs one table.
  const char* only = std::getenv("EDGEWISE_NOISE_ONLY");
  auto wanted = [only](const char* table) { return !only || std::string(only) == table; };
  if (wanted("white")) {
    own_levels(photos);
    white_noise(photos);
  }
  if (wanted("poisson")) poisson_gaussian(photos);
  if (wanted("camera")) camera_noise(photos);
  if (wanted("timing")) timing(photos.front());
  return 0;
}
