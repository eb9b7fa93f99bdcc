// The exact bilateral filter where the engine's radius (at most 128) is too
// small, for the Fourier filter's benchmarks at sigma-s 64: per channel,
// clamp-to-edge, every tap of the (2r+1)^2 window, sums in double. Inputs
// are 8-bit photos, so a colour difference is a whole number of code values
// and the range weights are a table.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "bilateral.h"
#include "float_image.h"

namespace edgewise_bench {

inline edgewise::FloatImage exact_wide(const edgewise::FloatImage& image, edgewise::RangeKernel kernel, double sigma_s,
                                       double sigma_r, int radius) {
  using edgewise::RangeKernel;
  const int width = image.shape().width, height = image.shape().height, channels = image.shape().channels;
  std::vector<double> range(511), spatial(size_t(radius) + 1);
  for (int d = -255; d <= 255; ++d) {
    const double x = std::fabs(d) / sigma_r;
    double w = std::exp(-0.5 * x * x);
    if (kernel == RangeKernel::tukey) w = x <= 1.0 ? 0.5 * (1 - x * x) * (1 - x * x) : 0.0;
    if (kernel == RangeKernel::lorentz) w = 2.0 / (2.0 + x * x);
    if (kernel == RangeKernel::huber) w = x <= 1.0 ? 1.0 : 1.0 / x;
    range[size_t(d + 255)] = w;
  }
  for (int n = 0; n <= radius; ++n) spatial[size_t(n)] = std::exp(-double(n) * n / (2.0 * sigma_s * sigma_s));
  std::vector<int> codes(image.pixels().size());
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = int(std::lround(image.pixels()[i] * 255.0f));
  edgewise::FloatImage out(image.shape());
#pragma omp parallel for schedule(dynamic, 1)
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        const int centre = codes[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)];
        double sum = 0.0, weight = 0.0;
        for (int dy = -radius; dy <= radius; ++dy) {
          const int qy = std::clamp(y + dy, 0, height - 1);
          const int* row = &codes[size_t(qy) * size_t(width) * size_t(channels) + size_t(c)];
          const double wy = spatial[size_t(std::abs(dy))];
          for (int dx = -radius; dx <= radius; ++dx) {
            const int q = row[size_t(std::clamp(x + dx, 0, width - 1)) * size_t(channels)];
            const double w = wy * spatial[size_t(std::abs(dx))] * range[size_t(q - centre + 255)];
            sum += w * q;
            weight += w;
          }
        }
        out.at(x, y, c) = float(sum / weight / 255.0);
      }
  return out;
}

}  // namespace edgewise_bench
