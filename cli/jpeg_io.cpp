// JPEG through libjpeg(-turbo): 8-bit grey or RGB. Warnings while reading
// (a truncated or damaged stream) are errors: libjpeg would otherwise fill
// the missing rows with grey and we would filter and save a broken photo.
#include <csetjmp>
#include <cstddef>
#include <cstdio>

// jpeglib.h needs size_t and FILE declared before it.
#include <jpeglib.h>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "image_file.h"

namespace edgewise_cli {

namespace {

struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void on_error(j_common_ptr info) {
  auto* manager = reinterpret_cast<ErrorManager*>(info->err);
  (*info->err->format_message)(info, manager->message);
  std::longjmp(manager->jump, 1);
}

// Level -1 is a warning about the data; higher levels are trace messages.
void on_read_message(j_common_ptr info, int level) {
  if (level < 0) on_error(info);
}

void on_write_message(j_common_ptr, int) {}

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};

}  // namespace

DecodedImage read_jpeg(const std::string& path, const ReadLimits& limits) {
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  jpeg_decompress_struct info{};
  ErrorManager errors{};
  info.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = on_error;
  errors.base.emit_message = on_read_message;
  DecodedImage image;
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&info);
    throw std::runtime_error(path + ": unreadable JPEG (" + errors.message + ")");
  }
  jpeg_create_decompress(&info);
  jpeg_stdio_src(&info, file.get());
  jpeg_read_header(&info, TRUE);
  try {  // a header can declare any size: checked before any pixel memory
    check_pixel_limit(path, info.image_width, info.image_height, limits);
  } catch (...) {
    jpeg_destroy_decompress(&info);
    throw;
  }
  if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&info);
    throw std::runtime_error(path + ": CMYK JPEG is not supported (only grey and RGB)");
  }
  info.out_color_space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&info);
  image.width = int(info.output_width);
  image.height = int(info.output_height);
  image.channels = info.output_components;
  image.bits = 8;
  image.allocate();
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = image.bytes.data() + size_t(info.output_scanline) * image.row_bytes();
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return image;
}

void write_jpeg(const std::string& path, const DecodedImage& image, const WriteOptions& options) {
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  jpeg_compress_struct info{};
  ErrorManager errors{};
  info.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = on_error;
  errors.base.emit_message = on_write_message;
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&info);
    throw std::runtime_error("cannot write " + path + " (" + errors.message + ")");
  }
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, file.get());
  info.image_width = JDIMENSION(image.width);
  info.image_height = JDIMENSION(image.height);
  info.input_components = image.channels;
  info.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  // A denoiser's output should not gain artefacts: high quality, and no
  // chroma subsampling (4:4:4), which would halve the colour resolution.
  jpeg_set_quality(&info, options.jpeg_quality > 0 ? options.jpeg_quality : 95, TRUE);
  for (int c = 0; c < info.num_components; ++c) {
    info.comp_info[c].h_samp_factor = 1;
    info.comp_info[c].v_samp_factor = 1;
  }
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.bytes.data() + size_t(info.next_scanline) * image.row_bytes());
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  if (std::fflush(file.get()) != 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace edgewise_cli
