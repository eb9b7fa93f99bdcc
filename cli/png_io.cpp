// PNG through libpng's classic API (the simplified API turns 16-bit into
// linear light, which would not keep the file's precision as it is).
#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "image_file.h"

namespace edgewise_cli {

namespace {

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<FILE, FileCloser>;

[[noreturn]] void png_fail(png_structp png, png_const_charp message) {
  *static_cast<std::string*>(png_get_error_ptr(png)) = message;
  png_longjmp(png, 1);
}
void png_warn(png_structp, png_const_charp) {}

bool little_endian() {
  const uint16_t probe = 1;
  return *reinterpret_cast<const uint8_t*>(&probe) == 1;
}

}  // namespace

DecodedImage read_png(const std::string& path, const ReadLimits& limits) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  std::string error;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, png_fail, png_warn);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    throw std::bad_alloc();
  }
  DecodedImage image;
  std::vector<png_bytep> rows;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error(path + ": unreadable PNG (" + error + ")");
  }
  png_init_io(png, file.get());
  png_read_info(png, info);
  // A header can declare any size: checked before any pixel memory.
  try {
    check_pixel_limit(path, png_get_image_width(png, info), png_get_image_height(png, info), limits);
  } catch (...) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw;
  }
  const int color = png_get_color_type(png, info);
  int depth = png_get_bit_depth(png, info);
  // Palette and low-bit grey expand to 8 bits; tRNS becomes alpha.
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16 && little_endian()) png_set_swap(png);  // PNG stores 16-bit samples big-endian
  png_set_interlace_handling(png);                        // Adam7 files arrive de-interlaced
  png_read_update_info(png, info);
  image.width = int(png_get_image_width(png, info));
  image.height = int(png_get_image_height(png, info));
  image.channels = png_get_channels(png, info);
  depth = png_get_bit_depth(png, info);
  image.bits = depth == 16 ? 16 : 8;
  image.allocate();
  rows.resize(size_t(image.height));
  for (int y = 0; y < image.height; ++y) rows[size_t(y)] = image.bytes.data() + size_t(y) * image.row_bytes();
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return image;
}

void write_png(const std::string& path, const DecodedImage& image, const WriteOptions& options) {
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  std::string error;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, png_fail, png_warn);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    throw std::bad_alloc();
  }
  std::vector<png_bytep> rows(size_t(image.height));
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("cannot write " + path + " (" + error + ")");
  }
  png_init_io(png, file.get());
  static const int kColor[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                               PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_IHDR(png, info, png_uint_32(image.width), png_uint_32(image.height), image.bits, kColor[image.channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  // zlib level 4 instead of the default 6: on a 4000x3000 RGB photo
  // (Debian 12 zlib 1.2.13, one core of the dev VM) 1.1 s instead of 3.4 s
  // for a file 3.7% larger; PNG writing otherwise dominates a CPU run.
  png_set_compression_level(png, options.png_compression >= 0 ? options.png_compression : 4);
  png_write_info(png, info);
  if (image.bits == 16 && little_endian()) png_set_swap(png);
  for (int y = 0; y < image.height; ++y)
    rows[size_t(y)] = const_cast<png_bytep>(image.bytes.data() + size_t(y) * image.row_bytes());
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fflush(file.get()) != 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace edgewise_cli
