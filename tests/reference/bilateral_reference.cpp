#include "bilateral_reference.h"

#include <algorithm>
#include <cmath>

#include "lab_reference.h"

namespace edgewise_reference {
namespace {

// Colour planes of one pass in the units the distance is measured in:
// code values (0..255) for per-channel, rgb and grey (of linear light in the
// linear working space), Lab for lab.
struct WorkingImage {
  int width, height, colors;
  std::vector<double> values;  // width * height * colors
  double at(int x, int y, int c) const {
    return values[(size_t(y) * size_t(width) + size_t(x)) * size_t(colors) + size_t(c)];
  }
};

bool uses_lab(const BilateralSettings& settings, int colors) { return settings.mode == Mode::lab && colors == 3; }

bool uses_linear(const BilateralSettings& settings, int colors) {
  return settings.linear && !uses_lab(settings, colors);
}

WorkingImage to_working(const ReferenceImage& image, int colors, bool lab, bool linear) {
  WorkingImage work{image.width, image.height, colors, {}};
  work.values.resize(size_t(image.width) * size_t(image.height) * size_t(colors));
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      double* dst = &work.values[(size_t(y) * size_t(image.width) + size_t(x)) * size_t(colors)];
      if (lab) {
        const double rgb[3] = {image.at(x, y, 0), image.at(x, y, 1), image.at(x, y, 2)};
        rgb_to_lab(rgb, dst);
      } else {
        for (int c = 0; c < colors; ++c)
          dst[c] = 255.0 * (linear ? srgb_to_linear(image.at(x, y, c)) : image.at(x, y, c));
      }
    }
  return work;
}

// w(p,q) for colour channel c (per-channel mode) or for all channels.
double tap_weight(const ReferenceImage& input, const WorkingImage& work, const BilateralSettings& settings,
                  bool per_channel, int x, int y, int dx, int dy, int c, double sigma_r) {
  const int qx = std::clamp(x + dx, 0, input.width - 1), qy = std::clamp(y + dy, 0, input.height - 1);
  const bool has_alpha = input.channels == 2 || input.channels == 4;
  const double spatial = std::exp(-double(dx * dx + dy * dy) / (2.0 * settings.sigma_s * settings.sigma_s));
  const double alpha = has_alpha ? input.at(qx, qy, input.channels - 1) : 1.0;
  double d2 = 0.0;
  for (int k = per_channel ? c : 0; k < (per_channel ? c + 1 : work.colors); ++k) {
    const double diff = work.at(qx, qy, k) - work.at(x, y, k);
    d2 += diff * diff;
  }
  return spatial * range_weight(settings.kernel, std::sqrt(d2), sigma_r) * alpha;
}

// d(p,q)^2 in the working units for channel c (per-channel) or all channels.
double distance2(const WorkingImage& work, bool per_channel, int x, int y, int qx, int qy, int c) {
  double d2 = 0.0;
  for (int k = per_channel ? c : 0; k < (per_channel ? c + 1 : work.colors); ++k) {
    const double diff = work.at(qx, qy, k) - work.at(x, y, k);
    d2 += diff * diff;
  }
  return d2;
}

// The adaptive filter's sigma_r' for pixel (x, y), channel group c, in the
// units of settings.sigma_r.
double adaptive_sigma_r(const ReferenceImage& input, const WorkingImage& work, const BilateralSettings& settings,
                        bool per_channel, bool lab, int x, int y, int c) {
  const int r = reference_radius(settings);
  const double unit = lab ? 100.0 : 255.0;  // working units per normalized unit
  double weighted = 0.0, total = 0.0;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const int qx = std::clamp(x + dx, 0, input.width - 1), qy = std::clamp(y + dy, 0, input.height - 1);
      const double w = tap_weight(input, work, settings, per_channel, x, y, dx, dy, c, settings.sigma_r);
      weighted += w * distance2(work, per_channel, x, y, qx, qy, c) / (unit * unit);
      total += w;
    }
  const double v = total > 0.0 ? weighted / total : 0.0;
  const double sigma =
      std::clamp(settings.adapt_k * (std::sqrt(v) + settings.adapt_eps), settings.adapt_min, settings.adapt_max);
  return sigma * unit;
}

ReferenceImage one_pass(const ReferenceImage& input, const BilateralSettings& settings) {
  const int width = input.width, height = input.height;
  const int colors = input.channels >= 3 ? 3 : 1;
  const bool lab = uses_lab(settings, colors);
  const bool per_channel = settings.mode == Mode::per_channel && colors == 3;
  const int r = reference_radius(settings);
  const bool linear = uses_linear(settings, colors);
  const WorkingImage work = to_working(input, colors, lab, linear);

  ReferenceImage output = input;  // alpha, and values of zero-weight windows
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double sum[3] = {0, 0, 0}, weight_sum[3] = {0, 0, 0};
      double sigma_r[3] = {settings.sigma_r, settings.sigma_r, settings.sigma_r};
      if (settings.adaptive)
        for (int c = 0; c < (per_channel ? colors : 1); ++c)
          sigma_r[c] = adaptive_sigma_r(input, work, settings, per_channel, lab, x, y, c);
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          const int qx = std::clamp(x + dx, 0, width - 1), qy = std::clamp(y + dy, 0, height - 1);
          double joint_weight = 0.0;
          if (!per_channel) joint_weight = tap_weight(input, work, settings, false, x, y, dx, dy, 0, sigma_r[0]);
          for (int c = 0; c < colors; ++c) {
            const double w =
                per_channel ? tap_weight(input, work, settings, true, x, y, dx, dy, c, sigma_r[c]) : joint_weight;
            sum[c] += w * work.at(qx, qy, c);
            weight_sum[c] += w;
          }
        }

      if (lab) {
        if (weight_sum[0] > 0.0) {
          const double filtered[3] = {sum[0] / weight_sum[0], sum[1] / weight_sum[1], sum[2] / weight_sum[2]};
          double rgb[3];
          lab_to_rgb(filtered, rgb);
          for (int c = 0; c < 3; ++c) output.at(x, y, c) = rgb[c];
        }
      } else {
        for (int c = 0; c < colors; ++c)
          if (weight_sum[c] > 0.0) {
            const double filtered = sum[c] / weight_sum[c] / 255.0;
            output.at(x, y, c) = linear ? linear_to_srgb(filtered) : filtered;
          }
      }
    }
  return output;
}

}  // namespace

int reference_radius(const BilateralSettings& settings) {
  return settings.radius > 0 ? settings.radius : int(std::ceil(2.0 * settings.sigma_s));
}

double range_weight(Kernel kernel, double distance, double sigma_r) {
  const double x = std::fabs(distance) / sigma_r;
  switch (kernel) {
    case Kernel::gaussian:
      return std::exp(-0.5 * x * x);
    case Kernel::tukey:
      return x <= 1.0 ? 0.5 * (1.0 - x * x) * (1.0 - x * x) : 0.0;
    case Kernel::lorentz:
      return 2.0 / (2.0 + x * x);
    case Kernel::huber:
      return x <= 1.0 ? 1.0 : 1.0 / x;
  }
  return 0.0;
}

WindowWeights window_weights(const ReferenceImage& input, const BilateralSettings& settings, int x, int y,
                             int channel) {
  const int colors = input.channels >= 3 ? 3 : 1;
  const bool per_channel = settings.mode == Mode::per_channel && colors == 3;
  const WorkingImage work = to_working(input, colors, uses_lab(settings, colors), uses_linear(settings, colors));
  const int r = reference_radius(settings);
  WindowWeights weights;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const double w =
          tap_weight(input, work, settings, per_channel, x, y, dx, dy, std::min(channel, colors - 1), settings.sigma_r);
      weights.sum += w;
      weights.largest = std::max(weights.largest, w);
    }
  return weights;
}

ReferenceImage bilateral_reference(const ReferenceImage& input, const BilateralSettings& settings) {
  ReferenceImage image = input;
  for (int pass = 0; pass < settings.iterations; ++pass) image = one_pass(image, settings);
  return image;
}

ReferenceImage adaptive_sigma_reference(const ReferenceImage& input, const BilateralSettings& settings) {
  const int colors = input.channels >= 3 ? 3 : 1;
  const bool lab = uses_lab(settings, colors);
  const bool per_channel = settings.mode == Mode::per_channel && colors == 3;
  const double unit = lab ? 100.0 : 255.0;
  const WorkingImage work = to_working(input, colors, lab, uses_linear(settings, colors));
  ReferenceImage sigma{input.width, input.height, per_channel ? 3 : 1, {}};
  sigma.samples.resize(size_t(sigma.width) * size_t(sigma.height) * size_t(sigma.channels));
  for (int y = 0; y < input.height; ++y)
    for (int x = 0; x < input.width; ++x)
      for (int c = 0; c < sigma.channels; ++c)
        sigma.at(x, y, c) =
            adaptive_sigma_r(input, work, settings, per_channel, lab, x, y, c) / unit / settings.adapt_max;
  return sigma;
}

}  // namespace edgewise_reference
