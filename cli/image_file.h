// Decoded images as the CLI moves them between files and the engine:
// interleaved 8- or 16-bit or float samples, 1-4 channels (grey,
// grey+alpha, RGB, RGBA), and the file's metadata. Every failure throws
// std::runtime_error with a message naming the file and what is wrong.
//
// Formats: PNG (8/16-bit), JPEG (8-bit grey or RGB), TIFF (8/16-bit
// integer or 32-bit float, strips or tiles). Samples are kept in the
// file's own encoding; a format that cannot hold an image refuses it
// (check_writable) rather than converting it.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "metadata.h"

namespace edgewise_cli {

// Pixel memory that is committed as the decoder writes it: a header that
// declares a huge image costs nothing until its data arrives (a vector of
// bytes would zero, and so commit, all of it first).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using PixelBytes = std::vector<uint8_t, UninitializedAllocator<uint8_t>>;

// An image's pixel memory could not be had (the message names its size;
// the CLI adds the file's name).
struct PixelMemoryError : std::bad_alloc {
  PixelMemoryError(int width_, int height_, size_t bytes_) : width(width_), height(height_), bytes(bytes_) {}
  const char* what() const noexcept override { return "not enough memory for the image's pixels"; }
  int width;
  int height;
  size_t bytes;
};

struct DecodedImage {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
  int bits = 8;      // 8 or 16 (native-endian uint16_t), or 32 (float)
  PixelBytes bytes;
  Metadata metadata;
  // A JPEG input's quality (1-100), estimated from its quantization
  // tables; 0 for other inputs. JPEG to JPEG keeps it by default.
  int jpeg_quality = 0;

  size_t row_bytes() const { return size_t(width) * size_t(channels) * size_t(bits / 8); }
  // Room for every row, not yet committed.
  void allocate() {
    try {
      bytes.resize(row_bytes() * size_t(height));
    } catch (const std::bad_alloc&) {
      throw PixelMemoryError(width, height, row_bytes() * size_t(height));
    }
  }
};

// What a reader may allocate: checked from the header, before any pixel
// memory, so a few bytes declaring a huge image cost nothing.
struct ReadLimits {
  uint64_t max_pixels = uint64_t(1) << 30;  // --max-pixels
};
// Throws std::runtime_error naming the declared size and the limit.
void check_pixel_limit(const std::string& path, uint64_t width, uint64_t height, const ReadLimits& limits);

// PNG's default compression level: libdeflate's fastest, which keeps a
// 24 MP photo's encode under 1 s on 2 cores (0.87 s; level 2 took 1.70 s
// for a file 6 % smaller: bench/RESULTS.md, "CLI codecs (issue 11)").
constexpr int kDefaultPngCompression = 1;

// How outputs are written.
struct WriteOptions {
  bool strip_metadata = false;   // --strip-metadata
  int jpeg_quality = 0;          // 1-100; 0: the input's estimated quality for JPEG to JPEG, else 95
  int png_compression = -1;      // 0-9; -1: the writer's default (kDefaultPngCompression)
  std::string tiff_compression;  // none, deflate, lzw, zstd; "": deflate
};

enum class FileFormat { png, jpeg, tiff };

// By content (magic bytes); throws for anything else.
FileFormat detect_format(const std::string& path);
// By extension (.png, .jpg/.jpeg, .tif/.tiff); throws for anything else.
FileFormat format_for_output(const std::string& path);

DecodedImage read_image(const std::string& path, const ReadLimits& limits = {});
// "not enough memory for PATH (WxH needs about N MiB)": what filtering the
// image takes (input, result and the filter's bands).
std::string not_enough_memory(const std::string& path, int width, int height, size_t image_bytes);
// Throws before writing when the format cannot hold the image.
void check_writable(FileFormat format, const DecodedImage& image, const std::string& path);
void write_image(const std::string& path, FileFormat format, const DecodedImage& image,
                 const WriteOptions& options = {});

DecodedImage read_png(const std::string& path, const ReadLimits& limits = {});
void write_png(const std::string& path, const DecodedImage& image, const WriteOptions& options = {});
DecodedImage read_jpeg(const std::string& path, const ReadLimits& limits = {});
void write_jpeg(const std::string& path, const DecodedImage& image, const WriteOptions& options = {});
DecodedImage read_tiff(const std::string& path, const ReadLimits& limits = {});
void write_tiff(const std::string& path, const DecodedImage& image, const WriteOptions& options = {});

}  // namespace edgewise_cli
