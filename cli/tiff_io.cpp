// TIFF through libtiff: 8/16-bit unsigned, contiguous (PLANARCONFIG_CONTIG)
// grey or RGB, optionally with one alpha channel, single image. Multi-page,
// float, palette, planar, CMYK/YCbCr and premultiplied-alpha files are
// refused with a message rather than misread.
//
// Premultiplied (associated) alpha is refused, not un-premultiplied: where
// alpha is small the colour has only a few code values left, dividing them
// out amplifies their quantisation into visible noise the filter would then
// treat as signal, and writing the result back premultiplied would lose
// precision a second time. GIMP and most tools write unassociated alpha.
#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "image_file.h"

namespace edgewise_cli {

namespace {

struct TiffCloser {
  void operator()(TIFF* t) const {
    if (t) TIFFClose(t);
  }
};
using Tiff = std::unique_ptr<TIFF, TiffCloser>;

#if TIFFLIB_VERSION >= 20221213  // libtiff 4.5: error handlers per open file
// Keeps libtiff's first error message for the exception, printing nothing.
int keep_error(TIFF*, void* user_data, const char*, const char* format, va_list args) {
  auto* message = static_cast<std::string*>(user_data);
  if (message->empty()) {
    char text[256];
    std::vsnprintf(text, sizeof text, format, args);
    *message = text;
  }
  return 1;
}
int ignore_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

Tiff open_tiff(const std::string& path, const char* mode, std::string& error) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, keep_error, &error);
  TIFFOpenOptionsSetWarningHandlerExtR(options, ignore_warning, nullptr);
  Tiff tiff(TIFFOpenExt(path.c_str(), mode, options));
  TIFFOpenOptionsFree(options);
  return tiff;
}
#else
Tiff open_tiff(const std::string& path, const char* mode, std::string&) {
  TIFFSetWarningHandler(nullptr);
  TIFFSetErrorHandler(nullptr);
  return Tiff(TIFFOpen(path.c_str(), mode));
}
#endif

std::string detail(const std::string& error) { return error.empty() ? "" : " (" + error + ")"; }

// Throws unless the file's layout is one DecodedImage can hold.
void check_layout(const std::string& path, TIFF* tiff, uint16_t samples, uint16_t bits) {
  uint16_t format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photometric = PHOTOMETRIC_MINISBLACK;
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric);
  if (format == SAMPLEFORMAT_IEEEFP)
    throw std::runtime_error(path + ": floating-point TIFF is not supported (only 8- and 16-bit integer samples)");
  if (format != SAMPLEFORMAT_UINT || (bits != 8 && bits != 16))
    throw std::runtime_error(path + ": " + std::to_string(bits) +
                             "-bit TIFF is not supported (only 8- and 16-bit unsigned integer samples)");
  if (photometric == PHOTOMETRIC_PALETTE)
    throw std::runtime_error(path + ": palette (indexed-colour) TIFF is not supported; save it as RGB");
  if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_RGB)
    throw std::runtime_error(path + ": TIFF colour space " + std::to_string(photometric) +
                             " is not supported (only grey and RGB)");
  if (planar != PLANARCONFIG_CONTIG)
    throw std::runtime_error(path + ": planar TIFF (PLANARCONFIG_SEPARATE) is not supported; save it interleaved");
  const int colour = photometric == PHOTOMETRIC_RGB ? 3 : 1;
  if (samples != colour && samples != colour + 1)
    throw std::runtime_error(path + ": TIFF with " + std::to_string(samples) + " samples per pixel is not supported");
  uint16_t extra_count = 0;
  uint16_t* extra = nullptr;
  if (samples == colour + 1 && TIFFGetField(tiff, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count == 1 &&
      extra[0] == EXTRASAMPLE_ASSOCALPHA)
    throw std::runtime_error(path + ": TIFF with premultiplied (associated) alpha is not supported");
}

}  // namespace

DecodedImage read_tiff(const std::string& path, const ReadLimits& limits) {
  std::string error;
  Tiff tiff = open_tiff(path, "r", error);
  if (!tiff) throw std::runtime_error(path + ": unreadable TIFF" + detail(error));
  uint32_t width = 0, height = 0;
  uint16_t samples = 1, bits = 1;
  TIFFGetField(tiff.get(), TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tiff.get(), TIFFTAG_IMAGELENGTH, &height);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_BITSPERSAMPLE, &bits);
  check_layout(path, tiff.get(), samples, bits);
  if (width == 0 || height == 0) throw std::runtime_error(path + ": TIFF has no pixels");
  check_pixel_limit(path, width, height, limits);
  // Filtering only the first page would silently drop the others.
  if (TIFFNumberOfDirectories(tiff.get()) > 1)
    throw std::runtime_error(path + ": multi-page TIFF is not supported; save each page as its own file");
  DecodedImage image;
  image.width = int(width);
  image.height = int(height);
  image.channels = samples;
  image.bits = bits;
  image.allocate();
  if (TIFFScanlineSize(tiff.get()) != tmsize_t(image.row_bytes()))
    throw std::runtime_error(path + ": unsupported TIFF layout");
  // libtiff returns 16-bit samples in host byte order.
  for (uint32_t y = 0; y < height; ++y)
    if (TIFFReadScanline(tiff.get(), image.bytes.data() + size_t(y) * image.row_bytes(), y) < 0)
      throw std::runtime_error(path + ": unreadable TIFF, damaged image data" + detail(error));
  return image;
}

void write_tiff(const std::string& path, const DecodedImage& image, const WriteOptions&) {
  std::string error;
  Tiff tiff = open_tiff(path, "w", error);
  if (!tiff) throw std::runtime_error("cannot write " + path + detail(error));
  TIFF* t = tiff.get();
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, uint32_t(image.width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, uint32_t(image.height));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t(image.channels));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t(image.bits));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, image.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);  // photos compress far better as differences
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
  if (image.channels == 2 || image.channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  // The predictor encodes in place, so each row goes through a copy.
  std::vector<uint8_t> row(image.row_bytes());
  for (int y = 0; y < image.height; ++y) {
    std::memcpy(row.data(), image.bytes.data() + size_t(y) * image.row_bytes(), row.size());
    if (TIFFWriteScanline(t, row.data(), uint32_t(y)) < 0)
      throw std::runtime_error("cannot write " + path + detail(error));
  }
  if (!TIFFFlush(t)) throw std::runtime_error("cannot write " + path + detail(error));
  // TIFFClose reports no errors; everything has been flushed above.
}

}  // namespace edgewise_cli
