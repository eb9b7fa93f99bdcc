// PSNR and SSIM of 8-bit interleaved images, without OpenCV (the device has
// none): every benchmark's scores, bench/quality's too (image_quality.cpp
// hands these its cv::Mat samples), so the peer benchmark's numbers read
// like docs/quality.md's: PSNR over every
// sample of every channel (peak 255); SSIM after Wang, Bovik, Sheikh &
// Simoncelli, "Image quality assessment: from error visibility to
// structural similarity", IEEE TIP 2004: Gaussian window 11 x 11, sigma
// 1.5, K1 = 0.01, K2 = 0.03, L = 255, the map over the window's valid
// region only (no border rule), its mean per channel, then the mean over
// channels. Double precision throughout: the variances are differences of
// large sums.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <vector>

namespace edgewise_bench {

inline double psnr(const uint8_t* reference, const uint8_t* test, size_t samples) {
  double squared = 0;
  for (size_t i = 0; i < samples; ++i) {
    const double d = double(reference[i]) - double(test[i]);
    squared += d * d;
  }
  const double mse = squared / double(samples);
  return mse == 0.0 ? INFINITY : 10.0 * std::log10(255.0 * 255.0 / mse);
}

namespace ssim_detail {

constexpr int kRadius = 5;  // 11 x 11 window

// OpenCV's getGaussianKernel(11, 1.5): exp(-i^2 / (2 sigma^2)), normalised.
inline std::array<double, 2 * kRadius + 1> window() {
  std::array<double, 2 * kRadius + 1> w{};
  double sum = 0;
  for (int i = -kRadius; i <= kRadius; ++i) sum += w[size_t(i + kRadius)] = std::exp(-i * i / (2.0 * 1.5 * 1.5));
  for (double& v : w) v /= sum;
  return w;
}

// One channel: five window means (x, y, xx, yy, xy), rows filtered across
// as they are read and kept in a ring of 11, then down each valid column.
inline double channel(const uint8_t* x, const uint8_t* y, int width, int height, int stride, int channel) {
  const auto w = window();
  const int side = 2 * kRadius + 1, valid_width = width - 2 * kRadius;
  const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
  std::vector<double> ring(size_t(side) * 5 * size_t(valid_width));
  auto across = [&](int row) {  // the row's five horizontal means into its ring slot
    double* slot = ring.data() + size_t(row % side) * 5 * size_t(valid_width);
    const size_t base = size_t(row) * size_t(width);
    for (int i = 0; i < valid_width; ++i) {
      double m[5] = {};
      for (int k = 0; k < side; ++k) {
        const size_t at = (base + size_t(i + k)) * size_t(stride) + size_t(channel);
        const double a = x[at], b = y[at];
        m[0] += w[size_t(k)] * a;
        m[1] += w[size_t(k)] * b;
        m[2] += w[size_t(k)] * a * a;
        m[3] += w[size_t(k)] * b * b;
        m[4] += w[size_t(k)] * a * b;
      }
      for (int s = 0; s < 5; ++s) slot[size_t(s) * size_t(valid_width) + size_t(i)] = m[s];
    }
  };
  double total = 0;
  for (int row = 0; row < side - 1; ++row) across(row);
  for (int centre = kRadius; centre < height - kRadius; ++centre) {
    across(centre + kRadius);
    for (int i = 0; i < valid_width; ++i) {
      double m[5] = {};
      for (int k = 0; k < side; ++k) {
        const double* slot = ring.data() + size_t((centre - kRadius + k) % side) * 5 * size_t(valid_width);
        for (int s = 0; s < 5; ++s) m[s] += w[size_t(k)] * slot[size_t(s) * size_t(valid_width) + size_t(i)];
      }
      const double sxx = m[2] - m[0] * m[0], syy = m[3] - m[1] * m[1], sxy = m[4] - m[0] * m[1];
      total += (2 * m[0] * m[1] + c1) * (2 * sxy + c2) / ((m[0] * m[0] + m[1] * m[1] + c1) * (sxx + syy + c2));
    }
  }
  return total / (double(valid_width) * double(height - 2 * kRadius));
}

}  // namespace ssim_detail

// Images of at least 11 x 11 pixels; the channels on threads of their own.
inline double ssim(const uint8_t* reference, const uint8_t* test, int width, int height, int channels) {
  if (width < 2 * ssim_detail::kRadius + 1 || height < 2 * ssim_detail::kRadius + 1)
    throw std::invalid_argument("SSIM needs an image of at least 11 x 11 pixels");
  std::vector<std::future<double>> per_channel;
  for (int c = 0; c < channels; ++c)
    per_channel.push_back(
        std::async(std::launch::async, ssim_detail::channel, reference, test, width, height, channels, c));
  double total = 0;
  for (std::future<double>& value : per_channel) total += value.get();
  return total / channels;
}

}  // namespace edgewise_bench
