#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>

#include "image_file.h"

namespace edgewise_cli {

FileFormat detect_format(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw std::runtime_error(path + " is a directory, not an image file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  if (info.st_size == 0) throw std::runtime_error(path + " is empty");
  unsigned char magic[8] = {};
  file.read(reinterpret_cast<char*>(magic), sizeof magic);
  if (file.gcount() >= 8 && std::memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0) return FileFormat::png;
  if (file.gcount() >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff) return FileFormat::jpeg;
  // Classic TIFF (42) and BigTIFF (43), either byte order.
  if (file.gcount() >= 4 && (std::memcmp(magic, "II*\0", 4) == 0 || std::memcmp(magic, "MM\0*", 4) == 0 ||
                             std::memcmp(magic, "II+\0", 4) == 0 || std::memcmp(magic, "MM\0+", 4) == 0))
    return FileFormat::tiff;
  throw std::runtime_error(path + ": unsupported file format (expected PNG, JPEG or TIFF)");
}

FileFormat format_for_output(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == "png") return FileFormat::png;
  if (ext == "jpg" || ext == "jpeg") return FileFormat::jpeg;
  if (ext == "tif" || ext == "tiff") return FileFormat::tiff;
  throw std::runtime_error(path + ": unsupported output format (use .png, .jpg, .jpeg, .tif or .tiff)");
}

void check_pixel_limit(const std::string& path, uint64_t width, uint64_t height, const ReadLimits& limits) {
  if (width == 0 || height == 0 || width > limits.max_pixels || height > limits.max_pixels / width)
    throw std::runtime_error(path + ": declares " + std::to_string(width) + "x" + std::to_string(height) +
                             " pixels, over the limit of " + std::to_string(limits.max_pixels) + " (--max-pixels)");
}

DecodedImage read_image(const std::string& path, const ReadLimits& limits) {
  const FileFormat format = detect_format(path);
  try {
    switch (format) {
      case FileFormat::png:
        return read_png(path, limits);
      case FileFormat::jpeg:
        return read_jpeg(path, limits);
      case FileFormat::tiff:
        return read_tiff(path, limits);
    }
  } catch (const PixelMemoryError& error) {
    // Within the pixel limit, yet more than this machine can give.
    throw std::runtime_error(not_enough_memory(path, error.width, error.height, error.bytes));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("not enough memory to decode " + path);
  }
  throw std::logic_error("unreachable");
}

std::string not_enough_memory(const std::string& path, int width, int height, size_t image_bytes) {
  // The input, its result and the filter's bands (about 48 MiB on the CPU).
  const size_t needed = (2 * image_bytes + (size_t(48) << 20)) >> 20;
  return "not enough memory for " + path + " (" + std::to_string(width) + "x" + std::to_string(height) +
         " needs about " + std::to_string(needed) + " MiB)";
}

void check_writable(FileFormat format, const DecodedImage& image, const std::string& path) {
  // Refused rather than silently dropping precision, range or transparency:
  // float samples may lie above 1.0, which 8- or 16-bit integers would clip.
  if (image.bits == 32 && format != FileFormat::tiff)
    throw std::runtime_error(path + ": " + (format == FileFormat::png ? "PNG" : "JPEG") +
                             " cannot hold 32-bit floating-point samples; write TIFF (.tif)");
  if (format != FileFormat::jpeg) return;
  if (image.bits != 8) throw std::runtime_error(path + ": JPEG cannot hold 16-bit samples; write PNG or TIFF");
  if (image.channels == 2 || image.channels == 4)
    throw std::runtime_error(path + ": JPEG cannot hold alpha; write PNG or TIFF");
}

void write_image(const std::string& path, FileFormat format, const DecodedImage& image, const WriteOptions& options) {
  check_writable(format, image, path);
  switch (format) {
    case FileFormat::png:
      return write_png(path, image, options);
    case FileFormat::jpeg:
      return write_jpeg(path, image, options);
    case FileFormat::tiff:
      return write_tiff(path, image, options);
  }
}

}  // namespace edgewise_cli
