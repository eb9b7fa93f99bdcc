// Binary PNM files (P5 grey, P6 RGB; maxval 255) for the peer benchmark:
// the one format DawyD/bm3d-gpu reads and writes without a library (CImg's
// own PNM code), so the device, which has no libpng, can feed it and read
// its result. Interleaved 8-bit samples, rows top to bottom, as Netpbm's
// ppm(5) defines them. Every failure throws std::runtime_error naming the
// file.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace edgewise_bench {

struct PnmImage {
  int width = 0, height = 0, channels = 0;  // channels 1 (P5) or 3 (P6)
  std::vector<uint8_t> samples;             // width * height * channels
};

namespace pnm_detail {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// A header number, after whitespace and '#' comments (to the line's end).
inline int header_number(std::FILE* file, const std::string& path) {
  int c = std::fgetc(file);
  while (c == '#' || std::isspace(c)) {
    if (c == '#')
      while (c != '\n' && c != EOF) c = std::fgetc(file);
    c = std::fgetc(file);
  }
  long value = 0;
  if (!std::isdigit(c)) throw std::runtime_error(path + ": not a binary PNM header");
  while (std::isdigit(c)) {
    value = value * 10 + (c - '0');
    if (value > (1 << 24)) throw std::runtime_error(path + ": a header number is too large");
    c = std::fgetc(file);
  }
  if (!std::isspace(c)) throw std::runtime_error(path + ": not a binary PNM header");
  return int(value);  // the one whitespace after maxval is consumed here
}

}  // namespace pnm_detail

inline PnmImage read_pnm(const std::string& path) {
  pnm_detail::File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw std::runtime_error(path + ": cannot open");
  char magic[2] = {};
  if (std::fread(magic, 1, 2, file.get()) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6'))
    throw std::runtime_error(path + ": not a binary PGM or PPM (P5, P6)");
  PnmImage image;
  image.channels = magic[1] == '6' ? 3 : 1;
  image.width = pnm_detail::header_number(file.get(), path);
  image.height = pnm_detail::header_number(file.get(), path);
  const int maxval = pnm_detail::header_number(file.get(), path);
  if (image.width < 1 || image.height < 1) throw std::runtime_error(path + ": empty image");
  if (maxval != 255) throw std::runtime_error(path + ": maxval " + std::to_string(maxval) + ", not 255");
  image.samples.resize(size_t(image.width) * size_t(image.height) * size_t(image.channels));
  if (std::fread(image.samples.data(), 1, image.samples.size(), file.get()) != image.samples.size())
    throw std::runtime_error(path + ": truncated pixel data");
  return image;
}

inline void write_pnm(const std::string& path, const PnmImage& image) {
  pnm_detail::File file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) throw std::runtime_error(path + ": cannot create");
  std::fprintf(file.get(), "P%c\n%d %d\n255\n", image.channels == 3 ? '6' : '5', image.width, image.height);
  if (std::fwrite(image.samples.data(), 1, image.samples.size(), file.get()) != image.samples.size() ||
      std::fflush(file.get()) != 0)
    throw std::runtime_error(path + ": write failed");
}

}  // namespace edgewise_bench
