#include "fourier_reference.h"

#include <algorithm>
#include <cmath>

#include "lab_reference.h"

namespace edgewise_reference {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool has_alpha(const ReferenceImage& image) { return image.channels == 2 || image.channels == 4; }

// The colour planes in working units: code values, or L*a*b*.
std::vector<double> working(const ReferenceImage& input, bool lab) {
  const int colors = input.channels >= 3 ? 3 : 1;
  std::vector<double> work(size_t(input.width) * size_t(input.height) * size_t(colors));
  for (int y = 0; y < input.height; ++y)
    for (int x = 0; x < input.width; ++x) {
      double* to = &work[(size_t(y) * size_t(input.width) + size_t(x)) * size_t(colors)];
      if (lab) {
        const double rgb[3] = {input.at(x, y, 0), input.at(x, y, 1), input.at(x, y, 2)};
        rgb_to_lab(rgb, to);
      } else {
        for (int c = 0; c < colors; ++c) to[c] = 255.0 * input.at(x, y, c);
      }
    }
  return work;
}

// Working values back into the output image's colour channels.
void store(ReferenceImage& output, int x, int y, const double* value, bool lab) {
  if (lab) {
    double rgb[3];
    lab_to_rgb(value, rgb);
    for (int c = 0; c < 3; ++c) output.at(x, y, c) = rgb[c];
  } else {
    for (int c = 0; c < (output.channels >= 3 ? 3 : 1); ++c) output.at(x, y, c) = value[c] / 255.0;
  }
}

// Along one axis, the weight of each sample position q (0 .. length - 1)
// for the pixel at p: the window's weights of the virtual positions summed
// onto the sample that clamp-to-edge makes of them.
struct AxisWeights {
  int length = 0;
  std::vector<double> weights;  // length x length
  std::vector<int> first, last;  // per p, the nonzero weights' q range
  double at(int p, int q) const { return weights[size_t(p) * size_t(length) + size_t(q)]; }
  void find_ranges() {
    for (int p = 0; p < length; ++p) {
      int lo = length, hi = -1;
      for (int q = 0; q < length; ++q)
        if (at(p, q) != 0.0) {
          lo = std::min(lo, q);
          hi = q;
        }
      first.push_back(lo);
      last.push_back(hi);
    }
  }
};

AxisWeights axis_weights(const FourierSettings& settings, int length) {
  AxisWeights axis;
  axis.length = length;
  axis.weights.assign(size_t(length) * size_t(length), 0.0);
  auto add = [&](int p, int q, double w) {
    axis.weights[size_t(p) * size_t(length) + size_t(std::clamp(q, 0, length - 1))] += w;
  };
  if (settings.coarse_step <= 1) {
    const int radius = int(settings.spatial.size()) - 1;
    for (int p = 0; p < length; ++p)
      for (int d = -radius; d <= radius; ++d) add(p, p + d, settings.spatial[size_t(std::abs(d))]);
    axis.find_ranges();
    return axis;
  }
  const int s = settings.coarse_step, radius = int(settings.coarse_taps.size()) - 1;
  for (int p = 0; p < length; ++p) {
    const double position = (p + 0.5) / s - 0.5;
    const int left = int(std::floor(position));
    const double t = position - left;
    for (int c = left; c <= left + 1; ++c)
      for (int cell = c - radius; cell <= c + radius; ++cell)
        for (int q = cell * s; q < cell * s + s; ++q)
          add(p, q, (c == left ? 1.0 - t : t) * settings.coarse_taps[size_t(std::abs(c - cell))] / s);
  }
  axis.find_ranges();
  return axis;
}

}  // namespace

std::vector<double> fourier_axis_window(const FourierSettings& settings, int length) {
  return axis_weights(settings, length).weights;
}

ReferenceImage fourier_reference(const ReferenceImage& input, const FourierSettings& settings) {
  const int width = input.width, height = input.height, colors = input.channels >= 3 ? 3 : 1;
  const bool lab = settings.mode == Mode::lab && colors == 3;
  const std::vector<double> work = working(input, lab);
  const AxisWeights across = axis_weights(settings, width), down = axis_weights(settings, height);
  auto centred = [&](int x, int y, int c) {
    const FourierChannelSeries& s = settings.channels[size_t(c)];
    x = std::clamp(x, 0, width - 1);
    y = std::clamp(y, 0, height - 1);
    const double v = work[(size_t(y) * size_t(width) + size_t(x)) * size_t(colors) + size_t(c)];
    return std::clamp(v, s.low, s.high) - 0.5 * (s.low + s.high);
  };
  auto alpha = [&](int x, int y) {
    return has_alpha(input) ? input.at(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1), input.channels - 1)
                            : 1.0;
  };
  ReferenceImage output = input;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double result[3];
      for (int c = 0; c < colors; ++c) {
        const FourierChannelSeries& s = settings.channels[size_t(c)];
        const double up = centred(x, y, c), omega = 2.0 * kPi / s.period;
        double D = 0.0, E = 0.0, A = 0.0;
        for (int qy = down.first[size_t(y)]; qy <= down.last[size_t(y)]; ++qy)
          for (int qx = across.first[size_t(x)]; qx <= across.last[size_t(x)]; ++qx) {
            const double w = across.at(x, qx) * down.at(y, qy) * alpha(qx, qy);
            if (w == 0.0) continue;
            const double difference = centred(qx, qy, c) - up;
            double even = 0.0, odd = 0.0;
            for (size_t k = 0; k < s.cosine.size(); ++k) {
              even += s.cosine[k] * std::cos(omega * double(k) * difference);
              odd += s.sine[k] * std::sin(omega * double(k) * difference);
            }
            D += w * even;
            E += w * odd;
            A += w;
          }
        const double half = 0.5 * (s.high - s.low);
        const double least = std::max(settings.min_denominator * A, settings.denominator_floor);
        result[c] = std::clamp(up + E / std::max(D, least), -half, half) + 0.5 * (s.low + s.high);
      }
      store(output, x, y, result, lab);
    }
  return output;
}

ReferenceImage lab_channels_bilateral_reference(const ReferenceImage& input, const BilateralSettings& settings) {
  const int width = input.width, height = input.height;
  const bool lab = input.channels >= 3;
  const int colors = lab ? 3 : 1;
  const std::vector<double> work = working(input, lab);
  const int r = reference_radius(settings);
  ReferenceImage output = input;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double result[3];
      for (int c = 0; c < colors; ++c) {
        const double centre = work[(size_t(y) * size_t(width) + size_t(x)) * size_t(colors) + size_t(c)];
        double sum = 0.0, weight_sum = 0.0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int qx = std::clamp(x + dx, 0, width - 1), qy = std::clamp(y + dy, 0, height - 1);
            const double value = work[(size_t(qy) * size_t(width) + size_t(qx)) * size_t(colors) + size_t(c)];
            const double w = std::exp(-double(dx * dx + dy * dy) / (2.0 * settings.sigma_s * settings.sigma_s)) *
                             range_weight(settings.kernel, value - centre, settings.sigma_r) *
                             (has_alpha(input) ? input.at(qx, qy, input.channels - 1) : 1.0);
            sum += w * value;
            weight_sum += w;
          }
        result[c] = weight_sum > 0.0 ? sum / weight_sum : centre;
      }
      store(output, x, y, result, lab);
    }
  return output;
}

}  // namespace edgewise_reference
