// PSNR and SSIM (Wang, Bovik, Sheikh & Simoncelli, "Image quality
// assessment: from error visibility to structural similarity", IEEE TIP
// 2004: Gaussian window 11x11, sigma 1.5, K1 = 0.01, K2 = 0.03, L = 255).
// Colour images: the mean over channels.
#pragma once

#include <opencv2/core.hpp>

namespace edgewise_quality {

double psnr(const cv::Mat& reference, const cv::Mat& test);  // 8-bit, same size and channels
double ssim(const cv::Mat& reference, const cv::Mat& test);

}  // namespace edgewise_quality
