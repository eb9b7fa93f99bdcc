// The Fourier benchmarks' photos as float images and their CPU runs:
// tests/data's 8-bit PNGs read by OpenCV (RGB order, 0..1), and the engine
// on the CPU backend into a new image.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "engine.h"
#include "float_image.h"

namespace edgewise_bench {

// Exits with a message naming `tool` where the file cannot be read.
inline edgewise::FloatImage load_photo(const std::string& path, const char* tool) {
  const cv::Mat read = cv::imread(path, cv::IMREAD_UNCHANGED);
  if (read.empty()) {
    std::fprintf(stderr, "%s: cannot read %s\n", tool, path.c_str());
    std::exit(1);
  }
  cv::Mat rgb = read;
  if (read.channels() == 3) cv::cvtColor(read, rgb, cv::COLOR_BGR2RGB);
  edgewise::FloatImage image({rgb.cols, rgb.rows, rgb.channels()});
  for (int y = 0; y < rgb.rows; ++y)
    for (int x = 0; x < rgb.cols; ++x)
      for (int c = 0; c < rgb.channels(); ++c)
        image.at(x, y, c) = float(rgb.ptr<uint8_t>(y)[x * rgb.channels() + c]) / 255.0f;
  return image;
}

inline edgewise::FloatImage run_on_cpu(const edgewise::FilterSpec& spec, const edgewise::FloatImage& image) {
  edgewise::RunOptions options;
  options.backend = "cpu";
  edgewise::FloatImage source = image, output(image.shape());
  edgewise::run_filter(spec, image.shape(), source, output, options);
  return output;
}

}  // namespace edgewise_bench
