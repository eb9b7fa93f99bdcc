#include "image_quality.h"

#include <cmath>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace edgewise_quality {

double psnr(const cv::Mat& reference, const cv::Mat& test) {
  cv::Mat a, b;
  reference.convertTo(a, CV_64F);
  test.convertTo(b, CV_64F);
  const cv::Mat diff = a - b;
  const cv::Scalar per_channel = cv::sum(diff.mul(diff));
  double squared = 0;
  for (int c = 0; c < a.channels(); ++c) squared += per_channel[c];
  const double mse = squared / double(a.total() * size_t(a.channels()));
  return mse == 0.0 ? INFINITY : 10.0 * std::log10(255.0 * 255.0 / mse);
}

// One channel, as in the paper: local means, variances and covariance under
// the Gaussian window, valid region only.
static double ssim_channel(const cv::Mat& x, const cv::Mat& y) {
  const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
  auto blur = [](const cv::Mat& m) {
    cv::Mat out;
    cv::GaussianBlur(m, out, cv::Size(11, 11), 1.5, 1.5, cv::BORDER_REFLECT);
    return out(cv::Rect(5, 5, m.cols - 10, m.rows - 10)).clone();
  };
  const cv::Mat mx = blur(x), my = blur(y);
  const cv::Mat sxx = blur(x.mul(x)) - mx.mul(mx);
  const cv::Mat syy = blur(y.mul(y)) - my.mul(my);
  const cv::Mat sxy = blur(x.mul(y)) - mx.mul(my);
  cv::Mat numerator = (2 * mx.mul(my) + c1).mul(2 * sxy + c2);
  cv::Mat denominator = (mx.mul(mx) + my.mul(my) + c1).mul(sxx + syy + c2);
  cv::Mat map;
  cv::divide(numerator, denominator, map);
  return cv::mean(map)[0];
}

double ssim(const cv::Mat& reference, const cv::Mat& test) {
  std::vector<cv::Mat> a, b;
  cv::Mat ad, bd;
  reference.convertTo(ad, CV_64F);
  test.convertTo(bd, CV_64F);
  cv::split(ad, a);
  cv::split(bd, b);
  double total = 0;
  for (size_t c = 0; c < a.size(); ++c) total += ssim_channel(a[c], b[c]);
  return total / double(a.size());
}

}  // namespace edgewise_quality
