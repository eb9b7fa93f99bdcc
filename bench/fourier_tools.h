// What the Fourier filter's accuracy tools share (fourier_accuracy,
// fourier_reduced_prototype): tests/data's 8-bit PNGs as float images
// (OpenCV, RGB order, 0..1), the engine on the CPU backend into a new
// image, the PSNR on the 0-255 scale, and their comma-separated options.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bilateral.h"
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

// PSNR over every sample, float outputs on the 0-255 scale (no rounding).
inline double psnr_255(const edgewise::FloatImage& a, const edgewise::FloatImage& b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.pixels().size(); ++i) {
    const double d = 255.0 * (double(a.pixels()[i]) - double(b.pixels()[i]));
    sum += d * d;
  }
  const double mse = sum / double(a.pixels().size());
  return mse > 0.0 ? 10.0 * std::log10(255.0 * 255.0 / mse) : INFINITY;
}

inline std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

inline std::vector<double> number_list(const std::string& text) {
  std::vector<double> values;
  for (const std::string& item : comma_list(text)) values.push_back(std::atof(item.c_str()));
  return values;
}

// The tools' options, "--flag a,b,c" pairs, each flag setting a list of
// numbers or of words. Exits (status 2) with a message naming `tool` for a
// flag it does not know.
struct ListFlags {
  std::vector<std::pair<std::string, std::vector<double>*>> numbers;
  std::vector<std::pair<std::string, std::vector<std::string>*>> words;
};
inline void read_list_flags(int argc, char** argv, const ListFlags& flags, const char* tool) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    bool known = false;
    for (const auto& [name, list] : flags.numbers) {
      if (flag != name) continue;
      *list = number_list(value);
      known = true;
    }
    for (const auto& [name, list] : flags.words) {
      if (flag != name) continue;
      *list = comma_list(value);
      known = true;
    }
    if (!known) {
      std::fprintf(stderr, "%s: unknown option %s\n", tool, flag.c_str());
      std::exit(2);
    }
  }
}

// Exits with a message naming `tool` for a name that is no range kernel.
inline edgewise::RangeKernel kernel_named(const std::string& name, const char* tool) {
  for (int k = 0; k < 4; ++k)
    if (name == to_string(edgewise::RangeKernel(k))) return edgewise::RangeKernel(k);
  std::fprintf(stderr, "%s: unknown kernel %s\n", tool, name.c_str());
  std::exit(2);
}

}  // namespace edgewise_bench
