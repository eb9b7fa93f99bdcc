// Every filter at `auto` against the best of a grid search (issue 16,
// item 4b): clean photos plus white or signal-dependent noise, each filter
// run as a user who gives no option runs it (its defaults, its noise
// parameters at auto, estimated from the noisy image) and at every point of
// a grid. A tool, not a test: it prints markdown tables for docs/quality.md
// and writes every run to a CSV (the data the auto rules are fitted on).
//
//   noise: white sigma in {10, 20, 30}; Poisson-Gaussian (variance
//     gain * I + floor, floor = (0.3 s)^2, sigma s at I = 128) with s in
//     {10, 20, 30}: the camera's noise, growing with brightness.
//   camera (EDGEWISE_QUALITY_NOISE=camera): the camera pipeline of
//     camera_pipeline.h at its four sensor-noise levels, each without and
//     with JPEG; the clean reference is the noise-free development and the
//     noise sigma the median over channels of the RMS of noisy - clean.
//   grid: the auto parameters as multiples m of the true noise sigma (the
//     form of every rule), m in six steps around the rule, times the
//     spatial scale (sigma-s; nlm's search and patch radii; the pyramid's
//     sigma-s and coarse strength) in four
//     steps (nlbayes: sigma-n as white noise of m x sigma, at its defaults
//     and with two scales; learned: sigma-n likewise, one step); "grid-best" is
//     the best of all points, "best at defaults"
//     the best m at the filter's default spatial scale.
//
// Usage: auto_quality OUT.csv IMAGE...   (8-bit grey or RGB)
// EDGEWISE_QUALITY_ONLY=WORD keeps the filters whose label contains WORD.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

namespace {

using edgewise::FilterSpec;

struct Photo {
  std::string name;
  cv::Mat clean;  // 8-bit, RGB order (lab mode reads the channels as R, G, B)
};

// White or Poisson-Gaussian noise (bench/quality/noise_models.h), sigma at I = 128.
cv::Mat add_noise(const cv::Mat& clean, double sigma, bool signal_dependent, unsigned seed) {
  cv::Mat noisy = clean.clone();
  edgewise_noise::add_noise(
      noisy.data, noisy.total() * noisy.elemSize(),
      signal_dependent ? edgewise_noise::poisson_gaussian_level(sigma) : edgewise_noise::white_level(sigma), seed);
  return noisy;
}

// One noisy version of a photo and what it is measured against.
struct NoiseCase {
  std::string label;  // "white", "Poisson-Gaussian", "camera 2 JPEG"
  double sigma = 0;   // the true noise sigma, code values: the grid's unit
  cv::Mat clean, noisy;
};

std::vector<NoiseCase> noise_cases(const cv::Mat& clean, int variant) {
  std::vector<NoiseCase> cases;
  const char* kind = std::getenv("EDGEWISE_QUALITY_NOISE");
  if (kind && std::string(kind) == "camera") {
    const edgewise_quality::Photo8 photo{clean.cols, clean.rows, clean.channels(),
                                         std::vector<uint8_t>(clean.data, clean.data + clean.total() * clean.elemSize())};
    for (int level = 0; level < edgewise_quality::kCameraLevels; ++level)
      for (bool jpeg : {false, true}) {
        const edgewise_quality::Development d =
            edgewise_quality::develop(photo, edgewise_quality::camera_case(level, variant, jpeg));
        std::vector<double> rms = edgewise_quality::noise_rms(d);
        std::sort(rms.begin(), rms.end());
        const cv::Mat reference(clean.rows, clean.cols, clean.type(), const_cast<uint8_t*>(d.clean.pixels.data()));
        const cv::Mat noisy(clean.rows, clean.cols, clean.type(), const_cast<uint8_t*>(d.noisy.pixels.data()));
        cases.push_back({"camera " + std::to_string(level) + (jpeg ? " JPEG" : ""), rms[rms.size() / 2],
                         reference.clone(), noisy.clone()});
      }
    return cases;
  }
  for (const bool signal_dependent : {false, true})
    for (const double sigma : {10.0, 20.0, 30.0})
      cases.push_back({signal_dependent ? "Poisson-Gaussian" : "white", sigma, clean,
                       add_noise(clean, sigma, signal_dependent, unsigned(sigma) + signal_dependent)});
  return cases;
}

cv::Mat run(const FilterSpec& spec, const cv::Mat& noisy, edgewise::RunReport* report = nullptr) {
  cv::Mat out(noisy.size(), noisy.type());
  const edgewise::ImageShape shape{noisy.cols, noisy.rows, noisy.channels()};
  edgewise::RunOptions options;
  options.backend = "cpu";
  const edgewise::RunReport done = edgewise::run_filter(spec, {noisy.data, shape, edgewise::SampleType::u8, 0},
                                                        {out.data, shape, edgewise::SampleType::u8, 0}, options);
  if (report) *report = done;
  return out;
}

void set(FilterSpec& spec, const char* flag, double value) { edgewise::throw_if_error(edgewise::set_param(spec, flag, value)); }

// A filter as the evaluation runs it: its default spec (auto included),
// the spatial steps of its grid (the first is its default) and how a grid
// point sets the auto parameters from m x the estimated sigma.
struct Subject {
  std::string label;
  FilterSpec defaults;
  std::vector<double> multipliers;
  std::vector<std::function<void(FilterSpec&)>> spatial;  // [0]: the defaults
  std::function<void(FilterSpec&, double m, double sigma)> at;
};

FilterSpec with_mode(const char* filter, const char* mode) {
  FilterSpec spec(*edgewise::builtin_registry().find(filter));
  if (mode) edgewise::throw_if_error(edgewise::set_param(spec, "mode", std::string(mode)));
  return spec;
}

std::vector<std::function<void(FilterSpec&)>> sigma_s_steps(double default_sigma_s, std::vector<double> others) {
  std::vector<std::function<void(FilterSpec&)>> steps = {[](FilterSpec&) {}};
  for (double s : others)
    if (s != default_sigma_s) steps.push_back([s](FilterSpec& spec) { set(spec, "sigma-s", s); });
  return steps;
}

std::vector<Subject> subjects() {
  const std::vector<double> sigma_s = {1, 1.5, 2, 3, 4};
  std::vector<Subject> list;
  for (const char* mode : {"rgb", "per-channel", "lab"}) {
    Subject s{std::string("bilateral ") + mode, with_mode("bilateral", mode), {}, {}, {}};
    // In lab mode m multiplies the noise as a Delta E (kLabPerCode per
    // code value), so the same m is best when that conversion is right.
    s.multipliers = {1, 1.5, 2, 2.5, 3, 4};
    s.spatial = sigma_s_steps(3, sigma_s);
    s.spatial.resize(4);
    s.at = [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-r", m * sigma); };
    list.push_back(s);
  }
  {
    Subject s{"adaptive rgb", with_mode("adaptive", nullptr), {0.5, 1, 1.5, 2, 3, 4}, {}, {}};
    s.spatial = sigma_s_steps(3, sigma_s);
    s.spatial.resize(4);
    // m scales the floor and the minimum together, in the rule's ratio;
    // sigma-r (the first walk's) stays at its own auto.
    s.at = [](FilterSpec& spec, double m, double sigma) {
      set(spec, "adapt-eps", std::min(1.0, 0.5 * m * sigma / 255));
      set(spec, "adapt-min", m * sigma / 255);
    };
    list.push_back(s);
  }
  {
    Subject s{"nlm rgb", with_mode("nlm", nullptr), {0.45, 0.6, 0.75, 0.9, 1.05, 1.25}, {}, {}};
    s.spatial = {[](FilterSpec&) {},
                 [](FilterSpec& spec) { set(spec, "patch-radius", 2); },
                 [](FilterSpec& spec) { set(spec, "search-radius", 10); },
                 [](FilterSpec& spec) {
                   set(spec, "search-radius", 10);
                   set(spec, "patch-radius", 2);
                 }};
    s.at = [](FilterSpec& spec, double m, double sigma) {
      set(spec, "h", m * sigma);
      set(spec, "sigma-n", sigma);
    };
    list.push_back(s);
  }
  if (edgewise::builtin_registry().find("pyramid"))
    for (const char* mode : {"rgb", "lab"}) {
      Subject s{std::string("pyramid ") + mode, with_mode("pyramid", mode), {1, 1.5, 2, 2.5, 3, 4}, {}, {}};
      s.spatial = sigma_s_steps(1.5, {1, 2});
      s.spatial.push_back([](FilterSpec& spec) { set(spec, "coarse-strength", 2); });
      s.at = [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-r", m * sigma); };
      list.push_back(s);
    }
  if (edgewise::builtin_registry().find("nlbayes")) {
    // The grid gives the noise as white noise of m x the true sigma (a
    // number for sigma-n); auto gives the noise model (per channel,
    // intensity and scale). Spatial steps: the defaults, two scales.
    Subject s{"nlbayes", with_mode("nlbayes", nullptr), {0.6, 0.8, 1, 1.25, 1.5, 2}, {}, {}};
    s.spatial = {[](FilterSpec&) {}, [](FilterSpec& spec) { set(spec, "scales", 2); }};
    s.at = [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-n", m * sigma); };
    list.push_back(s);
  }
  if (edgewise::builtin_registry().find("learned")) {
    // As nlbayes's: the grid tells the network white noise of m x the true
    // sigma (a number for sigma-n); auto gives it the noise network's map.
    Subject s{"learned", with_mode("learned", nullptr), {0.6, 0.8, 1, 1.25, 1.5, 2}, {}, {}};
    s.spatial = {[](FilterSpec&) {}};
    s.at = [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-n", m * sigma); };
    list.push_back(s);
  }
  {
    Subject s{"fourier per-channel", with_mode("fourier", nullptr), {1, 1.5, 2, 2.5, 3, 4}, {}, {}};
    s.spatial = sigma_s_steps(10, {1.5, 3, 6});
    s.at = [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-r", m * sigma); };
    list.push_back(s);
  }
  // A registered filter none of the above runs (a new one), by its name:
  // its grid is its own rules (resolve_noise) for white noise of m x the
  // true sigma, at its default scale, until it has a subject above.
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    bool listed = false;
    for (const Subject& subject : list) listed = listed || &subject.defaults.filter() == filter;
    if (listed) continue;
    Subject s{filter->name, FilterSpec(*filter), {0.5, 0.75, 1, 1.25, 1.5, 2}, {[](FilterSpec&) {}}, {}};
    s.at = [](FilterSpec& spec, double m, double sigma) {
      // sigma is the rule's own (lab: a Delta E); the estimate takes code values.
      const double per_code = edgewise::auto_noise_sigma(spec, edgewise::white_noise_estimate(1, 1));
      spec = edgewise::resolve_noise(spec, edgewise::white_noise_estimate(m * sigma / per_code, 1));
    };
    list.push_back(s);
  }
  return list;
}

struct Point {
  double psnr = -1, ssim = 0, m = 0;
  int spatial = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: auto_quality OUT.csv IMAGE...\n");
    return 2;
  }
  std::vector<Photo> photos;
  for (int i = 2; i < argc; ++i) {
    cv::Mat image = cv::imread(argv[i], cv::IMREAD_UNCHANGED);
    if (image.empty() || image.depth() != CV_8U) {
      std::fprintf(stderr, "auto_quality: cannot read %s as an 8-bit image\n", argv[i]);
      return 1;
    }
    if (image.channels() == 4) cv::cvtColor(image, image, cv::COLOR_BGRA2BGR);
    if (image.channels() == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
    std::string name = argv[i];
    photos.push_back({name.substr(name.find_last_of('/') + 1), image});
  }
  std::FILE* csv = std::fopen(argv[1], "w");
  if (!csv) {
    std::fprintf(stderr, "auto_quality: cannot write %s\n", argv[1]);
    return 1;
  }
  std::fprintf(csv, "image,noise,sigma,filter,estimate,kind,m,spatial,psnr,ssim\n");
  const char* only = std::getenv("EDGEWISE_QUALITY_ONLY");

  std::printf("| filter | image | noise | σ | estimate | noisy PSNR | auto: PSNR / SSIM | best at defaults (m) | "
              "grid-best (m, step) | auto − grid-best |\n|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::pair<std::string, double>> worst;  // per filter: the largest shortfall
  for (const Subject& subject : subjects()) {
    if (only && subject.label.find(only) == std::string::npos) continue;
    double shortfall = 0;
    for (size_t p = 0; p < photos.size(); ++p) {
      const Photo& photo = photos[p];
      // Grey photos have one channel: the colour modes are all alike there.
      if (photo.clean.channels() == 1 && subject.label.find("rgb") == std::string::npos) continue;
      for (const NoiseCase& noise_case : noise_cases(photo.clean, int(p))) {
        const cv::Mat& clean = noise_case.clean;
        const cv::Mat& noisy = noise_case.noisy;
        const double sigma = noise_case.sigma;
        const char* noise = noise_case.label.c_str();
        edgewise::RunReport report;
        const cv::Mat automatic = run(subject.defaults, noisy, &report);
        const double estimate = report.noise_sigma;
        const Point at_auto{edgewise_quality::psnr(clean, automatic), edgewise_quality::ssim(clean, automatic), 0, 0};
        const double noisy_psnr = edgewise_quality::psnr(clean, noisy);
        std::fprintf(csv, "%s,%s,%g,%s,%.3f,auto,,0,%.3f,%.4f\n", photo.name.c_str(), noise, sigma,
                     subject.label.c_str(), estimate, at_auto.psnr, at_auto.ssim);
        Point at_defaults, best;
        // Camera noise's best multiples reach the top of the white-noise
        // grid: it goes on.
        std::vector<double> multipliers = subject.multipliers;
        if (noise_case.label.rfind("camera", 0) == 0 && multipliers.back() == 4)
          multipliers.insert(multipliers.end(), {5, 6});
        for (size_t step = 0; step < subject.spatial.size(); ++step)
          for (const double m : multipliers) {
            FilterSpec spec = subject.defaults;
            subject.spatial[step](spec);
            // The rule's own noise sigma (lab: as a Delta E) for the true
            // sigma, so that m is directly the rule's factor.
            subject.at(spec, m, edgewise::auto_noise_sigma(spec, edgewise::white_noise_estimate(sigma, 1)));
            const cv::Mat out = run(spec, noisy);
            const double psnr = edgewise_quality::psnr(clean, out);
            std::fprintf(csv, "%s,%s,%g,%s,%.3f,grid,%g,%zu,%.3f,\n", photo.name.c_str(), noise, sigma,
                         subject.label.c_str(), estimate, m, step, psnr);
            if (step == 0 && psnr > at_defaults.psnr) at_defaults = {psnr, 0, m, 0};
            if (psnr > best.psnr) best = {psnr, 0, m, int(step)};
          }
        shortfall = std::max(shortfall, best.psnr - at_auto.psnr);
        std::printf("| %s | %s | %s | %.1f | %.2f | %.2f | %.2f / %.3f | %.2f (%g) | %.2f (%g, %d) | %+.2f |\n",
                    subject.label.c_str(), photo.name.c_str(), noise, sigma, estimate, noisy_psnr, at_auto.psnr,
                    at_auto.ssim, at_defaults.psnr, at_defaults.m, best.psnr, best.m, best.spatial,
                    at_auto.psnr - best.psnr);
        std::fflush(stdout);
      }
    }
    worst.emplace_back(subject.label, shortfall);
  }
  std::printf("\n| filter | largest shortfall of auto against grid-best (dB) |\n|---|---|\n");
  for (const auto& [label, dB] : worst) std::printf("| %s | %.2f |\n", label.c_str(), dB);
  std::fclose(csv);
  return 0;
}
