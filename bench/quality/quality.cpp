// Denoising quality of the exact bilateral filter in each mode, and of the
// variance-adaptive one (rgb mode, k, eps, min, max at their defaults; the
// grid's sigma_r is its first pass's), against
// OpenCV's cv::bilateralFilter and G'MIC's `bilateral` command: clean real
// photos plus Gaussian noise (sigma 10, 20, 30 on the 8-bit scale, fixed
// seed), each method at the parameters that maximise its PSNR on the grid
// below, reported with its SSIM at those parameters. A tool, not a test.
//
// Grid (the same for every method, so each gets the same tuning effort):
//   sigma_s in {0.7, 1, 1.5, 2, 3, 4} px (radius ceil(2 sigma_s); OpenCV's
//   diameter 2*radius+1); sigma_r in {0.5, 1, 1.5, 2, 3, 4} x noise sigma in
//   code values, or x noise sigma / 2 in Delta E for lab (noise of sigma
//   code values is about sigma/2 Delta E on mid-tones).
//
// Patch-based methods (issue 13) spend the same 36 points on their own
// two axes: six window configurations (the "σs" column names it) times six
// strengths in units of the noise sigma:
//   edgewise nlm (rgb; sigma-n = the true noise sigma, spatial and range
//     terms off): (f, S) in {(1,5), (1,7), (1,10), (2,7), (2,10), (3,10)},
//     h in {0.25, 0.35, 0.45, 0.55, 0.7, 0.9} x noise sigma;
//   opencv fastNlMeansDenoisingColored (h = hColor; fastNlMeansDenoising on
//     grey): (template, search) in {(3,11), (3,21), (5,21), (7,21), (5,11),
//     (7,31)}, h in {0.4, 0.6, 0.8, 1.0, 1.2, 1.5} x noise sigma;
//   gmic denoise (patch-based smoothing, fast approximation): (sigma_s,
//     patch, lookup) in {(5,5,6), (10,5,6), (10,3,6), (10,7,10), (20,5,10),
//     (5,3,6)}, sigma_p in {0.5, 0.75, 1, 1.5, 2, 3} x noise sigma.
//
// The multiresolution bilateral filter (issue 15; "edgewise pyramid" rows)
// takes the bilateral grid: sigma_s per level (radius ceil(2 sigma_s)),
// sigma_r the image's as its --sigma-r, levels automatic (4 on these
// photos), range weights from the Gaussian levels (--guide gaussian); the
// rows named "coarse 2" and "chroma 2" fix --coarse-strength 2 and
// --chroma-strength 2 (lab), each a method with its own 36 points.
//
// EDGEWISE_QUALITY_NOISE=correlated replaces the white noise by noise that
// is not white, each scaled to a stated standard deviation per colour
// channel in code values, which is then the grid's "noise sigma":
//   blur 1 px, blur 2 px: white noise per channel blurred by a Gaussian of
//     sigma 1 or 2 px, rescaled to sigma = 10 and 20;
//   YCbCr: white noise in Y (sigma_Y = 5, 10) and in Cb and Cr (2 sigma_Y),
//     converted to R'G'B' (BT.601: about 3 sigma_Y per channel), colour
//     images only;
//   YCbCr blotches: the same with Cb and Cr blurred by a Gaussian of 2 px
//     first (rescaled to 2 sigma_Y), the colour blotches of camera noise.
// EDGEWISE_QUALITY_NOISE=camera takes the camera pipeline's noise instead
// (camera_pipeline.h: Brooks et al.'s sensor noise at four levels through
// demosaicing, colour matrix, tone curve, each without and with JPEG 4:2:0),
// measured against the noise-free development; the grid's "noise sigma" is
// the median over channels of the true noise RMS, BM3D ("bm3d") gets the
// true RMS per channel and, as "bm3d psd", the true noise spectrum per
// opponent channel (bm3d_peer.py --psd).
// EDGEWISE_QUALITY_SAVE=DIR writes each case's noisy image and each
// method's best result there as PNG.
//
// The collaborative denoiser (issue 27; "edgewise nlbayes" rows) runs once
// per case, blind (sigma-n at auto: the noise from the image's estimate, as
// a user runs it), at its defaults and at its faster preset
// (--reference-step 4). Its peer "bm3d" is the bm3d package (bm3d_rgb, or
// bm3d on grey) given the true sigma, through bench/quality/bm3d_peer.py
// when EDGEWISE_BM3D_PYTHON names a Python that has the package; without
// it the rows are left out with a message. EDGEWISE_QUALITY_SIGMAS=5,10,...
// replaces the white noise's sigmas (default 10, 20, 30).
//
// Usage: quality OUT.csv IMAGE...   (prints a markdown table)
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>
#include <string>
#include <vector>

#include "bilateral.h"
#include "camera_pipeline.h"
#include "engine.h"
#include "image_quality.h"
#include "nlbayes.h"
#include "nlm.h"
#include "noise_models.h"
#include "pyramid.h"

namespace {

using namespace edgewise_quality;

const double kSigmaS[] = {0.7, 1, 1.5, 2, 3, 4};
const double kSigmaR[] = {0.5, 1, 1.5, 2, 3, 4};
// The noise sigma of the case being tuned (the k-grid method reads it).
double current_noise_sigma = 10;

// The noise of bench/quality/noise_models.h on an 8-bit Mat (BGR or grey).
cv::Mat add_noise(const cv::Mat& clean, double sigma, unsigned seed) {
  cv::Mat noisy = clean.clone();
  edgewise_noise::add_noise(noisy.data, noisy.total() * noisy.elemSize(), edgewise_noise::white_level(sigma), seed);
  return noisy;
}

// A case of non-white noise: the noisy image and the noise's standard
// deviation per channel.
struct NoiseCase {
  std::string label;  // "blur 1 px"
  double sigma = 0;   // per colour channel, code values: the grid's unit
  cv::Mat noisy;
  cv::Mat clean;                // the reference when not the photo itself (the camera's noise-free development)
  std::vector<double> sigmas;   // the true noise RMS per channel, R, G, B order (empty: sigma in each)
};

// The case being run, for the peers that are told the truth about the noise.
const NoiseCase* current_case = nullptr;
std::string current_reference_file;  // the reference as a PNG (BGR), for bm3d psd

// The camera pipeline's cases (camera_pipeline.h); `variant` picks the
// camera, white balance and demosaicer.
std::vector<NoiseCase> camera_cases(const cv::Mat& clean_bgr, int variant) {
  cv::Mat rgb;
  if (clean_bgr.channels() == 3)
    cv::cvtColor(clean_bgr, rgb, cv::COLOR_BGR2RGB);
  else
    rgb = clean_bgr.clone();
  const Photo8 photo{rgb.cols, rgb.rows, rgb.channels(),
                     std::vector<uint8_t>(rgb.data, rgb.data + rgb.total() * rgb.elemSize())};
  auto to_bgr = [&](const Photo8& developed) {
    cv::Mat out(rgb.rows, rgb.cols, rgb.type(), const_cast<uint8_t*>(developed.pixels.data()));
    cv::Mat bgr;
    if (out.channels() == 3)
      cv::cvtColor(out, bgr, cv::COLOR_RGB2BGR);
    else
      bgr = out.clone();
    return bgr;
  };
  std::vector<NoiseCase> cases;
  for (int level = 0; level < kCameraLevels; ++level)
    for (bool jpeg : {false, true}) {
      const Development d = develop(photo, camera_case(level, variant, jpeg));
      const std::vector<double> rms = noise_rms(d);
      std::vector<double> sorted = rms;
      std::sort(sorted.begin(), sorted.end());
      cases.push_back({"camera " + std::to_string(level) + (jpeg ? " JPEG" : ""), sorted[sorted.size() / 2],
                       to_bgr(d.noisy), to_bgr(d.clean), rms});
    }
  return cases;
}

std::vector<NoiseCase> correlated_cases(const cv::Mat& clean) {
  std::vector<NoiseCase> cases;
  for (const edgewise_noise::CorrelatedCase& c :
       edgewise_noise::correlated_cases(clean.cols, clean.rows, clean.channels(), edgewise_noise::ChannelOrder::bgr)) {
    cv::Mat noisy = clean.clone();
    edgewise_noise::add_field(noisy.data, c.field);
    cases.push_back({c.label, c.sigma, noisy, cv::Mat(), {}});
  }
  return cases;
}

// Edgewise on the CPU, 8-bit in and out. OpenCV stores BGR; Edgewise wants
// R'G'B'. Grey needs no swap.
cv::Mat run_edgewise(const cv::Mat& noisy, const edgewise::FilterSpec& spec) {
  cv::Mat rgb, out;
  if (noisy.channels() == 3)
    cv::cvtColor(noisy, rgb, cv::COLOR_BGR2RGB);
  else
    rgb = noisy.clone();
  out = rgb.clone();
  const edgewise::ImageShape shape{rgb.cols, rgb.rows, rgb.channels()};
  edgewise::RunOptions options;
  options.backend = "cpu";
  edgewise::run_filter(spec, edgewise::ImageBuffer{rgb.data, shape, edgewise::SampleType::u8, rgb.step},
                       edgewise::ImageBuffer{out.data, shape, edgewise::SampleType::u8, out.step}, options);
  if (out.channels() == 3) cv::cvtColor(out, out, cv::COLOR_RGB2BGR);
  return out;
}

cv::Mat edgewise_filter(const cv::Mat& noisy, edgewise::ColorMode mode, double sigma_s, double sigma_r,
                        bool adaptive = false, double adapt_k = 0.5) {
  edgewise::BilateralParameters parameters;
  parameters.mode = mode;
  parameters.sigma_s = float(sigma_s);
  parameters.sigma_r = float(sigma_r);
  edgewise::AdaptiveParameters adaptive_parameters;  // eps, min, max at their defaults
  adaptive_parameters.adapt_k = float(adapt_k);
  return run_edgewise(noisy, adaptive ? edgewise::adaptive_spec(parameters, adaptive_parameters)
                                      : edgewise::bilateral_spec(parameters));
}

cv::Mat edgewise_pyramid(const cv::Mat& noisy, edgewise::ColorMode mode, double sigma_s, double sigma_r,
                         double coarse_strength = 1.0, double chroma_strength = 1.0) {
  edgewise::PyramidParameters parameters;
  parameters.mode = mode;
  parameters.sigma_s = float(sigma_s);
  parameters.sigma_r = float(sigma_r);
  parameters.coarse_strength = float(coarse_strength);
  parameters.chroma_strength = float(chroma_strength);
  return run_edgewise(noisy, edgewise::pyramid_spec(parameters));
}

cv::Mat opencv_filter(const cv::Mat& noisy, double sigma_s, double sigma_r) {
  cv::Mat out;
  const int radius = int(std::ceil(2 * sigma_s));
  cv::bilateralFilter(noisy, out, 2 * radius + 1, sigma_r, sigma_s);
  return out;
}

// G'MIC through its command line, as a batch user would call it: `gmic_command`
// applied to the noisy image written as a PNG; an empty Mat when gmic fails.
cv::Mat run_gmic(const cv::Mat& noisy, const std::string& gmic_command) {
  const std::string dir = "/tmp/edgewise-quality-" + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  const std::string in = dir + "/in.png", out = dir + "/out.png";
  cv::imwrite(in, noisy);
  const std::string command = "gmic -v -1 " + in + " " + gmic_command + " -o " + out + " > /dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return cv::Mat();
  return cv::imread(out, noisy.channels() == 3 ? cv::IMREAD_COLOR : cv::IMREAD_GRAYSCALE);
}

cv::Mat gmic_filter(const cv::Mat& noisy, double sigma_s, double sigma_r) {
  return run_gmic(noisy, "bilateral " + std::to_string(sigma_s) + "," + std::to_string(sigma_r));
}

const int kNlmWindows[6][2] = {{1, 5}, {1, 7}, {1, 10}, {2, 7}, {2, 10}, {3, 10}};
const int kOpencvNlmWindows[6][2] = {{3, 11}, {3, 21}, {5, 21}, {7, 21}, {5, 11}, {7, 31}};
const int kGmicDenoise[6][3] = {{5, 5, 6}, {10, 5, 6}, {10, 3, 6}, {10, 7, 10}, {20, 5, 10}, {5, 3, 6}};

cv::Mat edgewise_nlm(const cv::Mat& noisy, int config, double h) {
  edgewise::NlmParameters parameters;
  parameters.patch_radius = kNlmWindows[config][0];
  parameters.search_radius = kNlmWindows[config][1];
  parameters.h = float(h);
  parameters.sigma_n = float(current_noise_sigma);
  return run_edgewise(noisy, edgewise::nlm_spec(parameters));
}

cv::Mat opencv_nlm(const cv::Mat& noisy, int config, double h) {
  cv::Mat out;
  const int tw = kOpencvNlmWindows[config][0], sw = kOpencvNlmWindows[config][1];
  if (noisy.channels() == 3)
    cv::fastNlMeansDenoisingColored(noisy, out, float(h), float(h), tw, sw);
  else
    cv::fastNlMeansDenoising(noisy, out, float(h), tw, sw);
  return out;
}

cv::Mat gmic_denoise(const cv::Mat& noisy, int config, double sigma_p) {
  return run_gmic(noisy, "denoise " + std::to_string(kGmicDenoise[config][0]) + "," + std::to_string(sigma_p) + "," +
                             std::to_string(kGmicDenoise[config][1]) + "," + std::to_string(kGmicDenoise[config][2]));
}

struct Method {
  std::string name;
  double sigma_r_unit;  // grid multiplier per unit of noise sigma
  std::function<cv::Mat(const cv::Mat&, double, double)> run;
  // Patch-based methods: their own strengths, and the window configuration
  // named by index (the first axis runs over 0..5 then).
  std::vector<double> strengths = {};
  std::function<std::string(int)> window = nullptr;
  // Run once per case, no grid (blind methods, and BM3D given the true sigma).
  bool once = false;
};

// The collaborative denoiser, blind, at its defaults or another reference step.
cv::Mat edgewise_nlbayes(const cv::Mat& noisy, int reference_step) {
  edgewise::NlBayesParameters parameters;
  parameters.sigma_n = float(edgewise::kNoiseAuto);
  parameters.reference_step = reference_step;
  return run_edgewise(noisy, edgewise::nlbayes_spec(parameters));
}

// BM3D through bench/quality/bm3d_peer.py with the true noise RMS per
// channel (or, with `psd`, the true noise spectrum from the case's
// reference); an empty Mat when it fails.
cv::Mat bm3d_peer(const std::string& python, const cv::Mat& noisy, bool psd) {
  const std::string dir = "/tmp/edgewise-quality-" + std::to_string(getpid());
  std::system(("mkdir -p " + dir).c_str());
  const std::string in = dir + "/bm3d_in.png", out = dir + "/bm3d_out.png";
  cv::imwrite(in, noisy);
  std::string sigmas;
  for (int c = 0; c < 3; ++c) {
    const double sigma = current_case->sigmas.empty() ? current_case->sigma : current_case->sigmas[size_t(
                                                                                   std::min<int>(c, int(current_case->sigmas.size()) - 1))];
    sigmas += " " + std::to_string(sigma);
  }
  std::string command = python + " " EDGEWISE_SOURCE_DIR "/bench/quality/bm3d_peer.py " + in + " " + out + sigmas;
  if (psd) command += " --psd " + current_reference_file;
  if (std::system((command + " > /dev/null").c_str()) != 0) return cv::Mat();
  return cv::imread(out, cv::IMREAD_UNCHANGED);
}

struct Best {
  double psnr = -1, ssim = 0, sigma_s = 0, sigma_r = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: quality OUT.csv IMAGE...\n");
    return 2;
  }
  const bool have_gmic = std::system("gmic -v -1 -version > /dev/null 2>&1") == 0;
  std::vector<Method> methods = {
      {"edgewise per-channel", 1.0,
       [](auto& n, double s, double r) { return edgewise_filter(n, edgewise::ColorMode::per_channel, s, r); }},
      {"edgewise rgb", 1.0,
       [](auto& n, double s, double r) { return edgewise_filter(n, edgewise::ColorMode::rgb, s, r); }},
      {"edgewise lab", 0.5,
       [](auto& n, double s, double r) { return edgewise_filter(n, edgewise::ColorMode::lab, s, r); }},
      {"edgewise adaptive rgb", 1.0,
       [](auto& n, double s, double r) { return edgewise_filter(n, edgewise::ColorMode::rgb, s, r, true); }},
      // The same number of grid points spent on k instead of sigma_r (the
      // "sigma_r" column is then k x noise sigma; the first walk uses
      // sigma_r = 2 x noise sigma).
      {"edgewise adaptive rgb (k grid)", 1.0,
       [](auto& n, double s, double r) {
         return edgewise_filter(n, edgewise::ColorMode::rgb, s, 2.0 * current_noise_sigma, true,
                                r / current_noise_sigma);
       }},
      {"opencv bilateralFilter", 1.0, opencv_filter},
      {"edgewise pyramid rgb", 1.0,
       [](auto& n, double s, double r) { return edgewise_pyramid(n, edgewise::ColorMode::rgb, s, r); }},
      {"edgewise pyramid rgb coarse 2", 1.0,
       [](auto& n, double s, double r) { return edgewise_pyramid(n, edgewise::ColorMode::rgb, s, r, 2.0); }},
      {"edgewise pyramid lab", 0.5,
       [](auto& n, double s, double r) { return edgewise_pyramid(n, edgewise::ColorMode::lab, s, r); }},
      {"edgewise pyramid lab chroma 2 coarse 2", 0.5,
       [](auto& n, double s, double r) { return edgewise_pyramid(n, edgewise::ColorMode::lab, s, r, 2.0, 2.0); }},
  };
  if (have_gmic) methods.push_back({"gmic bilateral", 1.0, gmic_filter});
  methods.push_back(
      {"edgewise nlm",
       1.0,
       [](auto& n, double c, double h) { return edgewise_nlm(n, int(c), h); },
       {0.25, 0.35, 0.45, 0.55, 0.7, 0.9},
       [](int c) { return "f=" + std::to_string(kNlmWindows[c][0]) + " S=" + std::to_string(kNlmWindows[c][1]); }});
  methods.push_back({"opencv fastNlMeans",
                     1.0,
                     [](auto& n, double c, double h) { return opencv_nlm(n, int(c), h); },
                     {0.4, 0.6, 0.8, 1.0, 1.2, 1.5},
                     [](int c) {
                       return "t=" + std::to_string(kOpencvNlmWindows[c][0]) +
                              " s=" + std::to_string(kOpencvNlmWindows[c][1]);
                     }});
  if (have_gmic)
    methods.push_back({"gmic denoise",
                       1.0,
                       [](auto& n, double c, double p) { return gmic_denoise(n, int(c), p); },
                       {0.5, 0.75, 1.0, 1.5, 2.0, 3.0},
                       [](int c) {
                         return "s=" + std::to_string(kGmicDenoise[c][0]) + " p=" + std::to_string(kGmicDenoise[c][1]) +
                                " l=" + std::to_string(kGmicDenoise[c][2]);
                       }});
  methods.push_back({"edgewise nlbayes", 1.0, [](auto& n, double, double) { return edgewise_nlbayes(n, 0); }});
  methods.back().once = true;
  methods.push_back({"edgewise nlbayes fast", 1.0, [](auto& n, double, double) { return edgewise_nlbayes(n, 4); }});
  methods.back().once = true;
  if (const char* python = std::getenv("EDGEWISE_BM3D_PYTHON")) {
    const std::string interpreter = python;
    methods.push_back({"bm3d", 1.0, [interpreter](auto& n, double, double) { return bm3d_peer(interpreter, n, false); }});
    methods.back().once = true;
    methods.push_back({"bm3d psd", 1.0, [interpreter](auto& n, double, double) {
                         return current_case->clean.empty() ? cv::Mat() : bm3d_peer(interpreter, n, true);
                       }});
    methods.back().once = true;
  } else {
    std::fprintf(stderr, "quality: EDGEWISE_BM3D_PYTHON not set; BM3D rows left out\n");
  }
  // EDGEWISE_QUALITY_ONLY=WORD[,WORD...] keeps the methods whose name contains one of the words.
  if (const char* only = std::getenv("EDGEWISE_QUALITY_ONLY")) {
    std::vector<std::string> words;
    for (std::string list = only; !list.empty();) {
      const size_t comma = list.find(',');
      words.push_back(list.substr(0, comma));
      list = comma == std::string::npos ? "" : list.substr(comma + 1);
    }
    std::vector<Method> kept;
    for (const Method& method : methods)
      for (const std::string& word : words)
        if (method.name.find(word) != std::string::npos) {
          kept.push_back(method);
          break;
        }
    methods = kept;
  }

  const char* noise_kind = std::getenv("EDGEWISE_QUALITY_NOISE");
  const bool correlated = noise_kind && std::string(noise_kind) == "correlated";
  const bool camera = noise_kind && std::string(noise_kind) == "camera";
  const char* save = std::getenv("EDGEWISE_QUALITY_SAVE");
  const std::string save_dir = save ? save : "";

  FILE* csv = std::fopen(argv[1], "w");
  if (!csv) {
    std::fprintf(stderr, "quality: cannot write %s\n", argv[1]);
    return 1;
  }
  std::fprintf(csv, "image,noise_sigma,method,psnr,ssim,sigma_s,sigma_r,noisy_psnr\n");
  std::printf(
      "| image | noise σ | noisy PSNR | method | best PSNR | SSIM | σs | σr |\n|---|---|---|---|---|---|---|---|\n");
  for (int i = 2; i < argc; ++i) {
    const cv::Mat clean = cv::imread(argv[i], cv::IMREAD_UNCHANGED);
    if (clean.empty() || clean.depth() != CV_8U || (clean.channels() != 1 && clean.channels() != 3)) {
      std::fprintf(stderr, "quality: %s is not an 8-bit grey or RGB image\n", argv[i]);
      return 1;
    }
    const std::string file = std::string(argv[i]).substr(std::string(argv[i]).find_last_of('/') + 1);
    std::vector<NoiseCase> cases;
    if (camera) {
      // The variant of the camera (matrix, white balance, demosaicer): the
      // photo's index, as auto_quality and camera_noise take it, or the
      // i-th of EDGEWISE_CAMERA_VARIANTS=0,2,... so that a photo run alone
      // gets the noise it gets among others.
      int variant = i - 2;
      if (const char* list = std::getenv("EDGEWISE_CAMERA_VARIANTS")) {
        std::string rest = list;
        for (int k = 0; k < i - 2 && rest.find(',') != std::string::npos; ++k) rest = rest.substr(rest.find(',') + 1);
        variant = std::atoi(rest.c_str());
      }
      cases = camera_cases(clean, variant);
    } else if (correlated) {
      cases = correlated_cases(clean);
    } else {
      std::vector<double> sigmas = {10.0, 20.0, 30.0};
      if (const char* list = std::getenv("EDGEWISE_QUALITY_SIGMAS")) {
        sigmas.clear();
        for (std::string rest = list; !rest.empty();) {
          const size_t comma = rest.find(',');
          sigmas.push_back(std::atof(rest.substr(0, comma).c_str()));
          rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        }
      }
      for (double sigma : sigmas) cases.push_back({"", sigma, add_noise(clean, sigma, 2026u + unsigned(sigma)), cv::Mat(), {}});
    }
    for (const NoiseCase& noise_case : cases) {
      const double sigma = noise_case.sigma;
      const std::string name = noise_case.label.empty() ? file : file + " (" + noise_case.label + ")";
      current_noise_sigma = sigma;
      current_case = &noise_case;
      const cv::Mat& noisy = noise_case.noisy;
      const cv::Mat& reference = noise_case.clean.empty() ? clean : noise_case.clean;
      current_reference_file = "/tmp/edgewise-quality-" + std::to_string(getpid()) + "-reference.png";
      cv::imwrite(current_reference_file, reference);
      const double noisy_psnr = psnr(reference, noisy);
      const std::string stem = save_dir.empty() ? "" : save_dir + "/" + name;
      if (!stem.empty()) cv::imwrite(stem + " noisy " + std::to_string(int(sigma)) + ".png", noisy);
      for (const Method& method : methods) {
        if (clean.channels() == 1 && method.name.rfind("edgewise", 0) == 0 && method.name != "edgewise rgb" &&
            method.name != "edgewise nlm" && method.name.rfind("edgewise adaptive rgb", 0) != 0 &&
            method.name.rfind("edgewise pyramid rgb", 0) != 0 && method.name.rfind("edgewise nlbayes", 0) != 0)
          continue;  // every Edgewise mode is the same filter on grey
        Best best;
        cv::Mat best_image;
        const bool patches = bool(method.window);
        const std::vector<double> firsts = method.once ? std::vector<double>{0}
                                           : patches   ? std::vector<double>{0, 1, 2, 3, 4, 5}
                                                       : std::vector<double>(std::begin(kSigmaS), std::end(kSigmaS));
        const std::vector<double> factors = method.once ? std::vector<double>{0}
                                            : patches   ? method.strengths
                                                        : std::vector<double>(std::begin(kSigmaR), std::end(kSigmaR));
        for (double first : firsts)
          for (double factor : factors) {
            const double sigma_r = factor * sigma * method.sigma_r_unit;
            const cv::Mat out = method.run(noisy, first, sigma_r);
            if (out.empty()) continue;
            const double p = psnr(reference, out);
            if (p > best.psnr) {
              best = {p, ssim(reference, out), first, sigma_r};
              if (!stem.empty()) best_image = out;
            }
          }
        if (!stem.empty() && !best_image.empty())
          cv::imwrite(stem + " " + std::to_string(int(sigma)) + " " + method.name + ".png", best_image);
        const std::string first_text = method.once ? std::string("-")
                                       : patches   ? method.window(int(best.sigma_s))
                                                   : [&] {
                                                     char text[32];
                                                     std::snprintf(text, sizeof text, "%g", best.sigma_s);
                                                     return std::string(text);
                                                   }();
        std::fprintf(csv, "%s,%g,%s,%.3f,%.4f,%g,%g,%.3f\n", name.c_str(), sigma, method.name.c_str(), best.psnr,
                     best.ssim, best.sigma_s, best.sigma_r, noisy_psnr);
        std::printf("| %s | %g | %.2f | %s | %.2f | %.4f | %s | %g |\n", name.c_str(), sigma, noisy_psnr,
                    method.name.c_str(), best.psnr, best.ssim, first_text.c_str(), best.sigma_r);
        std::fflush(stdout);
      }
    }
  }
  std::fclose(csv);
  if (!have_gmic) std::fprintf(stderr, "quality: gmic not found; G'MIC rows left out\n");
  return 0;
}
