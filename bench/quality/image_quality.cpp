#include "image_quality.h"

#include <stdexcept>

#include "../peers/image_scores.h"

namespace edgewise_quality {

// The definitions are bench/peers/image_scores.h's (written without OpenCV
// for the GPU machine); these hand them a cv::Mat's packed 8-bit samples.
namespace {

cv::Mat packed(const cv::Mat& image) {
  if (image.depth() != CV_8U) throw std::invalid_argument("PSNR and SSIM take 8-bit images");
  return image.isContinuous() ? image : image.clone();
}

}  // namespace

double psnr(const cv::Mat& reference, const cv::Mat& test) {
  const cv::Mat a = packed(reference), b = packed(test);
  return edgewise_bench::psnr(a.data, b.data, a.total() * size_t(a.channels()));
}

double ssim(const cv::Mat& reference, const cv::Mat& test) {
  const cv::Mat a = packed(reference), b = packed(test);
  return edgewise_bench::ssim(a.data, b.data, a.cols, a.rows, a.channels());
}

}  // namespace edgewise_quality
