// Denoising quality in ctest (label quality): what docs/quality.md and the
// README claim about how well the filters denoise, each claim a test that a
// change to a default, an automatic rule or a filter's math can fail.
//
// The noisy images are bench/quality's (noise_models.h, the same seeds:
// auto_quality's for white and Poisson-Gaussian noise, quality's correlated
// cases), on the whole 256 x 256 photos of tests/data, so each threshold is
// the documented figure for these very images less a margin stated beside
// it. The margins leave room to retune a rule (issue 26 changes them) while
// still failing a default that denoises clearly worse. Filters run on the
// CPU backend, 8-bit in and out, as the CLI runs them.
//
// Adding a noise kind is one row of kNoiseKinds (with its floors). A new
// filter of the registry is a subject by itself, held to each kind's
// default floor; its own floors and grid are one row of subjects().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine.h"
#include "filter_registry.h"
#include "image_file.h"
#include "camera_pipeline.h"
#include "noise_models.h"

namespace {

using edgewise::FilterSpec;

struct Photo {
  std::string name;
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> clean;  // R'G'B' or grey, 8-bit
  bool colour() const { return channels == 3; }
};

const Photo& photo(const std::string& name) {
  static std::map<std::string, Photo> loaded;
  auto found = loaded.find(name);
  if (found != loaded.end()) return found->second;
  const edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/") + name);
  if (file.bits != 8 || (file.channels != 1 && file.channels != 3))
    throw std::runtime_error(name + ": expected an 8-bit grey or RGB photo");
  Photo p{name, file.width, file.height, file.channels, std::vector<uint8_t>(file.bytes.begin(), file.bytes.end())};
  return loaded.emplace(name, std::move(p)).first->second;
}

const char* const kPhotos[] = {"astronaut.png", "camera.png"};

double psnr(const std::vector<uint8_t>& clean, const std::vector<uint8_t>& test) {
  double squares = 0;
  for (size_t i = 0; i < clean.size(); ++i) {
    const double d = double(clean[i]) - double(test[i]);
    squares += d * d;
  }
  return 10.0 * std::log10(255.0 * 255.0 * double(clean.size()) / squares);
}

// ---- the noise kinds ----

// A kind of noise the filters are held to. `sigma` is its deviation per
// sample in code values (at I = 128 for signal-dependent noise), the unit of
// the fixed settings and of the claims' grids. `floors`: the least gain over
// the noisy input, dB, of each filter (by subject label) at its defaults and
// at its fixed setting; a filter not listed is held to `default_floor`.
struct NoiseKind {
  std::string name;
  double sigma = 0;
  bool colour_only = false;
  std::string seed;  // printed with every result
  std::function<void(std::vector<uint8_t>&, const Photo&)> add;
  double default_floor = 1.0;
  std::map<std::string, double> floors;
  double floor(const std::string& subject, bool at_defaults = true) const {
    if (at_defaults) {
      const auto found = defaults_floors.find(subject);
      if (found != defaults_floors.end()) return found->second;
    }
    const auto found = floors.find(subject);
    return found == floors.end() ? default_floor : found->second;
  }
  // The camera pipeline's kinds: the photo developed without noise (the
  // reference: the demosaicer's own artefacts are not noise) and with it.
  // Empty for the other kinds, whose reference is the photo itself.
  std::function<edgewise_quality::Development(const Photo&)> develop;
  // The floor at the defaults where it is higher than the fixed setting's
  // (the recommended methods': their documented gains at auto and at the
  // fixed setting differ by up to 1.5 dB, and each is held to its own).
  std::map<std::string, double> defaults_floors = {};
};

// The camera pipeline (bench/quality/camera_pipeline.h) at a sensor-noise
// level, with or without JPEG, the variant of bench/quality's first photo.
std::function<edgewise_quality::Development(const Photo&)> camera(int level, bool jpeg) {
  return [=](const Photo& p) {
    return edgewise_quality::develop({p.width, p.height, p.channels, p.clean},
                                     edgewise_quality::camera_case(level, 0, jpeg));
  };
}

std::function<void(std::vector<uint8_t>&, const Photo&)> white(double sigma, unsigned seed) {
  return [=](std::vector<uint8_t>& samples, const Photo&) {
    edgewise_noise::add_noise(samples.data(), samples.size(), edgewise_noise::white_level(sigma), seed);
  };
}

std::function<void(std::vector<uint8_t>&, const Photo&)> poisson_gaussian(double sigma, unsigned seed) {
  return [=](std::vector<uint8_t>& samples, const Photo&) {
    edgewise_noise::add_noise(samples.data(), samples.size(), edgewise_noise::poisson_gaussian_level(sigma), seed);
  };
}

std::function<void(std::vector<uint8_t>&, const Photo&)> correlated(const std::string& label) {
  return [=](std::vector<uint8_t>& samples, const Photo& p) {
    for (const edgewise_noise::CorrelatedCase& c :
         edgewise_noise::correlated_cases(p.width, p.height, p.channels, edgewise_noise::ChannelOrder::rgb))
      if (c.label == label) return edgewise_noise::add_field(samples.data(), c.field);
    throw std::runtime_error("no correlated case " + label);
  };
}

// The floors: the gain of each filter at its defaults in docs/quality.md's
// "Automatic parameters" run (docs/auto_quality.csv, the same photos and
// seeds, less the noisy PSNR of that noise, printed below), the smaller of
// the two photos' (the astronaut's alone where the run left the grey photo
// out), less a margin of 1 dB, rounded down to 0.5 dB. The margin lets a
// retuned rule lose up to about a decibel here; WithinHalfADecibelOfTheGridBest
// is the closer bound. Colour blotches have no documented figure at the
// defaults: there a filter is only held to make the image no worse (0 dB).
//
// The README's two recommendations, nlbayes (its defaults: sigma-n and
// scales auto) and the pyramid in lab mode (issue 38), on the astronaut
// only (auto_quality ran neither on the grey photo; lab mode is colour's):
// the same rule, the figure less 1 dB rounded down to 0.5 dB, from
// docs/auto_quality.csv (white, Poisson-Gaussian) and
// docs/auto_quality_camera.csv (camera 3, variant 0), rows "kind auto" for
// the defaults and "grid" at m = the fixed multiple, spatial 0, for the
// fixed setting. Where the two figures give different floors the fixed
// one is in `floors` and the defaults' in `defaults_floors`. Gains, auto /
// fixed (dB; the noisy PSNR this test prints: 28.57, 22.70, 19.32, 22.87,
// 18.66, 20.14):
//   nlbayes      white 10 7.23 / 7.31, 20 8.54 / 8.63, 30 9.14 / 9.21,
//                Poisson-Gaussian 20 9.23 / 8.28, camera 3 4.82 / 4.64,
//                camera 3 JPEG 3.59 / 3.33
//   pyramid lab  white 10 4.06 / 2.53, 20 4.64 / 3.61, 30 5.02 / 4.24,
//                Poisson-Gaussian 20 5.07 / 3.95, camera 3 3.99 / 3.91,
//                camera 3 JPEG 2.77 / 2.84
// These runs predate the learned noise reading (docs/quality.md says which
// figures were not measured again); the test's own print shows today's.
// The learned filter (issue 35), the same rule from its own runs with the
// learned reading and its stage-4 weights (2026-12-07:
// docs/learned_auto_quality.csv, white and Poisson-Gaussian;
// docs/learned_camera.csv, camera), auto / fixed (m = 1):
//   learned      white 10 6.24 / 6.27, 20 8.43 / 8.49, 30 9.67 / 9.73,
//                Poisson-Gaussian 20 8.78 / 8.78, camera 3 7.86 / 5.63,
//                camera 3 JPEG 6.25 / 3.84
// (stage 3: 6.21 / 6.25, 8.41 / 8.47, 9.67 / 9.71, 8.73 / 8.70, 7.84 / 5.48,
// 6.23 / 3.81; stage 2: 6.09 / 6.19, 8.30 / 8.38, 9.55 / 9.60, 8.55 / 8.57, 7.74 / 5.21,
// 6.04 / 3.58; stage 1, 2026-12-06: 6.00 / 6.12, 8.19 / 8.28, 9.41 / 9.49,
// 8.45 / 8.50, 7.69 / 5.23, 5.92 / 3.63; three floors rose by 0.5 with
// stage 2, none with stage 3, camera 3's fixed one with stage 4)
const std::vector<NoiseKind>& noise_kinds() {
  static const std::vector<NoiseKind> kinds = {
      // documented gains (astronaut / camera): rgb and adaptive 4.86 / 4.41, per-channel 3.25,
      // lab 3.20, nlm 4.85 / 5.45, pyramid 5.05 / 4.58, fourier 1.71
      {"white 10",
       10,
       false,
       "10",
       white(10, 10),
       3.0,
       {{"bilateral per-channel", 2.0},
        {"bilateral lab", 2.0},
        {"nlm rgb", 3.5},
        {"pyramid rgb", 3.5},
        {"fourier per-channel", 0.5},
        {"pyramid lab", 1.5},
        {"nlbayes", 6.0},
        {"learned", 5.0}},
       {},
       {{"pyramid lab", 3.0}}},
      // rgb and adaptive 6.12 / 6.43, per-channel 4.88, lab 4.18, nlm 6.70 / 7.88, pyramid 6.36 / 6.74,
      // fourier 2.46
      {"white 20",
       20,
       false,
       "20",
       white(20, 20),
       5.0,
       {{"bilateral per-channel", 3.5},
        {"bilateral lab", 3.0},
        {"nlm rgb", 5.5},
        {"fourier per-channel", 1.0},
        {"pyramid lab", 2.5},
        {"nlbayes", 7.5},
        {"learned", 7.0}},
       {},
       {{"pyramid lab", 3.5}}},
      // rgb and adaptive 6.82 / 7.43, per-channel 5.86, lab 4.80, nlm 7.48 / 9.09, pyramid 7.06 / 7.84,
      // fourier 2.92
      {"white 30",
       30,
       false,
       "30",
       white(30, 30),
       5.5,
       {{"bilateral per-channel", 4.5},
        {"bilateral lab", 3.5},
        {"nlm rgb", 6.0},
        {"pyramid rgb", 6.0},
        {"fourier per-channel", 1.5},
        {"pyramid lab", 3.0},
        {"nlbayes", 8.0},
        {"learned", 8.5}},
       {},
       {{"pyramid lab", 4.0}}},
      // rgb and adaptive 6.29 / 6.55, per-channel 4.92, lab 4.41, nlm 7.18 / 8.26, pyramid 6.49 / 6.80,
      // fourier 2.38 (noisy: 22.87 dB astronaut, 22.26 camera)
      {"Poisson-Gaussian 20",
       20,
       false,
       "21",
       poisson_gaussian(20, 21),
       5.0,
       {{"bilateral per-channel", 3.5},
        {"bilateral lab", 3.0},
        {"nlm rgb", 6.0},
        {"fourier per-channel", 1.0},
        {"pyramid lab", 2.5},
        {"nlbayes", 7.0},
        {"learned", 7.5}},
       {},
       {{"pyramid lab", 4.0}, {"nlbayes", 8.0}}},
      {"YCbCr blotches sigma_Y 10",
       29.4,
       true,
       "2026 (bench/quality's correlated cases)",
       correlated("YCbCr blotches sigma_Y 10"),
       0.0,
       {},
       {}},
      // The camera pipeline's two strongest levels (issue 26; docs/quality.md,
      // "Camera noise": auto_quality's camera run, the astronaut, variant 0).
      // Gains at the defaults: rgb and adaptive 3.83, per-channel 3.44, lab
      // 3.18, nlm 4.43, pyramid 4.24, fourier 2.21; at the fixed settings
      // rgb 3.68, per-channel 3.36, lab 3.58, adaptive 3.70, nlm 4.35, pyramid 4.06, fourier 2.24
      // (noisy 18.66 dB; sigma: the median over channels of the true noise RMS).
      {"camera 3",
       29.1972,
       true,
       "bench/quality's camera case 3, variant 0",
       {},
       2.5,
       {{"bilateral per-channel", 2.0},
        {"bilateral lab", 2.0},
        {"nlm rgb", 3.0},
        {"pyramid rgb", 3.0},
        {"fourier per-channel", 1.0},
        {"pyramid lab", 2.5},
        {"nlbayes", 3.5},
        {"learned", 4.5}},
       camera(3, false),
       {{"learned", 6.5}}},
      // rgb and adaptive 2.83, per-channel 2.56, lab 2.33, nlm 3.58, pyramid 3.21, fourier 1.71; fixed: rgb 2.74,
      // per-channel 2.63, lab 2.59, adaptive 2.76, nlm 3.61, pyramid 3.04, fourier 1.80 (noisy 20.14 dB).
      {"camera 3 JPEG",
       24.0664,
       true,
       "bench/quality's camera case 3 with JPEG, variant 0",
       {},
       1.5,
       {{"bilateral per-channel", 1.5},
        {"bilateral lab", 1.0},
        {"nlm rgb", 2.5},
        {"pyramid rgb", 2.0},
        {"fourier per-channel", 0.5},
        {"pyramid lab", 1.5},
        {"nlbayes", 2.0},
        {"learned", 2.5}},
       camera(3, true),
       {{"nlbayes", 2.5}, {"learned", 5.0}}},
  };
  return kinds;
}

const NoiseKind& kind(const std::string& name) {
  for (const NoiseKind& k : noise_kinds())
    if (k.name == name) return k;
  throw std::runtime_error("no noise kind " + name);
}

std::vector<uint8_t> noisy_image(const Photo& p, const NoiseKind& k) {
  std::vector<uint8_t> samples = p.clean;
  k.add(samples, p);
  return samples;
}

// ---- the filters ----

void set(FilterSpec& spec, const char* flag, double value) {
  edgewise::throw_if_error(edgewise::set_param(spec, flag, value));
}

FilterSpec with_mode(const char* filter, const char* mode) {
  FilterSpec spec(*edgewise::builtin_registry().find(filter));
  if (mode) edgewise::throw_if_error(edgewise::set_param(spec, "mode", std::string(mode)));
  return spec;
}

// A filter as a user who gives no option runs it (`defaults`: its auto
// values included), how a point of a grid sets its noise parameters from
// m x a noise sigma (auto_quality's form), its grid's multiples and
// spatial steps (the first: its default scale), and `fixed`: the m of its
// fixed setting, applied to the true noise sigma.
struct Subject {
  std::string label;
  FilterSpec defaults;
  std::vector<double> multiples;
  std::vector<std::function<void(FilterSpec&)>> spatial;
  std::function<void(FilterSpec&, double m, double sigma)> at;
  double fixed = 1;
  bool grey_too = true;  // false: on grey the same filter as another subject
  // Whether WithinHalfADecibelOfTheGridBest holds it to the claim (what
  // docs/quality.md's table of shortfalls says it meets).
  bool grid_claim = true;
};

std::vector<std::function<void(FilterSpec&)>> sigma_s_steps(std::vector<double> steps) {
  std::vector<std::function<void(FilterSpec&)>> out = {[](FilterSpec&) {}};
  for (double s : steps) out.push_back([s](FilterSpec& spec) { set(spec, "sigma-s", s); });
  return out;
}

// A noise sigma as the rule of `spec`'s filter takes it (Delta E in lab
// mode), so that a multiple m means the rule's factor.
double rule_sigma(const FilterSpec& spec, double code_values) {
  return edgewise::auto_noise_sigma(spec, edgewise::white_noise_estimate(code_values, 1));
}

// The filter's own rules (resolve_noise) for white noise of m x `sigma`,
// a noise sigma as rule_sigma gives it.
void at_rule(FilterSpec& spec, double m, double sigma) {
  spec = edgewise::resolve_noise(spec, edgewise::white_noise_estimate(m * sigma / rule_sigma(spec, 1), 1));
}

// auto_quality's subjects (docs/quality.md, "Automatic parameters").
const std::vector<Subject>& subjects() {
  static const std::vector<Subject> list = [] {
    std::vector<Subject> s;
    auto sigma_r = [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-r", m * sigma); };
    for (const char* mode : {"rgb", "per-channel", "lab"})
      s.push_back({std::string("bilateral ") + mode,
                   with_mode("bilateral", mode),
                   {1, 1.5, 2, 2.5, 3, 4},
                   sigma_s_steps({1, 2, 3}),
                   sigma_r,
                   std::string(mode) == "rgb" ? 3.0 : 2.5,
                   std::string(mode) == "rgb"});
    s.push_back({"adaptive rgb",
                 with_mode("adaptive", nullptr),
                 {0.5, 1, 1.5, 2, 3, 4},
                 sigma_s_steps({1, 2, 3}),
                 [](FilterSpec& spec, double m, double sigma) {
                   set(spec, "adapt-eps", std::min(1.0, 0.5 * m * sigma / 255));
                   set(spec, "adapt-min", m * sigma / 255);
                 },
                 3.0});
    s.push_back({"nlm rgb",
                 with_mode("nlm", nullptr),
                 {0.45, 0.6, 0.75, 0.9, 1.05, 1.25},
                 {[](FilterSpec&) {}, [](FilterSpec& spec) { set(spec, "patch-radius", 2); },
                  [](FilterSpec& spec) { set(spec, "search-radius", 10); },
                  [](FilterSpec& spec) {
                    set(spec, "search-radius", 10);
                    set(spec, "patch-radius", 2);
                  }},
                 [](FilterSpec& spec, double m, double sigma) {
                   set(spec, "h", m * sigma);
                   set(spec, "sigma-n", sigma);
                 },
                 0.75});
    std::vector<std::function<void(FilterSpec&)>> pyramid_steps = sigma_s_steps({1, 2});
    pyramid_steps.push_back([](FilterSpec& spec) { set(spec, "coarse-strength", 2); });
    s.push_back({"pyramid rgb", with_mode("pyramid", nullptr), {1, 1.5, 2, 2.5, 3, 4}, pyramid_steps, sigma_r, 2.5});
    // The README's recommendation for colour photos. Out of the grid claim:
    // docs/quality.md's shortfall table gives it 0.78 dB (coffee; its auto
    // is above its one-sigma-r grid in 8 of 12 cases).
    s.push_back({"pyramid lab",
                 with_mode("pyramid", "lab"),
                 {1, 1.5, 2, 2.5, 3, 4},
                 pyramid_steps,
                 sigma_r,
                 2.5,
                 false,
                 false});
    // auto_quality's nlbayes: its grid is white noise of m x the true sigma
    // (sigma-n a number), at one and two scales. Out of the grid claim for
    // time only (documented shortfall 0.20 dB, within it): 24 runs of
    // nlbayes per case; its floors and NlBayesAutoScalesFollowTheNoise
    // hold its defaults.
    s.push_back({"nlbayes",
                 with_mode("nlbayes", nullptr),
                 {0.6, 0.8, 1, 1.25, 1.5, 2},
                 {[](FilterSpec&) {}, [](FilterSpec& spec) { set(spec, "scales", 2); }},
                 [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-n", m * sigma); },
                 1.0,
                 false,
                 false});
    // The learned filter: its grid is white noise of m x the true sigma
    // (sigma-n a number), as nlbayes's; its auto is the noise network's
    // map. Out of the grid claim: on camera noise its auto is above the
    // white-noise grid by up to 2.8 dB, and below it by up to 0.76 dB on
    // coffee's light camera noise (docs/learned_camera.csv).
    s.push_back({"learned",
                 with_mode("learned", nullptr),
                 {0.6, 0.8, 1, 1.25, 1.5, 2},
                 {[](FilterSpec&) {}},
                 [](FilterSpec& spec, double m, double sigma) { set(spec, "sigma-n", m * sigma); },
                 1.0,
                 false,
                 false});
    s.push_back({"fourier per-channel",
                 with_mode("fourier", nullptr),
                 {1, 1.5, 2, 2.5, 3, 4},
                 sigma_s_steps({1.5, 3, 6}),
                 sigma_r,
                 1.5});
    // A registered filter none of the above runs (a new one) is a subject
    // by its name: its defaults, and its own rule given the true noise as
    // its fixed setting, held to each kind's default_floor, out of the grid
    // claim. Its own floors or grid are a row above, once measured.
    for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
      bool listed = false;
      for (const Subject& subject : s) listed = listed || &subject.defaults.filter() == filter;
      if (!listed) s.push_back({filter->name, FilterSpec(*filter), {1}, {[](FilterSpec&) {}}, at_rule, 1, true, false});
    }
    return s;
  }();
  return list;
}

const Subject& subject(const std::string& label) {
  for (const Subject& s : subjects())
    if (s.label == label) return s;
  throw std::runtime_error("no subject " + label);
}

struct Result {
  std::vector<uint8_t> image;
  double noise_sigma = -1;  // the estimate auto started from (RunReport)
};

Result run(const FilterSpec& spec, const Photo& p, const std::vector<uint8_t>& noisy) {
  Result result{std::vector<uint8_t>(noisy.size()), -1};
  const edgewise::ImageShape shape{p.width, p.height, p.channels};
  edgewise::RunOptions options;
  options.backend = "cpu";
  // One thread per run: ctest runs these tests side by side, and OpenMP
  // teams outnumbering the cores spin at every barrier (a loaded 2-core
  // machine took 100 s instead of 3 for the grid test); output does not
  // depend on the thread count (ThreadCountDoesNotChangeOutput).
  options.backend_options.threads = 1;
  const edgewise::RunReport report =
      edgewise::run_filter(spec, {const_cast<uint8_t*>(noisy.data()), shape, edgewise::SampleType::u8, 0},
                           {result.image.data(), shape, edgewise::SampleType::u8, 0}, options);
  result.noise_sigma = report.noise_sigma;
  return result;
}

// One case: a photo with one kind of noise, printed with its seed.
struct Case {
  const Photo& photo;
  const NoiseKind& noise;
  std::vector<uint8_t> clean;  // the reference: the photo, or its noise-free development
  std::vector<uint8_t> noisy;
  double noisy_psnr;
  Case(const Photo& p, const NoiseKind& k) : photo(p), noise(k) {
    if (k.develop) {
      const edgewise_quality::Development d = k.develop(p);
      clean = d.clean.pixels;
      noisy = d.noisy.pixels;
    } else {
      clean = p.clean;
      noisy = noisy_image(p, k);
    }
    noisy_psnr = psnr(clean, noisy);
    std::printf("%s, %s noise (seed %s): noisy %.2f dB\n", p.name.c_str(), k.name.c_str(), k.seed.c_str(), noisy_psnr);
  }
  std::string what() const { return photo.name + ", " + noise.name; }
  double psnr_of(const FilterSpec& spec) const { return psnr(clean, run(spec, photo, noisy).image); }
};

std::vector<const Subject*> subjects_for(const Photo& p) {
  std::vector<const Subject*> out;
  for (const Subject& s : subjects())
    if (p.colour() || s.grey_too) out.push_back(&s);
  return out;
}

// The best PSNR over a grid of one subject's multiples of `sigma` at the
// given spatial steps.
double grid_best(const Case& c, const Subject& s, double sigma, const std::vector<size_t>& steps) {
  double best = -1;
  for (size_t step : steps)
    for (double m : s.multiples) {
      FilterSpec spec = s.defaults;
      s.spatial[step](spec);
      s.at(spec, m, rule_sigma(spec, sigma));
      best = std::max(best, c.psnr_of(spec));
    }
  return best;
}

std::vector<size_t> all_steps(const Subject& s) {
  std::vector<size_t> steps;
  for (size_t i = 0; i < s.spatial.size(); ++i) steps.push_back(i);
  return steps;
}

// ---- every filter denoises, at its defaults and at one fixed setting ----

// Every floor named is checked somewhere: a subject or a photo that went
// missing (a filter taken out of subjects(), a photo turned grey) fails
// rather than leaving its floors unread.
void expect_gains(bool at_defaults) {
  for (const NoiseKind& k : noise_kinds()) {
    std::map<std::string, int> compared;
    for (const char* name : kPhotos) {
      const Photo& p = photo(name);
      if (k.colour_only && !p.colour()) continue;
      const Case c(p, k);
      for (const Subject* s : subjects_for(p)) {
        FilterSpec spec = s->defaults;
        if (!at_defaults) s->at(spec, s->fixed, rule_sigma(spec, k.sigma));
        const double gain = c.psnr_of(spec) - c.noisy_psnr;
        std::printf("  %-22s %s: %+.2f dB (floor %.1f)\n", s->label.c_str(), at_defaults ? "at defaults" : "fixed",
                    gain, k.floor(s->label, at_defaults));
        EXPECT_GE(gain, k.floor(s->label, at_defaults))
            << c.what() << ", " << s->label << (at_defaults ? " at its defaults" : " fixed");
        ++compared[s->label];
      }
    }
    for (const auto& floors : {k.floors, k.defaults_floors})
      for (const auto& [label, floor] : floors)
        EXPECT_EQ(compared.count(label), 1u) << k.name << ": no case held " << label << " to its floor of " << floor;
    EXPECT_EQ(compared.size(), subjects().size()) << k.name << ": every subject on the colour photo";
  }
}

// README, "Automatic parameters" (every filter's defaults follow the noise)
// and docs/quality.md's floors sentence.
TEST(QualityDefaults, EveryFilterGainsOverTheNoisyInput) { expect_gains(true); }

// The same floors at one fixed setting per filter (its rule's multiple of
// the true noise sigma at its default scale): the filters' math alone,
// whatever the estimator and the automatic rules do.
TEST(QualityFixed, EveryFilterGainsOverTheNoisyInput) { expect_gains(false); }

// docs/quality.md, "Automatic parameters": each filter at its defaults is
// within 0.5 dB of the best of auto_quality's 24-point grid (the largest
// shortfalls documented, 2026-11-28: 0.34 rgb, 0.45 per-channel, 0.37 lab,
// 0.32 adaptive, 0.26 nlm, 0.32 pyramid), the Fourier filter of the best at
// its default sigma-s (0.39; its default scale is a choice, not a tuning).
// The grid is the documented one (bench/quality/auto_quality.cpp): multiples
// of the true noise sigma (the kind's; Poisson-Gaussian: at I = 128), so an
// error of the estimate that auto reads shows as a shortfall instead of
// moving the grid with it. Margin 0.1 dB: the claim's 0.5 is checked at 0.6.
TEST(QualityDefaults, WithinHalfADecibelOfTheGridBest) {
  constexpr double kClaim = 0.5, kMargin = 0.1;
  for (const char* kind_name : {"white 10", "white 30", "Poisson-Gaussian 20"})
    for (const char* name : kPhotos) {
      const Case c(photo(name), kind(kind_name));
      for (const Subject* s : subjects_for(c.photo)) {
        if (!s->grid_claim) continue;
        const Result automatic = run(s->defaults, c.photo, c.noisy);
        const double at_auto = psnr(c.clean, automatic.image);
        const bool fourier = s->label.rfind("fourier", 0) == 0;
        const double best = grid_best(c, *s, c.noise.sigma, fourier ? std::vector<size_t>{0} : all_steps(*s));
        std::printf("  %-22s auto %.2f, grid-best %.2f, shortfall %.2f (true sigma %.0f, estimate %.2f)\n",
                    s->label.c_str(), at_auto, best, best - at_auto, c.noise.sigma, automatic.noise_sigma);
        EXPECT_LE(best - at_auto, kClaim + kMargin) << c.what() << ", " << s->label;
      }
    }
}

// README, "Which filter": the recommended methods at their defaults on a
// photo with no noise added keep it: their auto reads the photo's own
// small noise and smooths little. The floors are this test's own
// measurement (2026-12-06, CPU backend; no documented figure: PSNR of the
// output against its input), less 2 dB: nlbayes 51.64 dB, pyramid lab
// 49.70 dB, learned 62.84 dB (astronaut; 63.08 with the stage-2 weights,
// 63.51 with the stage-3 ones, 61.53 with the stage-4 ones, 2026-12-07;
// the floor stays at stage 1's figure less 2 dB). A default that smoothed a clean photo as it smooths
// sigma 10 noise (about 36 dB against the clean photo: docs/auto_quality.csv)
// fails it.
TEST(QualityDefaults, RecommendedMethodsKeepACleanPhoto) {
  const std::map<std::string, double> floors = {{"nlbayes", 49.5}, {"pyramid lab", 47.5}, {"learned", 60.5}};
  int compared = 0;
  const Photo& p = photo("astronaut.png");
  for (const auto& [label, floor] : floors) {
    const double kept = psnr(p.clean, run(subject(label).defaults, p, p.clean).image);
    std::printf("  %-12s on the clean %s: %.2f dB to its input (floor %.1f)\n", label.c_str(), p.name.c_str(), kept,
                floor);
    EXPECT_GE(kept, floor) << p.name << ", " << label;
    ++compared;
  }
  EXPECT_EQ(compared, 3);
}

// The bilateral filter's best over a grid of the true noise sigma: sigma-s
// {1, 1.5, 2} (the best points of docs/quality.md's white-noise table) x
// sigma-r {2, 2.5, 3, 4} sigma; `wide` for correlated noise, whose best
// points sit at larger sigma-s (2, 3, 4) and sigma-r {1, 1.5, 2, 3} sigma.
double bilateral_family_best(const Case& c, FilterSpec base, bool wide) {
  double best = -1;
  for (double sigma_s : wide ? std::vector<double>{2, 3, 4} : std::vector<double>{1, 1.5, 2})
    for (double m : wide ? std::vector<double>{1, 1.5, 2, 3} : std::vector<double>{2, 2.5, 3, 4}) {
      FilterSpec spec = base;
      set(spec, "sigma-s", sigma_s);
      set(spec, "sigma-r", m * c.noise.sigma);
      best = std::max(best, c.psnr_of(spec));
    }
  return best;
}

// README ("+0.5 to +1.9 dB over the best bilateral at sigma = 20-30") and
// docs/quality.md ("the goal of +0.5 dB at sigma = 20 and 30 holds on all
// three photos"): nlm at its defaults against the bilateral filter's best
// (rgb, its best mode) on white noise of sigma 20 and 30. Margin 0.25 dB:
// the claim's +0.5 is checked at +0.25 (the documented defaults gave
// +0.56 and +0.69 on the astronaut, +1.34 and +1.56 on the camera).
TEST(QualityClaims, NlmBeatsTheBestBilateralAtSigma20And30) {
  constexpr double kClaim = 0.5, kMargin = 0.25;
  for (const char* kind_name : {"white 20", "white 30"})
    for (const char* name : kPhotos) {
      const Case c(photo(name), kind(kind_name));
      const double nlm = c.psnr_of(subject("nlm rgb").defaults);
      const double bilateral = bilateral_family_best(c, with_mode("bilateral", "rgb"), false);
      std::printf("  nlm at defaults %.2f, bilateral rgb best %.2f: %+.2f dB\n", nlm, bilateral, nlm - bilateral);
      EXPECT_GE(nlm - bilateral, kClaim - kMargin) << c.what();
    }
}

// docs/quality.md, "Multiresolution bilateral": on white noise the pyramid
// (rgb, automatic levels) is within 0.2 dB of the single-scale filter at
// the same tuning effort (documented -0.08 to +0.33). Margin 0.1 dB.
TEST(QualityClaims, PyramidWithinPointTwoOfTheBilateralOnWhiteNoise) {
  constexpr double kClaim = 0.2, kMargin = 0.1;
  for (const char* kind_name : {"white 10", "white 30"})
    for (const char* name : kPhotos) {
      const Case c(photo(name), kind(kind_name));
      const double pyramid = bilateral_family_best(c, with_mode("pyramid", "rgb"), false);
      const double bilateral = bilateral_family_best(c, with_mode("bilateral", "rgb"), false);
      std::printf("  pyramid best %.2f, bilateral best %.2f: %+.2f dB\n", pyramid, bilateral, pyramid - bilateral);
      EXPECT_GE(pyramid - bilateral, -(kClaim + kMargin)) << c.what();
    }
}

// docs/quality.md, "Multiresolution bilateral": "+0.5 dB reached on ...
// colour blotches with --coarse-strength 2" (+0.62 and +0.66 on the
// astronaut's YCbCr blotches). Margin 0.2 dB: checked at +0.3.
TEST(QualityClaims, PyramidCoarseStrengthTwoRemovesColourBlotches) {
  constexpr double kClaim = 0.5, kMargin = 0.2;
  const Case c(photo("astronaut.png"), kind("YCbCr blotches sigma_Y 10"));
  FilterSpec coarse = with_mode("pyramid", "rgb");
  set(coarse, "coarse-strength", 2);
  const double pyramid = bilateral_family_best(c, coarse, true);
  const double bilateral = bilateral_family_best(c, with_mode("bilateral", "rgb"), true);
  std::printf("  pyramid coarse 2 best %.2f, bilateral best %.2f: %+.2f dB\n", pyramid, bilateral, pyramid - bilateral);
  EXPECT_GE(pyramid - bilateral, kClaim - kMargin) << c.what();
}

// docs/quality.md, "Automatic parameters": the adaptive filter at its
// defaults is another filter than the plain one (its sigma-r' follows each
// area's own variance between 2 and 4 x the noise), and costs at most 0.5
// dB against the plain filter at its defaults (documented: -0.34 to +0.02
// dB on white and Poisson-Gaussian noise, -0.48 to +0.02 on the camera
// set, 2026-11-28). Margin 0.1 dB; the pixels must differ by more than 2
// code values somewhere.
TEST(QualityClaims, AdaptiveAtDefaultsDiffersAndStaysNearThePlainFilter) {
  constexpr double kClaim = -0.5, kMargin = 0.1;
  for (const NoiseKind& k : noise_kinds())
    for (const char* name : kPhotos) {
      if (k.colour_only && std::string(name) == "camera.png") continue;
      const Case c(photo(name), k);
      const Result adaptive = run(subject("adaptive rgb").defaults, c.photo, c.noisy);
      const Result plain = run(subject("bilateral rgb").defaults, c.photo, c.noisy);
      int largest = 0;
      for (size_t i = 0; i < adaptive.image.size(); ++i)
        largest = std::max(largest, std::abs(int(adaptive.image[i]) - int(plain.image[i])));
      const double adaptive_psnr = psnr(c.clean, adaptive.image), plain_psnr = psnr(c.clean, plain.image);
      std::printf("  adaptive %.2f, bilateral %.2f, largest difference %d code values\n", adaptive_psnr, plain_psnr,
                  largest);
      EXPECT_GE(adaptive_psnr - plain_psnr, kClaim - kMargin) << c.what();
      EXPECT_GT(largest, 2) << c.what();
    }
}

// README and docs/quality.md: nlm's h and sigma-n following the noise
// level function per pixel beat one value for the image on
// Poisson-Gaussian noise (documented at sigma 20: +0.41 on the astronaut,
// +0.95 on the camera). The one value is the same rule resolved for the
// image (h and sigma-n set explicitly turn the profile off). Margin 0.2 dB
// below the smaller documented gain: checked at +0.21.
TEST(QualityClaims, NlmNoiseProfileGainsOnPoissonGaussianNoise) {
  constexpr double kClaim = 0.41, kMargin = 0.2;
  for (const char* name : kPhotos) {
    const Case c(photo(name), kind("Poisson-Gaussian 20"));
    const FilterSpec automatic = subject("nlm rgb").defaults;
    const Result profile = run(automatic, c.photo, c.noisy);
    FilterSpec one_value = automatic;
    set(one_value, "h",
        edgewise::resolve_noise(automatic,
                                edgewise::white_noise_estimate(profile.noise_sigma, 1))
            .get("h"));
    set(one_value, "sigma-n", profile.noise_sigma);
    const double gain = psnr(c.clean, profile.image) - c.psnr_of(one_value);
    std::printf("  profile against one value: %+.2f dB\n", gain);
    EXPECT_GE(gain, kClaim - kMargin) << c.what();
  }
}

// docs/quality.md, "Scales at auto": nlbayes at its defaults (--scales
// auto) runs one scale on white noise and two on the camera pipeline's
// noise, which the model reads as correlated (its coarse-scale gain 2.4
// and 2.45 on the astronaut's camera 3 and camera 3 JPEG, against 1.7),
// and is then within 0.1 dB of the better of one and two scales given
// (documented: camera 3 23.48 against 23.53 with one scale, camera 3 JPEG
// 23.73 against 23.76; the astronaut is where a second scale pays least).
TEST(QualityClaims, NlBayesAutoScalesFollowTheNoise) {
  constexpr double kMargin = 0.1;
  for (const char* kind_name : {"white 20", "camera 3", "camera 3 JPEG"}) {
    const Case c(photo("astronaut.png"), kind(kind_name));
    const FilterSpec automatic = with_mode("nlbayes", nullptr);
    ASSERT_EQ(automatic.get("scales"), 0.0) << "the default is auto";
    FilterSpec one = automatic, two = automatic;
    set(one, "scales", 1);
    set(two, "scales", 2);
    const std::vector<uint8_t> chosen = run(automatic, c.photo, c.noisy).image;
    const std::vector<uint8_t> one_image = run(one, c.photo, c.noisy).image;
    const std::vector<uint8_t> two_image = run(two, c.photo, c.noisy).image;
    const bool white = std::string(kind_name).rfind("white", 0) == 0;
    EXPECT_TRUE(chosen == (white ? one_image : two_image)) << c.what() << ": auto should run " << (white ? 1 : 2);
    const double best = std::max(psnr(c.clean, one_image), psnr(c.clean, two_image));
    std::printf("  auto %.2f, one scale %.2f, two %.2f\n", psnr(c.clean, chosen), psnr(c.clean, one_image),
                psnr(c.clean, two_image));
    EXPECT_GE(psnr(c.clean, chosen), best - kMargin) << c.what();
  }
}

}  // namespace
