#include "region_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace edgewise_test {

using edgewise::FilterSpec;
using edgewise::FloatImage;
using edgewise::ImageShape;
using edgewise::ParamInfo;
using edgewise::PixelRect;

void ImageRects::read(const PixelRect& rect, float* dst, size_t row_floats) {
  const size_t channels = size_t(image_.shape().channels);
  for (int y = 0; y < rect.height; ++y)
    std::memcpy(dst + size_t(y) * row_floats, &image_.at(rect.x, rect.y + y, 0),
                size_t(rect.width) * channels * sizeof(float));
}

void ImageRects::write(const PixelRect& rect, const float* src, size_t row_floats) {
  ++writes;
  const size_t channels = size_t(image_.shape().channels);
  for (int y = 0; y < rect.height; ++y)
    std::memcpy(&image_.at(rect.x, rect.y + y, 0), src + size_t(y) * row_floats,
                size_t(rect.width) * channels * sizeof(float));
}

FloatImage nan_image(const ImageShape& shape) {
  FloatImage image(shape);
  std::fill(image.pixels().begin(), image.pixels().end(), std::numeric_limits<float>::quiet_NaN());
  return image;
}

FilterSpec random_spec(std::mt19937_64& rng, const edgewise::FilterInfo& filter) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int attempt = 0; attempt < 50; ++attempt) {
    FilterSpec spec(filter);
    for (const ParamInfo* param : filter.params()) {
      double value;
      if (param->is_enum()) {
        value = std::floor(uniform(rng) * double(param->tokens.size()));
      } else if (param->takes_noise_auto() && uniform(rng) < 0.5) {
        value = edgewise::kNoiseAuto;
      } else {
        const double low = std::max(param->slider_min, param->hard_min);
        const double high = std::max(low, low + (param->slider_max - low) / 4);
        value = low + uniform(rng) * (high - low);
        if (param->is_integer()) value = std::round(value);
      }
      edgewise::set_param(spec, param->cli_flag, std::clamp(value, param->hard_min, param->hard_max));
    }
    if (edgewise::validate(spec).empty()) return spec;
  }
  return FilterSpec(filter);
}

std::vector<PixelRect> test_parts(std::mt19937_64& rng, const ImageShape& shape) {
  const int w = shape.width, h = shape.height;
  auto pick = [&rng](int below) { return int(std::uniform_int_distribution<int>(0, below - 1)(rng)); };
  const int x = pick(w), y = pick(h);
  const int rw = 1 + pick(w - x), rh = 1 + pick(h - y);
  switch (pick(3)) {  // one of the borders' cases
    case 0:
      return {{pick(w), pick(h), 1, 1}, {0, pick(h), w, 1}, {x, y, rw, rh}, {0, 0, w, h}};
    case 1:
      return {{pick(w), 0, 1, h}, {0, 0, std::min(w, 17), std::min(h, 13)}, {x, y, rw, rh}, {0, 0, w, h}};
    default:
      return {{pick(w), pick(h), 1, 1},
              {std::max(0, w - 19), std::max(0, h - 11), std::min(w, 19), std::min(h, 11)},
              {x, y, rw, rh},
              {0, 0, w, h}};
  }
}

double max_difference_in(const FloatImage& a, const FloatImage& b, const PixelRect& part) {
  double worst = 0;
  for (int y = part.y; y < part.bottom(); ++y)
    for (int x = part.x; x < part.right(); ++x)
      for (int c = 0; c < a.shape().channels; ++c) {
        const double d = std::fabs(double(a.at(x, y, c)) - double(b.at(x, y, c)));
        worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
      }
  return worst;
}

bool untouched_outside(const FloatImage& image, const PixelRect& part) {
  for (int y = 0; y < image.shape().height; ++y)
    for (int x = 0; x < image.shape().width; ++x) {
      if (x >= part.x && x < part.right() && y >= part.y && y < part.bottom()) continue;
      for (int c = 0; c < image.shape().channels; ++c)
        if (!std::isnan(image.at(x, y, c))) return false;
    }
  return true;
}

std::string describe(const PixelRect& part) {
  return std::to_string(part.width) + "x" + std::to_string(part.height) + " at " + std::to_string(part.x) + "," +
         std::to_string(part.y);
}

}  // namespace edgewise_test
