#include "nlm_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lab_reference.h"

namespace edgewise_reference {

namespace {

// The noise level function: linear between its points, constant beyond,
// at least 0.5 code values.
double sigma_at(const std::vector<std::pair<double, double>>& points, double intensity, double otherwise) {
  if (points.empty()) return otherwise;
  double sigma = points.back().second;
  if (intensity <= points.front().first) {
    sigma = points.front().second;
  } else {
    for (size_t i = 1; i < points.size(); ++i)
      if (intensity <= points[i].first) {
        const auto& [x0, y0] = points[i - 1];
        const auto& [x1, y1] = points[i];
        sigma = y0 + (intensity - x0) / (x1 - x0) * (y1 - y0);
        break;
      }
  }
  return std::max(sigma, 0.5);
}

// sigma(I)^2 / sigma^2 sampled every 255/32 code values, linear between
// the samples, constant beyond 0 and 255.
double noise_ratio(const NlmSettings& settings, int channel, double intensity) {
  const auto& points = settings.noise_function[size_t(channel)];
  const double step = 255.0 / 32.0, x = std::clamp(intensity / step, 0.0, 32.0);
  const int knot = std::min(int(x), 31);
  auto ratio = [&](int k) {
    const double sigma = sigma_at(points, k * step, settings.noise_sigma);
    return sigma * sigma / (settings.noise_sigma * settings.noise_sigma);
  };
  return ratio(knot) + (x - knot) * (ratio(knot + 1) - ratio(knot));
}

}  // namespace

NlmSettings nlm_auto_settings(NlmSettings settings, bool h_auto, bool sigma_n_auto, bool sigma_r_auto,
                              const std::vector<NoiseChannelInput>& noise, const NlmAutoRule& rule) {
  if (sigma_r_auto) settings.sigma_r = 100000.0;
  std::vector<double> measured;
  for (const NoiseChannelInput& channel : noise)
    if (channel.valid) measured.push_back(channel.sigma);
  std::sort(measured.begin(), measured.end());
  double median = 0;
  if (!measured.empty()) {
    const size_t middle = measured.size() / 2;
    median = measured.size() % 2 ? measured[middle] : 0.5 * (measured[middle - 1] + measured[middle]);
  }
  const double sigma = std::max(median, rule.noise_floor);
  const bool lab = settings.mode == Mode::lab;
  const double in_units = sigma * (lab ? rule.lab_per_code : 1.0);
  if (h_auto) settings.h = rule.h_per_noise * in_units;
  if (sigma_n_auto) settings.sigma_n = rule.sigma_n_per_noise * in_units;
  settings.noise_function.clear();
  if (h_auto && sigma_n_auto && !lab && settings.h > 0 && !measured.empty()) {
    for (const NoiseChannelInput& channel : noise)
      settings.noise_function.push_back(!channel.valid ? std::vector<std::pair<double, double>>{}
                                        : channel.points.empty()
                                            ? std::vector<std::pair<double, double>>{{0.0, channel.sigma}}
                                            : channel.points);
    settings.noise_sigma = sigma;
  }
  return settings;
}

ReferenceImage nlm_reference(const ReferenceImage& input, const NlmSettings& settings) {
  const int width = input.width, height = input.height;
  const bool has_alpha = input.channels == 2 || input.channels == 4;
  const int colors = input.channels >= 3 ? 3 : 1;
  const bool lab = settings.mode == Mode::lab && colors == 3;
  const bool per_channel = settings.mode == Mode::per_channel && colors == 3;
  // Colour in the units distances are measured in: code values, or Lab.
  std::vector<double> work(size_t(width) * size_t(height) * size_t(colors));
  auto at = [&](int x, int y, int c) -> double& {
    x = std::clamp(x, 0, width - 1);
    y = std::clamp(y, 0, height - 1);
    return work[(size_t(y) * size_t(width) + size_t(x)) * size_t(colors) + size_t(c)];
  };
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      if (lab) {
        const double rgb[3] = {input.at(x, y, 0), input.at(x, y, 1), input.at(x, y, 2)};
        double out[3];
        rgb_to_lab(rgb, out);
        for (int c = 0; c < 3; ++c) at(x, y, c) = out[c];
      } else {
        for (int c = 0; c < colors; ++c) at(x, y, c) = 255.0 * input.at(x, y, c);
      }
    }
  auto alpha = [&](int x, int y) {
    return has_alpha ? input.at(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1), input.channels - 1) : 1.0;
  };

  const int S = settings.search_radius, f = settings.patch_radius;
  const int groups = per_channel ? 3 : 1;
  const double patch_count = double((2 * f + 1) * (2 * f + 1)) * (per_channel ? 1 : colors);
  ReferenceImage output = input;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double result[3] = {0, 0, 0};
      for (int g = 0; g < groups; ++g) {
        const int first = per_channel ? g : 0, last = per_channel ? g + 1 : colors;
        double sum[3] = {0, 0, 0}, weight_sum = 0;
        for (int dy = -S; dy <= S; ++dy)
          for (int dx = -S; dx <= S; ++dx) {
            const int qx = x + dx, qy = y + dy;
            double w = alpha(qx, qy);
            if (w == 0.0) continue;
            if (settings.h > 0) {
              double d2 = 0;
              for (int ty = -f; ty <= f; ++ty)
                for (int tx = -f; tx <= f; ++tx)
                  for (int c = first; c < last; ++c) {
                    const double d = at(x + tx, y + ty, c) - at(qx + tx, qy + ty, c);
                    d2 += d * d;
                  }
              d2 /= patch_count;
              if (!settings.noise_function.empty()) {
                // r(p): the mean over the group's channels of the ratio at
                // the channel's mean over p's patch.
                double ratio = 0;
                for (int c = first; c < last; ++c) {
                  double mean = 0;
                  for (int ty = -f; ty <= f; ++ty)
                    for (int tx = -f; tx <= f; ++tx) mean += at(x + tx, y + ty, c);
                  ratio += noise_ratio(settings, c, mean / double((2 * f + 1) * (2 * f + 1)));
                }
                d2 /= ratio / double(last - first);
              }
              const double floor = 2.0 * settings.sigma_n * settings.sigma_n;
              w *= std::exp(-std::max(d2 - floor, 0.0) / (settings.h * settings.h));
            }
            w *= std::exp(-double(dx * dx + dy * dy) / (2.0 * settings.sigma_s * settings.sigma_s));
            if (settings.range_term()) {
              double delta2 = 0;
              for (int c = first; c < last; ++c) {
                const double d = at(x, y, c) - at(qx, qy, c);
                delta2 += d * d;
              }
              w *= range_weight(settings.kernel, std::sqrt(delta2), settings.sigma_r);
            }
            for (int c = first; c < last; ++c) sum[c] += w * at(qx, qy, c);
            weight_sum += w;
          }
        for (int c = first; c < last; ++c) result[c] = weight_sum > 0 ? sum[c] / weight_sum : at(x, y, c);
      }
      if (lab) {
        double rgb[3];
        lab_to_rgb(result, rgb);
        for (int c = 0; c < 3; ++c) output.at(x, y, c) = rgb[c];
      } else {
        for (int c = 0; c < colors; ++c) output.at(x, y, c) = result[c] / 255.0;
      }
    }
  return output;
}

}  // namespace edgewise_reference
