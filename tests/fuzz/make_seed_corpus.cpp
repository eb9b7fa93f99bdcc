// Writes the fuzzers' seed corpus: small valid PNG, JPEG and TIFF files,
// most of them made by the CLI's own writers (8 and 16 bit, grey, grey +
// alpha, RGB, RGBA, a multi-strip TIFF), plus layouts those writers do not
// produce but the readers must handle or refuse cleanly (interlaced,
// palette and packed PNG, progressive JPEG, tiled, float and one-row-strip
// TIFF), written with the format libraries directly. Generated at build
// or run time so that no binary file is committed.
//
// Each file is read back with the CLI's reader: files from the CLI's
// writers must come back exactly (a corpus of unreadable seeds would teach
// the fuzzer nothing); for the others it prints whether the reader takes
// them today.
//
// Usage: make_seed_corpus OUT_DIR  (writes OUT_DIR/png, OUT_DIR/jpeg, OUT_DIR/tiff)
#include <png.h>
#include <tiffio.h>

#include <csetjmp>
#include <cstddef>
#include <cstdio>
// jpeglib.h needs size_t and FILE declared before it.
#include <jpeglib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "image_file.h"

namespace {

using edgewise_cli::DecodedImage;

// Smooth ramps with a little texture: compresses to a few hundred bytes
// yet exercises every filter type and code path of the encoders.
uint8_t pattern_byte(size_t index, int x, int y) {
  const uint32_t hash = uint32_t(index) * 2654435761u;
  return uint8_t(x * 9 + y * 5 + int(index % 7) * 31 + int(hash >> 29));
}

DecodedImage make_image(int width, int height, int channels, int bits) {
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.channels = channels;
  image.bits = bits;
  image.allocate();
  const size_t sample_bytes = size_t(bits / 8);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * channels; ++x) {
      const size_t index = size_t(y) * size_t(width * channels) + size_t(x);
      const uint8_t value = pattern_byte(index, x / channels, y);
      uint8_t* sample = image.bytes.data() + index * sample_bytes;
      if (bits == 8) {
        sample[0] = value;
      } else {  // 16 bit, native byte order, with low bits that 8 bits would lose
        const uint16_t wide = uint16_t(value * 257 + int(index % 13));
        std::memcpy(sample, &wide, sizeof wide);
      }
    }
  return image;
}

// PNG layouts the CLI's writer never produces. Samples are raw bytes: any
// value is valid for every depth, and palette indices stay inside a full
// 2^depth palette.
void write_png_layout(const std::string& path, int width, int height, int color_type, int bit_depth,
                      bool interlaced) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw std::runtime_error("cannot write " + path);
  // Everything is prepared before setjmp: locals changed after it would
  // be indeterminate once libpng jumps back.
  const int channels = color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : color_type == PNG_COLOR_TYPE_RGB ? 3 : 1;
  const size_t row_bytes = (size_t(width) * size_t(channels) * size_t(bit_depth) + 7) / 8;
  std::vector<png_byte> pixels(row_bytes * size_t(height));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = pattern_byte(i, int(i % row_bytes), int(i / row_bytes));
  std::vector<png_bytep> rows(static_cast<size_t>(height));
  for (int y = 0; y < height; ++y) rows[size_t(y)] = pixels.data() + size_t(y) * row_bytes;
  std::vector<png_color> palette(color_type == PNG_COLOR_TYPE_PALETTE ? size_t(1) << bit_depth : 0);
  for (size_t i = 0; i < palette.size(); ++i)
    palette[i] = png_color{png_byte(i * 17), png_byte(255 - i * 9), png_byte(i * 53)};
  std::vector<png_byte> palette_alpha(palette.size() / 2);
  for (size_t i = 0; i < palette_alpha.size(); ++i) palette_alpha[i] = png_byte(i * 37);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    throw std::runtime_error("libpng failed writing " + path);
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_PLTE(png, info, palette.data(), int(palette.size()));
    png_set_tRNS(png, info, palette_alpha.data(), int(palette_alpha.size()), nullptr);
  }
  png_write_info(png, info);
  if (png_get_rowbytes(png, info) != row_bytes) png_error(png, "unexpected row size");
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(file) != 0) throw std::runtime_error("cannot write " + path);
}

// Progressive, 4:2:0, with restart markers: the CLI writes baseline 4:4:4.
// libjpeg's default error handler prints and exits, which is what a seed
// generator should do.
void write_progressive_jpeg(const std::string& path, const DecodedImage& image) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw std::runtime_error("cannot write " + path);
  jpeg_compress_struct info{};
  jpeg_error_mgr errors{};
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, file);
  info.image_width = JDIMENSION(image.width);
  info.image_height = JDIMENSION(image.height);
  info.input_components = image.channels;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 80, TRUE);
  jpeg_simple_progression(&info);
  info.restart_interval = 2;
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.bytes.data() + size_t(info.next_scanline) * image.row_bytes());
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  if (std::fclose(file) != 0) throw std::runtime_error("cannot write " + path);
}

struct TiffLayout {
  int width, height, samples, bits;
  uint16_t sample_format;   // SAMPLEFORMAT_UINT or SAMPLEFORMAT_IEEEFP
  uint16_t compression;     // COMPRESSION_*
  uint32_t tile_size;       // 0: strips
  uint32_t rows_per_strip;  // with strips
};

// TIFF layouts the CLI's writer never produces: tiles, float samples,
// other compressions, one-row strips.
void write_tiff_layout(const std::string& path, const TiffLayout& layout) {
  TIFF* tiff = TIFFOpen(path.c_str(), "w");
  if (!tiff) throw std::runtime_error("cannot write " + path);
  TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, uint32_t(layout.width));
  TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, uint32_t(layout.height));
  TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, uint16_t(layout.samples));
  TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, uint16_t(layout.bits));
  TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, layout.sample_format);
  TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, layout.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tiff, TIFFTAG_COMPRESSION, layout.compression);
  if (layout.samples == 2 || layout.samples == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  const size_t sample_bytes = size_t(layout.bits / 8);
  // Float samples run from 0 to 1.5: raw converters' output goes above 1.0.
  auto fill = [&](std::vector<uint8_t>& block, int row_pixels, int x0, int y0) {
    for (size_t i = 0; i < block.size() / sample_bytes; ++i) {
      const int x = x0 + int(i / size_t(layout.samples)) % row_pixels;
      const int y = y0 + int(i / size_t(layout.samples)) / row_pixels;
      const uint8_t value = pattern_byte(i, x, y);
      if (layout.sample_format == SAMPLEFORMAT_IEEEFP) {
        const float sample = float(value) / 170.0f;
        std::memcpy(block.data() + i * sample_bytes, &sample, sizeof sample);
      } else {
        for (size_t b = 0; b < sample_bytes; ++b) block[i * sample_bytes + b] = uint8_t(value + b);
      }
    }
  };
  bool ok = true;
  if (layout.tile_size > 0) {
    TIFFSetField(tiff, TIFFTAG_TILEWIDTH, layout.tile_size);
    TIFFSetField(tiff, TIFFTAG_TILELENGTH, layout.tile_size);
    std::vector<uint8_t> tile(size_t(TIFFTileSize(tiff)));
    for (uint32_t y = 0; y < uint32_t(layout.height); y += layout.tile_size)
      for (uint32_t x = 0; x < uint32_t(layout.width); x += layout.tile_size) {
        fill(tile, int(layout.tile_size), int(x), int(y));
        ok = ok && TIFFWriteTile(tiff, tile.data(), x, y, 0, 0) >= 0;
      }
  } else {
    TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, layout.rows_per_strip);
    std::vector<uint8_t> row(size_t(TIFFScanlineSize(tiff)));
    for (uint32_t y = 0; y < uint32_t(layout.height); ++y) {
      fill(row, layout.width, 0, int(y));
      ok = ok && TIFFWriteScanline(tiff, row.data(), y) >= 0;
    }
  }
  ok = ok && TIFFFlush(tiff);
  TIFFClose(tiff);
  if (!ok) throw std::runtime_error("libtiff failed writing " + path);
}

using Reader = std::function<DecodedImage(const std::string&)>;
using Writer = void (*)(const std::string&, const DecodedImage&, const edgewise_cli::WriteOptions&);

// Files from the CLI's writers must read back as written (pixels exactly,
// except through lossy JPEG).
void check_round_trip(const std::string& path, const DecodedImage& written, const Reader& read, bool lossless) {
  const DecodedImage read_back = read(path);
  if (read_back.width != written.width || read_back.height != written.height ||
      read_back.channels != written.channels || read_back.bits != written.bits ||
      (lossless && read_back.bytes != written.bytes))
    throw std::runtime_error(path + ": the CLI's reader does not return what its writer wrote");
  std::cout << "  " << path << " (" << std::filesystem::file_size(path) << " bytes)\n";
}

void report_reader(const std::string& path, const Reader& read) {
  std::cout << "  " << path << " (" << std::filesystem::file_size(path) << " bytes): ";
  try {
    const DecodedImage image = read(path);
    std::cout << "read, " << image.width << "x" << image.height << "\n";
  } catch (const std::runtime_error& error) {
    std::cout << "refused today (" << error.what() << ")\n";
  }
}

struct SeedImage {
  const char* name;
  int width, height, channels, bits;
};

// Each image written by one of the CLI's writers as DIR/NAME.EXTENSION and
// read back (check_round_trip).
void write_cli_seeds(const std::string& dir, const char* extension, const Writer& write, const Reader& read,
                     bool lossless, std::initializer_list<SeedImage> images) {
  for (const SeedImage& seed : images) {
    const DecodedImage image = make_image(seed.width, seed.height, seed.channels, seed.bits);
    const std::string path = dir + "/" + seed.name + extension;
    write(path, image, {});  // the default options
    check_round_trip(path, image, read, lossless);
  }
}

void write_png_seeds(const std::string& dir) {
  const Reader read = [](const std::string& path) { return edgewise_cli::read_png(path); };
  write_cli_seeds(dir, ".png", edgewise_cli::write_png, read, true,
                  {{"grey8", 16, 12, 1, 8},
                   {"grey-alpha8", 16, 12, 2, 8},
                   {"rgb8", 16, 12, 3, 8},
                   {"rgba8", 16, 12, 4, 8},
                   {"grey16", 16, 12, 1, 16},
                   {"grey-alpha16", 9, 7, 2, 16},
                   {"rgb16", 13, 11, 3, 16},
                   {"rgba16", 16, 12, 4, 16},
                   {"one-pixel", 1, 1, 3, 8}});
  struct Layout {
    const char* name;
    int color_type, bit_depth;
    bool interlaced;
  };
  for (const Layout& l : {Layout{"interlaced-rgb8", PNG_COLOR_TYPE_RGB, 8, true},
                          Layout{"interlaced-grey-alpha16", PNG_COLOR_TYPE_GRAY_ALPHA, 16, true},
                          Layout{"palette4-trns", PNG_COLOR_TYPE_PALETTE, 4, false},
                          Layout{"interlaced-palette8-trns", PNG_COLOR_TYPE_PALETTE, 8, true},
                          Layout{"grey1", PNG_COLOR_TYPE_GRAY, 1, false},
                          Layout{"grey2", PNG_COLOR_TYPE_GRAY, 2, true}}) {
    const std::string path = dir + "/" + l.name + ".png";
    write_png_layout(path, 19, 13, l.color_type, l.bit_depth, l.interlaced);
    report_reader(path, read);
  }
}

void write_jpeg_seeds(const std::string& dir) {
  const Reader read = [](const std::string& path) { return edgewise_cli::read_jpeg(path); };
  // 33x17: partial 8x8 blocks on both edges.
  write_cli_seeds(dir, ".jpg", edgewise_cli::write_jpeg, read, false,
                  {{"grey", 16, 12, 1, 8}, {"rgb", 16, 12, 3, 8}, {"rgb-odd-size", 33, 17, 3, 8}});
  const std::string path = dir + "/progressive-420.jpg";
  write_progressive_jpeg(path, make_image(24, 20, 3, 8));
  report_reader(path, read);
}

void write_tiff_seeds(const std::string& dir) {
  const Reader read = [](const std::string& path) { return edgewise_cli::read_tiff(path); };
  // 64x48 RGB 16-bit is 384 bytes a row: the writer's 8 KiB strips make
  // three of them.
  write_cli_seeds(dir, ".tif", edgewise_cli::write_tiff, read, true,
                  {{"grey8", 16, 12, 1, 8},
                   {"grey-alpha16", 16, 12, 2, 16},
                   {"rgb8", 16, 12, 3, 8},
                   {"rgba8", 16, 12, 4, 8},
                   {"rgba16", 11, 9, 4, 16},
                   {"multi-strip-rgb16", 64, 48, 3, 16}});
  struct Layout {
    const char* name;
    TiffLayout layout;
  };
  for (const Layout& l :
       {Layout{"tiled-rgb8", {40, 24, 3, 8, SAMPLEFORMAT_UINT, COMPRESSION_ADOBE_DEFLATE, 16, 0}},
        Layout{"tiled-grey16", {20, 20, 1, 16, SAMPLEFORMAT_UINT, COMPRESSION_NONE, 16, 0}},
        Layout{"float-rgb32", {12, 10, 3, 32, SAMPLEFORMAT_IEEEFP, COMPRESSION_NONE, 0, 4}},
        Layout{"float-grey-alpha32-tiled", {18, 18, 2, 32, SAMPLEFORMAT_IEEEFP, COMPRESSION_ADOBE_DEFLATE, 16, 0}},
        Layout{"row-strips-lzw-rgba8", {15, 9, 4, 8, SAMPLEFORMAT_UINT, COMPRESSION_LZW, 0, 1}},
        Layout{"packbits-grey8", {15, 9, 1, 8, SAMPLEFORMAT_UINT, COMPRESSION_PACKBITS, 0, 3}}}) {
    const std::string path = dir + "/" + l.name + ".tif";
    write_tiff_layout(path, l.layout);
    report_reader(path, read);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUT_DIR\n";
    return 2;
  }
  const std::string out = argv[1];
  try {
    for (const char* format : {"png", "jpeg", "tiff"}) std::filesystem::create_directories(out + "/" + format);
    std::cout << "seed corpus in " << out << ":\n";
    write_png_seeds(out + "/png");
    write_jpeg_seeds(out + "/jpeg");
    write_tiff_seeds(out + "/tiff");
  } catch (const std::exception& error) {
    std::cerr << "make_seed_corpus: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
