// Helpers for the GIMP and dialog tests, reading and writing images with the
// CLI's own I/O (exact about 8/16 bits, which PIL is not for 16-bit RGB):
//   widen IN OUT                 8-bit PNG -> the same values as 16-bit PNG
//   add-alpha IN OUT             RGB -> RGBA with an alpha ramp (64..255), so
//                                alpha really weights the neighbours
//   compare A B TOL [inside|outside X Y W H]
//                                max |A - B| over the region, in 0..1 units
//                                (either file may be 8 or 16 bit), <= TOL
//   preview SHOT "TRACE LINE" EXPECTED TOL
//                                the dialog's preview in a screenshot of the
//                                X screen against EXPECTED (the image it
//                                should show, whole): the trace line says
//                                where the preview is on the screen, which
//                                image pixels it shows and how magnified;
//                                max difference in 8-bit code values <= TOL
//   differ A B X Y W H MIN       mean |A - B| over a rectangle of two
//                                screenshots, in 8-bit code values, >= MIN
//   reference IN OUT MODE SIGMA_S RADIUS SIGMA_R ITERATIONS perceptual|linear
//                                the double-precision bilateral reference
//                                (tests/reference, gaussian kernel) of an 8-
//                                or 16-bit PNG, written as 16 bits: in the
//                                linear working space it decodes, filters and
//                                encodes linear light itself
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "image_file.h"
#include "reference/bilateral_reference.h"

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

// "key=a,b,c,d" from a trace line.
std::vector<int> trace_numbers(const std::string& line, const std::string& key) {
  const size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) throw std::runtime_error("trace line has no " + key + "=");
  std::vector<int> numbers;
  const char* p = line.c_str() + at + key.size() + 2;
  for (;;) {
    char* end = nullptr;
    numbers.push_back(int(std::strtol(p, &end, 10)));
    if (*end != ',') break;
    p = end + 1;
  }
  return numbers;
}

// An 8-bit code value of an image at (x, y), channel c of its colour (grey
// repeats), whatever its depth.
int code_value(const DecodedImage& image, int x, int y, int c) {
  const int colour = image.channels >= 3 ? c : 0;
  const size_t index = (size_t(y) * image.width + x) * image.channels + colour;
  return int(std::lround(sample(image, index) * 255));
}

int preview(char** argv) {
  const DecodedImage shot = edgewise_cli::read_image(argv[2]), expected = edgewise_cli::read_image(argv[4]);
  const std::string line = argv[3];
  const int tolerance = std::atoi(argv[5]);
  const std::vector<int> visible = trace_numbers(line, "visible"), screen = trace_numbers(line, "screen");
  const int magnify = trace_numbers(line, "magnify").at(0);
  if (visible.size() != 4 || screen.size() != 4) throw std::runtime_error("bad visible= or screen= in the trace line");
  if (expected.channels == 2 || expected.channels == 4)
    throw std::runtime_error("preview checks need an opaque image (the preview draws alpha over checks)");
  int worst = 0, worst_x = 0, worst_y = 0;
  for (int sy = 0; sy < screen[3]; ++sy)
    for (int sx = 0; sx < screen[2]; ++sx) {
      const int x = visible[0] + sx / magnify, y = visible[1] + sy / magnify;
      if (screen[0] + sx >= shot.width || screen[1] + sy >= shot.height || x >= expected.width || y >= expected.height)
        throw std::runtime_error("the trace's rectangles lie outside the images");
      for (int c = 0; c < 3; ++c) {
        const int difference =
            std::abs(code_value(shot, screen[0] + sx, screen[1] + sy, c) - code_value(expected, x, y, c));
        if (difference > worst) worst = difference, worst_x = x, worst_y = y;
      }
    }
  std::printf(
      "preview of %d x %d image pixels (x%d) at screen %d,%d vs %s: max difference %d code values at image "
      "(%d,%d), tolerance %d\n",
      screen[2] / magnify, screen[3] / magnify, magnify, screen[0], screen[1], argv[4], worst, worst_x, worst_y,
      tolerance);
  return worst <= tolerance ? 0 : 1;
}

int differ(char** argv) {
  const DecodedImage a = edgewise_cli::read_image(argv[2]), b = edgewise_cli::read_image(argv[3]);
  const int x0 = std::atoi(argv[4]), y0 = std::atoi(argv[5]), w = std::atoi(argv[6]), h = std::atoi(argv[7]);
  const double minimum = std::atof(argv[8]);
  if (w < 1 || h < 1 || x0 < 0 || y0 < 0 || x0 + w > std::min(a.width, b.width) ||
      y0 + h > std::min(a.height, b.height))
    throw std::runtime_error("rectangle outside the screenshots");
  double total = 0;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      for (int c = 0; c < 3; ++c) total += std::abs(code_value(a, x, y, c) - code_value(b, x, y, c));
  const double mean = total / (double(w) * h * 3);
  std::printf("%s vs %s over %dx%d at %d,%d: mean difference %.3f code values, required at least %.3f\n", argv[2],
              argv[3], w, h, x0, y0, mean, minimum);
  return mean >= minimum ? 0 : 1;
}

int reference(char** argv) {
  const DecodedImage in = edgewise_cli::read_image(argv[2]);
  edgewise_reference::ReferenceImage image{in.width, in.height, in.channels, {}};
  image.samples.resize(size_t(in.width) * size_t(in.height) * size_t(in.channels));
  for (size_t i = 0; i < image.samples.size(); ++i) image.samples[i] = sample(in, i);
  edgewise_reference::BilateralSettings settings;
  const std::string mode = argv[4], space = argv[9];
  settings.mode = mode == "lab"           ? edgewise_reference::Mode::lab
                  : mode == "per-channel" ? edgewise_reference::Mode::per_channel
                                          : edgewise_reference::Mode::rgb;
  settings.sigma_s = std::atof(argv[5]);
  settings.radius = std::atoi(argv[6]);
  settings.sigma_r = std::atof(argv[7]);
  settings.iterations = std::atoi(argv[8]);
  if (space != "linear" && space != "perceptual") throw std::runtime_error("expected perceptual or linear");
  settings.linear = space == "linear";
  const edgewise_reference::ReferenceImage filtered = edgewise_reference::bilateral_reference(image, settings);
  DecodedImage out;
  out.width = in.width;
  out.height = in.height;
  out.channels = in.channels;
  out.bits = 16;
  out.allocate();
  auto* samples = reinterpret_cast<uint16_t*>(out.bytes.data());
  for (size_t i = 0; i < filtered.samples.size(); ++i)
    samples[i] = uint16_t(std::lround(std::clamp(filtered.samples[i], 0.0, 1.0) * 65535));
  edgewise_cli::write_png(argv[3], out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "widen" && argc == 4) return widen(argv[2], argv[3]);
    if (command == "add-alpha" && argc == 4) return add_alpha(argv[2], argv[3]);
    if (command == "compare" && argc >= 5) return compare(argc, argv);
    if (command == "preview" && argc == 6) return preview(argv);
    if (command == "differ" && argc == 9) return differ(argv);
    if (command == "reference" && argc == 10) return reference(argv);
    std::fprintf(stderr, "usage: see the comment at the top of image_test_tool.cpp\n");
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "image_test_tool: %s\n", error.what());
    return 1;
  }
}
