// The camera pipeline of camera_pipeline.h: unprocess, sensor noise,
// develop (Brooks et al. 2019), with three demosaicers and libjpeg.
#include "camera_pipeline.h"

#include <jpeglib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace edgewise_quality {

namespace {

using Matrix = std::array<std::array<double, 3>, 3>;

// dcraw's adobe_coeff: XYZ (D65) to camera, times 10000.
struct Camera {
  const char* name;
  int xyz_to_camera[9];
};
const Camera kCameras[] = {
    {"Canon EOS 5D Mark II", {4716, 603, -830, -7798, 15474, 2480, -1496, 1937, 6651}},
    {"Nikon D700", {8139, -2171, -663, -8747, 16541, 2295, -1925, 2008, 8093}},
    {"Sony ILCE-7", {5271, -712, -347, -6153, 13653, 2763, -1601, 2366, 7242}},
};
constexpr int kCameraCount = int(sizeof kCameras / sizeof kCameras[0]);

// sRGB (D65) to XYZ, IEC 61966-2-1.
const Matrix kSrgbToXyz = {{{0.4124564, 0.3575761, 0.1804375},
                            {0.2126729, 0.7151522, 0.0721750},
                            {0.0193339, 0.1191920, 0.9503041}}};

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[i][j] += a[i][k] * b[k][j];
  return c;
}

Matrix inverse(const Matrix& m) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  Matrix r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      r[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
    }
  return r;
}

// Linear sRGB to camera RGB: Brooks et al.'s rgb2cam, rows summing to one
// so that white stays white before the white balance.
Matrix srgb_to_camera(int camera) {
  Matrix xyz_to_camera{};
  for (int i = 0; i < 9; ++i) xyz_to_camera[i / 3][i % 3] = kCameras[camera].xyz_to_camera[i] / 10000.0;
  Matrix m = multiply(xyz_to_camera, kSrgbToXyz);
  for (auto& row : m) {
    const double sum = row[0] + row[1] + row[2];
    for (double& value : row) value /= sum;
  }
  return m;
}

double srgb_decode(double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); }
double srgb_encode(double v) { return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055; }
// The camera's tone curve (Brooks et al.: a smoothstep) and its inverse.
double smoothstep(double v) { return v * v * (3 - 2 * v); }
double inverse_smoothstep(double v) { return 0.5 - std::sin(std::asin(1 - 2 * v) / 3); }

// Developed linear values (any range) to an 8-bit code value.
uint8_t encode8(double linear) {
  const double v = smoothstep(srgb_encode(std::clamp(linear, 0.0, 1.0)));
  return uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255));
}
double decode8(uint8_t code) { return srgb_decode(inverse_smoothstep(code / 255.0)); }

// RGGB: the colour a site records (0 R, 1 G, 2 B).
int bayer(int x, int y) { return (y & 1) == 0 ? ((x & 1) == 0 ? 0 : 1) : ((x & 1) == 0 ? 1 : 2); }

// A mosaic read with mirrored borders (reflect-101 keeps the Bayer phase).
struct Mosaic {
  int width, height;
  std::vector<double> values;
  double at(int x, int y) const {
    if (x < 0) x = -x;
    if (y < 0) y = -y;
    if (x >= width) x = 2 * (width - 1) - x;
    if (y >= height) y = 2 * (height - 1) - y;
    x = std::clamp(x, 0, width - 1);
    y = std::clamp(y, 0, height - 1);
    return values[size_t(y) * width + x];
  }
};

// Planes of camera RGB from the mosaic.
using Planes = std::array<std::vector<double>, 3>;

Planes demosaic_bilinear(const Mosaic& m) {
  Planes out;
  for (auto& plane : out) plane.resize(m.values.size());
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      const size_t i = size_t(y) * m.width + x;
      const double centre = m.at(x, y);
      const double axial = (m.at(x - 1, y) + m.at(x + 1, y) + m.at(x, y - 1) + m.at(x, y + 1)) / 4;
      const double diagonal = (m.at(x - 1, y - 1) + m.at(x + 1, y - 1) + m.at(x - 1, y + 1) + m.at(x + 1, y + 1)) / 4;
      const double across = (m.at(x - 1, y) + m.at(x + 1, y)) / 2;
      const double along = (m.at(x, y - 1) + m.at(x, y + 1)) / 2;
      const int site = bayer(x, y);
      if (site == 0) out[0][i] = centre, out[1][i] = axial, out[2][i] = diagonal;
      if (site == 2) out[2][i] = centre, out[1][i] = axial, out[0][i] = diagonal;
      if (site == 1) {
        const bool red_row = (y & 1) == 0;
        out[1][i] = centre;
        out[0][i] = red_row ? across : along;
        out[2][i] = red_row ? along : across;
      }
    }
  return out;
}

// Malvar, He & Cutler, "High-quality linear interpolation for demosaicing
// of Bayer-patterned color images" (ICASSP 2004): bilinear plus the
// centre channel's Laplacian, with their 5x5 gains (in eighths).
Planes demosaic_malvar(const Mosaic& m) {
  Planes out;
  for (auto& plane : out) plane.resize(m.values.size());
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      const size_t i = size_t(y) * m.width + x;
      auto v = [&](int dx, int dy) { return m.at(x + dx, y + dy); };
      const double c = v(0, 0);
      const double axial1 = v(-1, 0) + v(1, 0) + v(0, -1) + v(0, 1);
      const double axial2 = v(-2, 0) + v(2, 0) + v(0, -2) + v(0, 2);
      const double diagonal = v(-1, -1) + v(1, -1) + v(-1, 1) + v(1, 1);
      const double horizontal1 = v(-1, 0) + v(1, 0), vertical1 = v(0, -1) + v(0, 1);
      const double horizontal2 = v(-2, 0) + v(2, 0), vertical2 = v(0, -2) + v(0, 2);
      const double green_at_colour = (4 * c + 2 * axial1 - axial2) / 8;
      const double opposite = (6 * c + 2 * diagonal - 1.5 * axial2) / 8;
      // The colour whose neighbours lie left and right of a green site, and the other.
      const double along_row = (5 * c + 4 * horizontal1 - diagonal - horizontal2 + 0.5 * vertical2) / 8;
      const double along_column = (5 * c + 4 * vertical1 - diagonal - vertical2 + 0.5 * horizontal2) / 8;
      const int site = bayer(x, y);
      if (site == 0) out[0][i] = c, out[1][i] = green_at_colour, out[2][i] = opposite;
      if (site == 2) out[2][i] = c, out[1][i] = green_at_colour, out[0][i] = opposite;
      if (site == 1) {
        const bool red_row = (y & 1) == 0;
        out[1][i] = c;
        out[0][i] = red_row ? along_row : along_column;
        out[2][i] = red_row ? along_column : along_row;
      }
    }
  return out;
}

// Hamilton & Adams (US patent 5,629,734, 1997): green interpolated along
// the direction of the smaller gradient (green difference plus the
// centre channel's second difference), with that second difference as a
// correction; red and blue as bilinear colour differences to green.
Planes demosaic_hamilton_adams(const Mosaic& m) {
  Planes out;
  for (auto& plane : out) plane.resize(m.values.size());
  std::vector<double>& green = out[1];
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      auto v = [&](int dx, int dy) { return m.at(x + dx, y + dy); };
      const size_t i = size_t(y) * m.width + x;
      if (bayer(x, y) == 1) {
        green[i] = v(0, 0);
        continue;
      }
      const double second_h = 2 * v(0, 0) - v(-2, 0) - v(2, 0);
      const double second_v = 2 * v(0, 0) - v(0, -2) - v(0, 2);
      const double gradient_h = std::abs(v(-1, 0) - v(1, 0)) + std::abs(second_h);
      const double gradient_v = std::abs(v(0, -1) - v(0, 1)) + std::abs(second_v);
      const double along_h = (v(-1, 0) + v(1, 0)) / 2 + second_h / 4;
      const double along_v = (v(0, -1) + v(0, 1)) / 2 + second_v / 4;
      green[i] = gradient_h < gradient_v ? along_h : gradient_v < gradient_h ? along_v : (along_h + along_v) / 2;
    }
  // Colour differences to green, at the sites that hold each colour.
  Mosaic difference{m.width, m.height, std::vector<double>(m.values.size())};
  for (size_t i = 0; i < m.values.size(); ++i) difference.values[i] = m.values[i] - green[i];
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x) {
      auto d = [&](int dx, int dy) { return difference.at(x + dx, y + dy); };
      const size_t i = size_t(y) * m.width + x;
      const int site = bayer(x, y);
      const double diagonal = (d(-1, -1) + d(1, -1) + d(-1, 1) + d(1, 1)) / 4;
      if (site == 0) out[0][i] = m.values[i], out[2][i] = green[i] + diagonal;
      if (site == 2) out[2][i] = m.values[i], out[0][i] = green[i] + diagonal;
      if (site == 1) {
        const bool red_row = (y & 1) == 0;
        const double across = (d(-1, 0) + d(1, 0)) / 2, along = (d(0, -1) + d(0, 1)) / 2;
        out[0][i] = green[i] + (red_row ? across : along);
        out[2][i] = green[i] + (red_row ? along : across);
      }
    }
  return out;
}

// libjpeg round trip, baseline with its default 2x2 luma sampling (4:2:0).
std::vector<uint8_t> jpeg_round_trip(const std::vector<uint8_t>& pixels, int width, int height, int channels,
                                     int quality) {
  jpeg_compress_struct encoder;
  jpeg_error_mgr errors;
  encoder.err = jpeg_std_error(&errors);
  jpeg_create_compress(&encoder);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&encoder, &buffer, &size);
  encoder.image_width = JDIMENSION(width);
  encoder.image_height = JDIMENSION(height);
  encoder.input_components = channels;
  encoder.in_color_space = channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&encoder);
  jpeg_set_quality(&encoder, quality, TRUE);
  jpeg_start_compress(&encoder, TRUE);
  while (encoder.next_scanline < encoder.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(pixels.data()) + size_t(encoder.next_scanline) * width * channels;
    jpeg_write_scanlines(&encoder, &row, 1);
  }
  jpeg_finish_compress(&encoder);
  jpeg_destroy_compress(&encoder);

  jpeg_decompress_struct decoder;
  decoder.err = jpeg_std_error(&errors);
  jpeg_create_decompress(&decoder);
  jpeg_mem_src(&decoder, buffer, size);
  jpeg_read_header(&decoder, TRUE);
  jpeg_start_decompress(&decoder);
  std::vector<uint8_t> out(pixels.size());
  while (decoder.output_scanline < decoder.output_height) {
    JSAMPROW row = out.data() + size_t(decoder.output_scanline) * width * channels;
    jpeg_read_scanlines(&decoder, &row, 1);
  }
  jpeg_finish_decompress(&decoder);
  jpeg_destroy_decompress(&decoder);
  std::free(buffer);
  return out;
}

}  // namespace

const char* demosaic_name(Demosaic demosaic) {
  switch (demosaic) {
    case Demosaic::bilinear: return "bilinear";
    case Demosaic::malvar: return "malvar";
    case Demosaic::hamilton_adams: return "hamilton-adams";
  }
  return "?";
}

const std::vector<std::string>& camera_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const Camera& camera : kCameras) list.push_back(camera.name);
    return list;
  }();
  return names;
}

double read_for_shot(double shot) { return std::exp(2.18 * std::log(shot) + 1.20); }

double camera_level_shot(int level) {
  static const double shots[kCameraLevels] = {1.5e-3, 3e-3, 6e-3, 1.2e-2};
  return shots[std::clamp(level, 0, kCameraLevels - 1)];
}

CameraSettings camera_case(int level, int variant, bool jpeg) {
  static const double red[] = {1.9, 2.15, 2.4};
  static const double blue[] = {1.7, 1.5, 1.9};
  static const Demosaic demosaics[] = {Demosaic::malvar, Demosaic::hamilton_adams, Demosaic::bilinear};
  static const int qualities[] = {90, 85, 95};
  CameraSettings s;
  s.camera = variant % kCameraCount;
  s.red_gain = red[(variant + level) % 3];
  s.blue_gain = blue[(variant + 2 * level) % 3];
  s.demosaic = demosaics[(variant / kCameraCount + level) % 3];
  s.shot = camera_level_shot(level);
  s.read = read_for_shot(s.shot);
  s.jpeg_quality = jpeg ? qualities[(variant + level) % 3] : 0;
  s.seed = unsigned(7001 + 100 * level + variant + (jpeg ? 50 : 0));
  return s;
}

std::string describe(const CameraSettings& s) {
  char text[160];
  std::snprintf(text, sizeof text, "%s, %s, wb %.2f/%.2f, shot %.1e", kCameras[s.camera].name,
                demosaic_name(s.demosaic), s.red_gain, s.blue_gain, s.shot);
  std::string line = text;
  if (s.jpeg_quality > 0) line += ", jpeg " + std::to_string(s.jpeg_quality);
  return line;
}

Development develop(const Photo8& photo, const CameraSettings& s) {
  if (photo.channels != 1 && photo.channels != 3) throw std::invalid_argument("camera pipeline: grey or RGB photos");
  const int width = photo.width, height = photo.height;
  const size_t pixels = size_t(width) * height;
  std::mt19937 rng(s.seed);
  std::normal_distribution<double> unit(0.0, 1.0);
  auto noise = [&](double x) { return std::sqrt(std::max(s.shot * std::max(x, 0.0) + s.read, 0.0)) * unit(rng); };
  Development out;
  for (Photo8* image : {&out.clean, &out.noisy}) *image = {width, height, photo.channels, std::vector<uint8_t>(photo.pixels.size())};

  if (photo.channels == 1) {  // a monochrome sensor
    for (size_t i = 0; i < pixels; ++i) {
      const double x = decode8(photo.pixels[i]);
      out.clean.pixels[i] = encode8(x);
      out.noisy.pixels[i] = encode8(x + noise(x));
    }
  } else {
    const Matrix to_camera = srgb_to_camera(s.camera);
    const Matrix to_srgb = inverse(to_camera);
    const double gains[3] = {s.red_gain, 1.0, s.blue_gain};
    Mosaic mosaic{width, height, std::vector<double>(pixels)};
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const size_t i = size_t(y) * width + x;
        const int site = bayer(x, y);
        double linear[3];
        for (int c = 0; c < 3; ++c) linear[c] = decode8(photo.pixels[3 * i + size_t(c)]);
        double camera = 0;
        for (int c = 0; c < 3; ++c) camera += to_camera[site][c] * linear[c];
        mosaic.values[i] = camera / gains[site];
      }
    for (Photo8* image : {&out.clean, &out.noisy}) {
      Mosaic balanced = mosaic;
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          double& value = balanced.values[size_t(y) * width + x];
          if (image == &out.noisy) value += noise(value);
          value *= gains[bayer(x, y)];
        }
      const Planes camera = s.demosaic == Demosaic::bilinear ? demosaic_bilinear(balanced)
                            : s.demosaic == Demosaic::malvar ? demosaic_malvar(balanced)
                                                             : demosaic_hamilton_adams(balanced);
      for (size_t i = 0; i < pixels; ++i)
        for (int c = 0; c < 3; ++c) {
          double linear = 0;
          for (int k = 0; k < 3; ++k) linear += to_srgb[c][k] * camera[k][i];
          image->pixels[3 * i + size_t(c)] = encode8(linear);
        }
    }
  }
  if (s.jpeg_quality > 0)
    out.noisy.pixels = jpeg_round_trip(out.noisy.pixels, width, height, photo.channels, s.jpeg_quality);
  return out;
}

std::vector<double> noise_rms(const Development& d) {
  const int channels = d.clean.channels;
  std::vector<double> sums(size_t(channels), 0.0);
  for (size_t i = 0; i < d.clean.pixels.size(); ++i) {
    const double difference = double(d.noisy.pixels[i]) - double(d.clean.pixels[i]);
    sums[i % size_t(channels)] += difference * difference;
  }
  const double count = double(d.clean.pixels.size() / size_t(channels));
  for (double& sum : sums) sum = std::sqrt(sum / count);
  return sums;
}

}  // namespace edgewise_quality
