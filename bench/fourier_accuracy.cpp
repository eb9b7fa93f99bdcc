// The Fourier bilateral filter against the exact one: PSNR over every
// pixel and channel (borders included, float outputs on the 0-255 scale,
// no 8-bit rounding) between `--filter fourier` and `--filter bilateral`
// with the same mode (per-channel), sigma-s, sigma-r and kernel at radius
// ceil(4 sigma-s) (the engine's exact filter up to radius 128, beyond that
// exact_wide below), both on the CPU, for each photo of tests/data; and the
// term count N and the series' error the plan chose. Prints the table of
// docs/fourier.md. A tool, not a test (the exact filter at sigma-s 64 takes
// a while).
//
// Usage: fourier_accuracy [--sigma-s LIST] [--sigma-r LIST] [--kernels LIST]
//                         [--terms LIST] [--images LIST]
// Lists are comma-separated; defaults: sigma-s 1,2,4,8,16,32,64, sigma-r
// 10,25,50,100,255, all four kernels, terms 0 (automatic), astronaut.png,
// camera.png, astronaut_noisy.png.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "bilateral.h"
#include "engine.h"
#include "float_image.h"
#include "fourier.h"
#include "fourier_exact.h"
#include "fourier_tools.h"

namespace {

using namespace edgewise;

using edgewise_bench::psnr_255;
using edgewise_bench::read_list_flags;

FloatImage load(const std::string& path) { return edgewise_bench::load_photo(path, "fourier_accuracy"); }

FloatImage run(const FilterSpec& spec, const FloatImage& image) { return edgewise_bench::run_on_cpu(spec, image); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> sigma_s = {1, 2, 4, 8, 16, 32, 64}, sigma_r = {10, 25, 50, 100, 255};
  std::vector<std::string> kernels = {"gaussian", "tukey", "lorentz", "huber"};
  std::vector<std::string> images = {"astronaut.png", "camera.png", "astronaut_noisy.png"};
  std::vector<double> term_counts = {0};
  read_list_flags(argc, argv,
                  {{{"--sigma-s", &sigma_s}, {"--sigma-r", &sigma_r}, {"--terms", &term_counts}},
                   {{"--kernels", &kernels}, {"--images", &images}}},
                  "fourier_accuracy");
  std::vector<FloatImage> photos;
  for (const std::string& name : images) photos.push_back(load(std::string(EDGEWISE_SOURCE_DIR "/tests/data/") + name));

  std::printf("| kernel | sigma-r | sigma-s | N | series error |");
  for (const std::string& name : images) std::printf(" %s dB |", name.c_str());
  std::printf(" worst dB |\n|---|---|---|---|---|");
  for (size_t i = 0; i <= images.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const std::string& kernel : kernels)
    for (double r : sigma_r)
      for (double s : sigma_s) {
        BilateralParameters b;
        b.mode = ColorMode::per_channel;
        b.kernel = edgewise_bench::kernel_named(kernel, "fourier_accuracy");
        b.sigma_s = float(s);
        b.sigma_r = float(r);
        b.radius = int(std::ceil(4.0 * s));
        std::vector<FloatImage> exact;
        for (const FloatImage& photo : photos)
          exact.push_back(b.radius <= 128 ? run(bilateral_spec(b), photo)
                                          : edgewise_bench::exact_wide(photo, b.kernel, s, r, b.radius));
        for (double terms : term_counts) {
          FourierParameters f;
          f.mode = ColorMode::per_channel;
          f.kernel = b.kernel;
          f.sigma_s = float(s);
          f.sigma_r = float(r);
          f.terms = int(terms);
          const FilterSpec fourier = fourier_spec(f);
          const auto plan = make_plan(fourier, photos.front().shape());
          const auto& fp = static_cast<const FourierPlan&>(*plan);
          std::printf("| %s | %g | %g | %d | %.1e |", kernel.c_str(), r, s, fp.params.terms, fp.series_error[0]);
          double worst = INFINITY;
          for (size_t i = 0; i < photos.size(); ++i) {
            const double db = psnr_255(exact[i], run(fourier, photos[i]));
            worst = std::min(worst, db);
            std::printf(" %.1f |", db);
          }
          std::printf(" %.1f |\n", worst);
          std::fflush(stdout);
        }
      }
  return 0;
}
