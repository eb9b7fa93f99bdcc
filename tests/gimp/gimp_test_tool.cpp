// Helpers for the GIMP tests, reading and writing images with the CLI's own
// I/O (exact about 8/16 bits, which PIL is not for 16-bit RGB):
//   widen IN OUT                 8-bit PNG -> the same values as 16-bit PNG
//   add-alpha IN OUT             RGB -> RGBA with an alpha ramp (64..255), so
//                                alpha really weights the neighbours
//   compare A B TOL [inside|outside X Y W H]
//                                max |A - B| over the region, in 0..1 units
//                                (either file may be 8 or 16 bit), <= TOL
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "image_file.h"

namespace {

using edgewise_cli::DecodedImage;

double sample(const DecodedImage& image, size_t index) {
  if (image.bits == 16) return reinterpret_cast<const uint16_t*>(image.bytes.data())[index] / 65535.0;
  return image.bytes[index] / 255.0;
}

int widen(const std::string& in, const std::string& out) {
  const DecodedImage narrow = edgewise_cli::read_image(in);
  DecodedImage wide = narrow;
  wide.bits = 16;
  wide.allocate();
  auto* samples = reinterpret_cast<uint16_t*>(wide.bytes.data());
  for (size_t i = 0; i < narrow.bytes.size(); ++i) samples[i] = uint16_t(narrow.bytes[i] * 257);
  edgewise_cli::write_png(out, wide);
  return 0;
}

int add_alpha(const std::string& in, const std::string& out) {
  const DecodedImage rgb = edgewise_cli::read_image(in);
  if (rgb.channels != 3 || rgb.bits != 8) throw std::runtime_error(in + ": expected 8-bit RGB");
  DecodedImage rgba = rgb;
  rgba.channels = 4;
  rgba.allocate();
  for (int y = 0; y < rgb.height; ++y)
    for (int x = 0; x < rgb.width; ++x) {
      const size_t from = (size_t(y) * rgb.width + x) * 3, to = (size_t(y) * rgb.width + x) * 4;
      for (int c = 0; c < 3; ++c) rgba.bytes[to + c] = rgb.bytes[from + c];
      rgba.bytes[to + 3] = uint8_t(64 + (x * 7 + y * 3) % 192);
    }
  edgewise_cli::write_png(out, rgba);
  return 0;
}

int compare(int argc, char** argv) {
  const DecodedImage a = edgewise_cli::read_image(argv[2]), b = edgewise_cli::read_image(argv[3]);
  const double tolerance = std::atof(argv[4]);
  if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
    std::fprintf(stderr, "%s is %dx%dx%d, %s is %dx%dx%d\n", argv[2], a.width, a.height, a.channels, argv[3], b.width,
                 b.height, b.channels);
    return 1;
  }
  const std::string where = argc > 5 ? argv[5] : "all";
  int rx = 0, ry = 0, rw = a.width, rh = a.height;
  if (where != "all") {
    if (argc != 10) throw std::runtime_error("inside|outside needs X Y W H");
    rx = std::atoi(argv[6]), ry = std::atoi(argv[7]), rw = std::atoi(argv[8]), rh = std::atoi(argv[9]);
  }
  double worst = 0;
  int worst_x = 0, worst_y = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const bool inside = x >= rx && x < rx + rw && y >= ry && y < ry + rh;
      if (where != "all" && inside != (where == "inside")) continue;
      for (int c = 0; c < a.channels; ++c) {
        const size_t index = (size_t(y) * a.width + x) * a.channels + c;
        const double difference = std::fabs(sample(a, index) - sample(b, index));
        if (difference > worst) worst = difference, worst_x = x, worst_y = y;
      }
    }
  std::printf("%s vs %s (%s): max difference %.3g = %.3f/255 = %.2f/65535 at (%d,%d), tolerance %.3g\n", argv[2],
              argv[3], where.c_str(), worst, worst * 255, worst * 65535, worst_x, worst_y, tolerance);
  return worst <= tolerance ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "widen" && argc == 4) return widen(argv[2], argv[3]);
    if (command == "add-alpha" && argc == 4) return add_alpha(argv[2], argv[3]);
    if (command == "compare" && argc >= 5) return compare(argc, argv);
    std::fprintf(stderr, "usage: see the comment at the top of gimp_test_tool.cpp\n");
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gimp_test_tool: %s\n", error.what());
    return 1;
  }
}
