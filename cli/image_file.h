// Decoded images as the CLI moves them between files and the engine:
// interleaved 8- or 16-bit samples, 1-4 channels (grey, grey+alpha, RGB,
// RGBA). Every failure throws std::runtime_error with a message naming the
// file and what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgewise_cli {

struct DecodedImage {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
  int bits = 8;      // 8 or 16; 16-bit samples are native-endian uint16_t
  std::vector<uint8_t> bytes;

  size_t row_bytes() const { return size_t(width) * size_t(channels) * size_t(bits / 8); }
  void allocate() { bytes.assign(row_bytes() * size_t(height), 0); }
};

enum class FileFormat { png, jpeg, tiff };

// By content (magic bytes); throws for anything else.
FileFormat detect_format(const std::string& path);
// By extension (.png, .jpg/.jpeg, .tif/.tiff); throws for anything else.
FileFormat format_for_output(const std::string& path);

DecodedImage read_image(const std::string& path);
// Throws before writing when the format cannot hold the image.
void check_writable(FileFormat format, const DecodedImage& image, const std::string& path);
void write_image(const std::string& path, FileFormat format, const DecodedImage& image);

DecodedImage read_png(const std::string& path);
void write_png(const std::string& path, const DecodedImage& image);
DecodedImage read_jpeg(const std::string& path);
void write_jpeg(const std::string& path, const DecodedImage& image);
DecodedImage read_tiff(const std::string& path);
void write_tiff(const std::string& path, const DecodedImage& image);

}  // namespace edgewise_cli
