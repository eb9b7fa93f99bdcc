// A measurement prototype for issue 14's lead 4, NOT the filter: the
// Fourier bilateral filter with the term images blurred at reduced
// resolution. Per channel, the images cos(w k u) and sin(w k u) at full
// resolution are averaged over s x s blocks, blurred there by the Gaussian
// whose variance plus the block's ((s^2 - 1) / 12) is sigma-s^2, brought
// back by bilinear interpolation and combined with the pixel's own term
// values into D and E as the filter does (fourier.h). Everything in double,
// so what is measured is the approximation alone. It changes what the filter
// computes (the exact window's support and shape), so it is here only to
// say how far it moves the output from the exact filter: PSNR against the
// exact filter at radius ceil(4 sigma-s), as bench/fourier_accuracy measures
// the filter itself (float outputs on the 0-255 scale, borders included),
// beside the filter's own PSNR.
//
// Usage: fourier_reduced_prototype [--sigma-s LIST] [--sigma-r LIST] [--factors LIST] [--kernels LIST]
//                                  [--images LIST]
// (comma-separated; defaults: sigma-s 8,16,32,64, sigma-r 25, factors
// 2,4,8,16 (each where sigma-s / factor >= 2), gaussian, the three photos of
// tests/data)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

FloatImage load(const std::string& path) { return edgewise_bench::load_photo(path, "fourier_reduced_prototype"); }

FloatImage run(const FilterSpec& spec, const FloatImage& image) { return edgewise_bench::run_on_cpu(spec, image); }

struct Plane {
  int width = 0, height = 0;
  std::vector<double> v;
  Plane(int w, int h) : width(w), height(h), v(size_t(w) * size_t(h)) {}
  double& at(int x, int y) { return v[size_t(y) * size_t(width) + size_t(x)]; }
  double at(int x, int y) const { return v[size_t(y) * size_t(width) + size_t(x)]; }
};

// The normalised Gaussian of `sigma` on |n| <= ceil(4 sigma), along rows then
// columns, clamp-to-edge.
Plane gaussian(const Plane& in, double sigma) {
  const int r = std::max(1, int(std::ceil(4.0 * sigma)));
  std::vector<double> taps(size_t(r) + 1);
  double sum = 0.0;
  for (int n = 0; n <= r; ++n) sum += (n ? 2.0 : 1.0) * (taps[size_t(n)] = std::exp(-0.5 * n * n / (sigma * sigma)));
  for (double& t : taps) t /= sum;
  Plane rows(in.width, in.height), out(in.width, in.height);
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) {
      double s = 0.0;
      for (int n = -r; n <= r; ++n) s += taps[size_t(std::abs(n))] * in.at(std::clamp(x + n, 0, in.width - 1), y);
      rows.at(x, y) = s;
    }
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) {
      double s = 0.0;
      for (int n = -r; n <= r; ++n) s += taps[size_t(std::abs(n))] * rows.at(x, std::clamp(y + n, 0, in.height - 1));
      out.at(x, y) = s;
    }
  return out;
}

// Block means over s x s, the Gaussian at the reduced resolution, bilinear
// back; factor 1 is the full-resolution Gaussian itself (the control). The
// reduced grid reaches beyond the image by the reduced window (and the
// interpolation's block), its blocks the means of clamped full-resolution
// samples: clamp-to-edge as the exact filter has it, the edge pixel repeated
// (clamping the reduced grid instead would repeat a block's mean, which at
// sigma-s 64 on a 256-pixel photo weighs half of every border window).
Plane reduced_blur(const Plane& in, double sigma_s, int s) {
  if (s == 1) return gaussian(in, sigma_s);
  const double sigma = std::sqrt(sigma_s * sigma_s - (double(s) * s - 1.0) / 12.0) / s;
  const int pad = int(std::ceil(4.0 * sigma)) + 2;
  const int w = (in.width + s - 1) / s + 2 * pad, h = (in.height + s - 1) / s + 2 * pad;
  Plane low(w, h);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      double sum = 0.0;
      for (int y = (j - pad) * s; y < (j - pad + 1) * s; ++y)
        for (int x = (i - pad) * s; x < (i - pad + 1) * s; ++x)
          sum += in.at(std::clamp(x, 0, in.width - 1), std::clamp(y, 0, in.height - 1));
      low.at(i, j) = sum / (double(s) * s);
    }
  const Plane blurred = gaussian(low, sigma);
  Plane out(in.width, in.height);
  for (int y = 0; y < in.height; ++y) {
    const double fy = (y + 0.5) / s - 0.5 + pad;
    const int j0 = int(std::floor(fy));
    const double ty = fy - j0;
    for (int x = 0; x < in.width; ++x) {
      const double fx = (x + 0.5) / s - 0.5 + pad;
      const int i0 = int(std::floor(fx));
      const double tx = fx - i0;
      out.at(x, y) = (1 - ty) * ((1 - tx) * blurred.at(i0, j0) + tx * blurred.at(i0 + 1, j0)) +
                     ty * ((1 - tx) * blurred.at(i0, j0 + 1) + tx * blurred.at(i0 + 1, j0 + 1));
    }
  }
  return out;
}

// The filter's formula (fourier.h) with the reduced blur, per channel, no alpha.
FloatImage prototype(const FloatImage& image, const FourierPlan& plan, double sigma_s, int s) {
  constexpr double kPi = 3.14159265358979323846;
  const FourierParams& p = plan.params;
  const int width = image.shape().width, height = image.shape().height;
  FloatImage out = image;
  for (int c = 0; c < p.color_channels; ++c) {
    const FourierChannel& ch = p.channel[c];
    Plane u(width, height);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        u.at(x, y) = std::clamp(double(image.at(x, y, c)) * 255.0, double(ch.low), double(ch.high)) - ch.middle;
    Plane d(width, height), e(width, height);
    for (double& v : d.v) v = plan.cosine[plan.coefficient(c, 0)];
    for (int k = 1; k <= p.terms; ++k) {
      const double w = 2.0 * kPi * k / plan.period[c], a = plan.cosine[plan.coefficient(c, k)],
                   b = plan.sine[plan.coefficient(c, k)];
      Plane cs(width, height), sn(width, height);
      for (size_t i = 0; i < u.v.size(); ++i) {
        cs.v[i] = std::cos(w * u.v[i]);
        sn.v[i] = std::sin(w * u.v[i]);
      }
      const Plane cb = reduced_blur(cs, sigma_s, s), sb = reduced_blur(sn, sigma_s, s);
      for (size_t i = 0; i < u.v.size(); ++i) {
        d.v[i] += a * (cs.v[i] * cb.v[i] + sn.v[i] * sb.v[i]);
        e.v[i] += b * (cs.v[i] * sb.v[i] - sn.v[i] * cb.v[i]);
      }
    }
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const double moved = u.at(x, y) + e.at(x, y) / std::max(d.at(x, y), double(p.min_denominator));
        out.at(x, y, c) = float((std::clamp(moved, -double(ch.half_range), double(ch.half_range)) + ch.middle) / 255.0);
      }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> sigma_s = {8, 16, 32, 64}, sigma_r = {25}, factors = {2, 4, 8, 16};
  std::vector<std::string> images = {"astronaut.png", "camera.png", "astronaut_noisy.png"};
  std::vector<std::string> kernels = {"gaussian"};
  read_list_flags(argc, argv,
                  {{{"--sigma-s", &sigma_s}, {"--sigma-r", &sigma_r}, {"--factors", &factors}},
                   {{"--images", &images}, {"--kernels", &kernels}}},
                  "fourier_reduced_prototype");
  std::printf("| photo | kernel | sigma-r | sigma-s | N | filter dB | full-resolution double dB |");
  for (double s : factors) std::printf(" factor %g dB |", s);
  std::printf("\n|---|---|---|---|---|---|---|");
  for (size_t i = 0; i < factors.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const std::string& name : images) {
    const FloatImage photo = load(std::string(EDGEWISE_SOURCE_DIR "/tests/data/") + name);
    for (const std::string& kernel_name : kernels)
      for (double r : sigma_r)
        for (double s : sigma_s) {
          const RangeKernel kernel = edgewise_bench::kernel_named(kernel_name, "fourier_reduced_prototype");
          BilateralParameters b;
          b.mode = ColorMode::per_channel;
          b.kernel = kernel;
          b.sigma_s = float(s);
          b.sigma_r = float(r);
          b.radius = int(std::ceil(4.0 * s));
          const FloatImage exact = b.radius <= 128 ? run(bilateral_spec(b), photo)
                                                   : edgewise_bench::exact_wide(photo, b.kernel, s, r, b.radius);
          FourierParameters f;
          f.kernel = kernel;
          f.sigma_s = float(s);
          f.sigma_r = float(r);
          const FilterSpec spec = fourier_spec(f);
          const auto plan = make_plan(spec, photo.shape());
          const auto& fp = static_cast<const FourierPlan&>(*plan);
          std::printf("| %s | %s | %g | %g | %d | %.1f | %.1f |", name.c_str(), to_string(kernel), r, s,
                      fp.params.terms, psnr_255(exact, run(spec, photo)), psnr_255(exact, prototype(photo, fp, s, 1)));
          for (double factor : factors) {
            if (s / factor < 2.0) {
              std::printf(" - |");
              continue;
            }
            std::printf(" %.1f |", psnr_255(exact, prototype(photo, fp, s, int(factor))));
          }
          std::printf("\n");
          std::fflush(stdout);
        }
  }
  return 0;
}
