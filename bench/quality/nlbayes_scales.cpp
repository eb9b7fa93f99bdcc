// How many scales the collaborative denoiser (--filter nlbayes, issue 27)
// should run, beside what the noise model measured: each case of white,
// correlated and camera noise (bench/quality's: the same seeds, drawn on
// the same samples) is
// estimated once (core/noise_estimate.h), then filtered blind (sigma-n at
// auto, as a user runs it) with each --scales value on the CPU; PSNR
// against the clean photo (the camera's noise-free development) and the
// wall time of the filter alone (the estimate not counted, as the plug-in
// measures it once).
//
// The model's columns, per opponent channel (Y, C1, C2; the one channel on
// grey): g_s, the variance the fitted spectrum gives 2^s x 2^s means over
// white noise's share of it (4^-s): 1 for white noise, more for noise that
// is correlated over pixels; it is what the plan's noise table holds per
// scale (nlbayes_noise_table). "all" is the channels' variance-weighted g_s
// (the coarse scale's noise variance over white noise's at the same
// variance, whole image): the auto rule's measure (nlbayes_coarse_gain,
// which nlbayes_auto_scales compares with kNlbAutoScaleGain).
// Beside them the truth from noisy - clean: each opponent channel's noise
// deviation (the model's in parentheses) and t_s, what g_s estimates; and
// raw_s, Immerkaer's reading at scale s over white noise's (the spectrum's
// input, before the fit).
//
// Usage: nlbayes_scales OUT.csv IMAGE...   (8-bit grey or RGB; prints a markdown table)
//   EDGEWISE_NLB_SCALES=1,2,3,0   the --scales values run (0: auto; the default list)
//   EDGEWISE_NLB_KINDS=white,correlated,camera   the noise kinds run
//   EDGEWISE_QUALITY_SIGMAS=5,10,...  the white noise's sigmas (default 10, 30), as quality takes them
//   EDGEWISE_CAMERA_VARIANTS=0,2  the camera variant of each photo (default: its index), as quality takes it
//   EDGEWISE_NLB_ORACLE=1         the model measured on the noise alone (noisy - clean on mid-grey) instead of
//                                 the noisy photo: what it reads where no texture misleads it
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
#include "engine.h"
#include "image_quality.h"
#include "nlbayes.h"
#include "noise_estimate.h"
#include "noise_models.h"
#include "noise_spectrum.h"
#include "opponent_color.h"

namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> words;
  for (std::string rest = list; !rest.empty();) {
    const size_t comma = rest.find(',');
    words.push_back(rest.substr(0, comma));
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return words;
}

struct NoiseCase {
  std::string label;
  cv::Mat clean, noisy;  // RGB order (or grey), 8-bit
};

// R'G'B' to B'G'R' and back (grey as it is): quality draws its noise on
// OpenCV's BGR images, and the same draws land on the same samples here.
cv::Mat as_bgr(const cv::Mat& image) {
  if (image.channels() != 3) return image.clone();
  cv::Mat swapped;
  cv::cvtColor(image, swapped, cv::COLOR_RGB2BGR);
  return swapped;
}

std::vector<NoiseCase> cases_of(const cv::Mat& clean, int variant, const std::vector<std::string>& kinds) {
  std::vector<NoiseCase> cases;
  auto wanted = [&](const char* kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
  std::vector<double> sigmas = {10.0, 30.0};
  if (const char* list = std::getenv("EDGEWISE_QUALITY_SIGMAS")) {
    sigmas.clear();
    for (const std::string& word : split(list)) sigmas.push_back(std::atof(word.c_str()));
  }
  if (wanted("white"))
    for (double sigma : sigmas) {
      cv::Mat noisy = as_bgr(clean);
      // quality's seeds (2026 + sigma).
      edgewise_noise::add_noise(noisy.data, noisy.total() * noisy.elemSize(), edgewise_noise::white_level(sigma),
                                2026u + unsigned(sigma));
      cases.push_back({"white " + std::to_string(int(sigma)), clean, as_bgr(noisy)});
    }
  if (wanted("correlated"))
    for (const edgewise_noise::CorrelatedCase& c : edgewise_noise::correlated_cases(
             clean.cols, clean.rows, clean.channels(), edgewise_noise::ChannelOrder::bgr)) {
      cv::Mat noisy = as_bgr(clean);
      edgewise_noise::add_field(noisy.data, c.field);
      char label[96];
      std::snprintf(label, sizeof label, "%s, %g", c.label.c_str(), c.sigma);
      cases.push_back({label, clean, as_bgr(noisy)});
    }
  if (wanted("camera")) {
    const edgewise_quality::Photo8 photo{
        clean.cols, clean.rows, clean.channels(),
        std::vector<uint8_t>(clean.data, clean.data + clean.total() * clean.elemSize())};
    for (int level = 0; level < edgewise_quality::kCameraLevels; ++level)
      for (bool jpeg : {false, true}) {
        const edgewise_quality::Development d =
            edgewise_quality::develop(photo, edgewise_quality::camera_case(level, variant, jpeg));
        const cv::Mat reference(clean.rows, clean.cols, clean.type(), const_cast<uint8_t*>(d.clean.pixels.data()));
        const cv::Mat noisy(clean.rows, clean.cols, clean.type(), const_cast<uint8_t*>(d.noisy.pixels.data()));
        cases.push_back({"camera " + std::to_string(level) + (jpeg ? " JPEG" : ""), reference.clone(), noisy.clone()});
      }
  }
  return cases;
}

edgewise::ImageBuffer buffer_of(cv::Mat& image) {
  return edgewise::ImageBuffer{
      image.data, {image.cols, image.rows, image.channels()}, edgewise::SampleType::u8, image.step};
}

// The fitted spectrum's variance of 2^s x 2^s means over white noise's 4^-s.
double coarse_gain(const edgewise::NoiseSpectrum& spectrum, int scale) {
  double sum = 0.0;
  for (int j = 0; j < edgewise::kSpectrumParts; ++j)
    sum += spectrum.shares[size_t(j)] * edgewise::part_covariance(j, scale, 0, 0);
  return sum * std::pow(4.0, scale);
}

// Immerkaer's reading at scale s over white noise's (noise_estimate.h: 4^-s / 2 each).
double raw_gain(const edgewise::ChannelNoise& channel, int scale) {
  for (const edgewise::NoiseScaleReading& reading : channel.scales)
    if (reading.scale == scale && reading.valid) return reading.reading_ratio * 2.0 * std::pow(4.0, scale);
  return NAN;
}

// The true noise (noisy - clean) per opponent channel (the one channel on
// grey): its deviation and t_s, the variance of its 2^s x 2^s block means
// over 4^-s of its variance (what g_s estimates).
struct TrueNoise {
  double sigma = 0, t[3] = {1, 0, 0};
};

std::vector<TrueNoise> true_noise(const cv::Mat& clean, const cv::Mat& noisy) {
  const int channels = clean.channels(), planes = channels == 3 ? 3 : 1;
  std::vector<cv::Mat> field(size_t(planes), cv::Mat(clean.rows, clean.cols, CV_64F, 0.0));
  for (cv::Mat& f : field) f = cv::Mat(clean.rows, clean.cols, CV_64F, 0.0);
  for (int y = 0; y < clean.rows; ++y)
    for (int x = 0; x < clean.cols; ++x) {
      double d[3] = {0, 0, 0};
      for (int c = 0; c < channels; ++c)
        d[c] = double(noisy.ptr<uint8_t>(y)[x * channels + c]) - double(clean.ptr<uint8_t>(y)[x * channels + c]);
      for (int k = 0; k < planes; ++k) {
        double v = 0;
        for (int c = 0; c < channels; ++c) v += (planes == 3 ? edgewise::kOpponent[k][c] : 1.0) * d[c];
        field[size_t(k)].at<double>(y, x) = v;
      }
    }
  std::vector<TrueNoise> result;
  for (const cv::Mat& f : field) {
    TrueNoise truth;
    for (int scale = 0; scale < 3; ++scale) {
      const int side = 1 << scale;
      double sum = 0, squares = 0;
      int count = 0;
      for (int y = 0; y + side <= f.rows; y += side)
        for (int x = 0; x + side <= f.cols; x += side) {
          const double mean = cv::mean(f(cv::Rect(x, y, side, side)))[0];
          sum += mean;
          squares += mean * mean;
          ++count;
        }
      const double variance = squares / count - (sum / count) * (sum / count);
      if (scale == 0) truth.sigma = std::sqrt(variance);
      truth.t[scale] = variance * std::pow(4.0, scale) / (truth.sigma * truth.sigma);
    }
    result.push_back(truth);
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: nlbayes_scales OUT.csv IMAGE...\n");
    return 2;
  }
  const char* scales_env = std::getenv("EDGEWISE_NLB_SCALES");
  std::vector<int> scale_values;
  for (const std::string& word : split(scales_env ? scales_env : "1,2,3,0"))
    scale_values.push_back(std::atoi(word.c_str()));
  const char* kinds_env = std::getenv("EDGEWISE_NLB_KINDS");
  const std::vector<std::string> kinds = split(kinds_env ? kinds_env : "white,correlated,camera");
  const bool oracle = std::getenv("EDGEWISE_NLB_ORACLE") != nullptr;
  FILE* csv = std::fopen(argv[1], "w");
  if (!csv) {
    std::fprintf(stderr, "nlbayes_scales: cannot write %s\n", argv[1]);
    return 1;
  }
  // Rows per channel (Y, C1, C2 or grey): the model's sigma, g1, g2, raw1, raw2; rows "scales N": PSNR, seconds.
  std::fprintf(csv, "image,noise,row,sigma_or_psnr,g1_or_seconds,g2,raw1,raw2\n");
  std::string header = "| image | noise | noisy | σ Y/C1/C2 true (model) |";
  for (int s : scale_values)
    header += s == 0 ? " auto | time auto |" : " scales " + std::to_string(s) + " | time " + std::to_string(s) + " |";
  header += " g1 Y/C1/C2 (all) | g2 Y/C1/C2 (all) | true t1 Y/C1/C2 | true t2 Y/C1/C2 | raw1 Y/C1/C2 | raw2 Y/C1/C2 |";
  std::printf("%s\n|", header.c_str());
  for (size_t i = 0; i < 10 + 2 * scale_values.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (int i = 2; i < argc; ++i) {
    cv::Mat file = cv::imread(argv[i], cv::IMREAD_UNCHANGED);
    if (file.empty() || file.depth() != CV_8U || (file.channels() != 1 && file.channels() != 3)) {
      std::fprintf(stderr, "nlbayes_scales: %s is not an 8-bit grey or RGB image\n", argv[i]);
      return 1;
    }
    cv::Mat clean;
    if (file.channels() == 3)
      cv::cvtColor(file, clean, cv::COLOR_BGR2RGB);
    else
      clean = file;
    const std::string name = std::string(argv[i]).substr(std::string(argv[i]).find_last_of('/') + 1);
    int variant = i - 2;
    if (const char* list = std::getenv("EDGEWISE_CAMERA_VARIANTS")) {
      const std::vector<std::string> variants = split(list);
      if (size_t(i - 2) < variants.size()) variant = std::atoi(variants[size_t(i - 2)].c_str());
    }
    for (NoiseCase& c : cases_of(clean, variant, kinds)) {
      cv::Mat measured = c.noisy;
      if (oracle) {
        cv::Mat difference, field;
        cv::subtract(c.noisy, c.clean, difference, cv::noArray(), CV_16S);
        difference.convertTo(field, CV_8U, 1.0, 128.0);
        measured = field;
      }
      const edgewise::NoiseEstimate estimate = edgewise::estimate_noise(buffer_of(measured));
      const std::vector<edgewise::ChannelNoise>& planes =
          estimate.opponent.empty() ? estimate.channels : estimate.opponent;
      std::string g[2], raw[2], sigmas;
      for (const edgewise::ChannelNoise& plane : planes) {
        char sigma_text[32];
        std::snprintf(sigma_text, sizeof sigma_text, "%s%.1f", sigmas.empty() ? "" : "/", plane.sigma);
        sigmas += sigma_text;
        for (int s = 1; s <= 2; ++s) {
          char text[32];
          std::snprintf(text, sizeof text, "%s%.2f", g[s - 1].empty() ? "" : "/", coarse_gain(plane.spectrum, s));
          g[s - 1] += text;
          std::snprintf(text, sizeof text, "%s%.2f", raw[s - 1].empty() ? "" : "/", raw_gain(plane, s));
          raw[s - 1] += text;
        }
        std::fprintf(csv, "%s,\"%s\",%s,%.3f,%.4f,%.4f,%.4f,%.4f\n", name.c_str(), c.label.c_str(), plane.name.c_str(),
                     plane.sigma, coarse_gain(plane.spectrum, 1), coarse_gain(plane.spectrum, 2), raw_gain(plane, 1),
                     raw_gain(plane, 2));
      }
      std::string truth_text[3];
      for (const TrueNoise& truth : true_noise(c.clean, c.noisy)) {
        char text[48];
        std::snprintf(text, sizeof text, "%s%.1f", truth_text[0].empty() ? "" : "/", truth.sigma);
        truth_text[0] += text;
        for (int s = 1; s <= 2; ++s) {
          std::snprintf(text, sizeof text, "%s%.2f", truth_text[s].empty() ? "" : "/", truth.t[s]);
          truth_text[s] += text;
        }
      }
      std::printf("| %s | %s | %.2f | %s (%s) |", name.c_str(), c.label.c_str(),
                  edgewise_quality::psnr(c.clean, c.noisy), truth_text[0].c_str(), sigmas.c_str());
      for (int scales : scale_values) {
        edgewise::NlBayesParameters parameters;
        parameters.sigma_n = float(edgewise::kNoiseAuto);
        parameters.scales = scales;
        cv::Mat out = c.noisy.clone();
        edgewise::RunOptions options;
        options.backend = "cpu";
        options.noise = &estimate;
        const auto start = std::chrono::steady_clock::now();
        edgewise::run_filter(edgewise::nlbayes_spec(parameters), buffer_of(c.noisy), buffer_of(out), options);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double p = edgewise_quality::psnr(c.clean, out);
        std::printf(" %.2f | %.2f |", p, seconds);
        std::fprintf(csv, "%s,\"%s\",scales %d,%.3f,%.3f,,,\n", name.c_str(), c.label.c_str(), scales, p, seconds);
      }
      const int channels = clean.channels() == 3 ? 3 : 1;
      std::printf(" %s (%.2f) | %s (%.2f) | %s | %s | %s | %s |\n", g[0].c_str(),
                  edgewise::nlbayes_coarse_gain(estimate, channels, 1), g[1].c_str(),
                  edgewise::nlbayes_coarse_gain(estimate, channels, 2), truth_text[1].c_str(), truth_text[2].c_str(),
                  raw[0].c_str(), raw[1].c_str());
      std::fflush(stdout);
      std::fflush(csv);
    }
  }
  std::fclose(csv);
  return 0;
}
