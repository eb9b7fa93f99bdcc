#include "noise_models.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace edgewise_noise {

namespace {

uint8_t to_sample(double value) { return uint8_t(std::clamp<long>(std::lround(value), 0, 255)); }

// BORDER_REFLECT: ... c b a | a b c ... (the edge sample repeated).
int reflect(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - i - 1;
  return i;
}

std::vector<double> gaussian_taps(double sigma) {
  const int count = int(std::lround(8.0 * sigma + 1.0)) | 1;
  std::vector<double> taps(static_cast<size_t>(count));
  double sum = 0;
  for (int i = 0; i < count; ++i) {
    const double x = i - (count - 1) * 0.5;
    taps[size_t(i)] = std::exp(-0.5 / (sigma * sigma) * x * x);
    sum += taps[size_t(i)];
  }
  for (double& t : taps) t /= sum;
  return taps;
}

// Along rows, then along columns, each channel on its own.
void blur(Field& field, double sigma) {
  const std::vector<double> taps = gaussian_taps(sigma);
  const int half = int(taps.size()) / 2, w = field.width, h = field.height, c = field.channels;
  std::vector<double> rows(field.values.size());
  auto at = [&](const std::vector<double>& v, int x, int y, int k) { return v[(size_t(y) * w + x) * c + k]; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        double sum = 0;
        for (int t = -half; t <= half; ++t) sum += taps[size_t(t + half)] * at(field.values, reflect(x + t, w), y, k);
        rows[(size_t(y) * w + x) * c + k] = sum;
      }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        double sum = 0;
        for (int t = -half; t <= half; ++t) sum += taps[size_t(t + half)] * at(rows, x, reflect(y + t, h), k);
        field.values[(size_t(y) * w + x) * c + k] = sum;
      }
}

}  // namespace

NoiseLevel white_level(double sigma) { return {0.0, sigma * sigma}; }

NoiseLevel poisson_gaussian_level(double sigma_at_128) {
  const double floor = 0.09 * sigma_at_128 * sigma_at_128;
  return {(sigma_at_128 * sigma_at_128 - floor) / 128.0, floor};
}

void add_noise(uint8_t* samples, size_t count, const NoiseLevel& level, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (size_t i = 0; i < count; ++i) {
    const double value = samples[i];
    samples[i] = to_sample(value + std::sqrt(level.gain * value + level.floor) * normal(rng));
  }
}

double field_sigma(const Field& field) {
  double sum = 0, squares = 0;
  for (double v : field.values) sum += v;
  const double mean = sum / double(field.values.size());
  for (double v : field.values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / double(field.values.size()));
}

Field correlated_field(int width, int height, int channels, double blur_sigma, double sigma, std::mt19937& rng) {
  std::normal_distribution<double> unit(0.0, 1.0);
  Field field{width, height, channels, std::vector<double>(size_t(width) * height * channels)};
  for (double& v : field.values) v = unit(rng);
  if (blur_sigma > 0) blur(field, blur_sigma);
  const double scale = sigma / field_sigma(field);
  for (double& v : field.values) v *= scale;
  return field;
}

Field ycc_field(int width, int height, double sigma_y, double chroma_blur, ChannelOrder order, std::mt19937& rng) {
  const Field y = correlated_field(width, height, 1, 0, sigma_y, rng);
  const Field cb = correlated_field(width, height, 1, chroma_blur, 2 * sigma_y, rng);
  const Field cr = correlated_field(width, height, 1, chroma_blur, 2 * sigma_y, rng);
  Field out{width, height, 3, std::vector<double>(y.values.size() * 3)};
  const int red = order == ChannelOrder::rgb ? 0 : 2, blue = 2 - red;
  for (size_t i = 0; i < y.values.size(); ++i) {
    const double luma = y.values[i], blue_diff = cb.values[i], red_diff = cr.values[i];
    out.values[3 * i + blue] = luma + 1.772 * blue_diff;
    out.values[3 * i + 1] = luma - 0.344136 * blue_diff - 0.714136 * red_diff;
    out.values[3 * i + red] = luma + 1.402 * red_diff;
  }
  return out;
}

void add_field(uint8_t* samples, const Field& field) {
  for (size_t i = 0; i < field.values.size(); ++i) samples[i] = to_sample(samples[i] + field.values[i]);
}

std::vector<CorrelatedCase> correlated_cases(int width, int height, int channels, ChannelOrder order) {
  std::vector<CorrelatedCase> cases;
  std::mt19937 rng(2026u);
  for (double blur_sigma : {1.0, 2.0})
    for (double sigma : {10.0, 20.0})
      cases.push_back({"blur " + std::to_string(int(blur_sigma)) + " px", sigma,
                       correlated_field(width, height, channels, blur_sigma, sigma, rng)});
  if (channels == 3)
    for (double chroma_blur : {0.0, 2.0})
      for (double sigma_y : {5.0, 10.0}) {
        Field field = ycc_field(width, height, sigma_y, chroma_blur, order, rng);
        char label[64];
        std::snprintf(label, sizeof label, "%s sigma_Y %g", chroma_blur > 0 ? "YCbCr blotches" : "YCbCr", sigma_y);
        const double sigma = std::round(field_sigma(field) * 10) / 10;
        cases.push_back({label, sigma, std::move(field)});
      }
  return cases;
}

}  // namespace edgewise_noise
