// TIFF through libtiff: 8/16-bit unsigned or 32-bit float, contiguous
// (PLANARCONFIG_CONTIG) grey or RGB, optionally with one alpha channel,
// single image, in strips or tiles. Multi-page, palette, planar,
// CMYK/YCbCr and premultiplied-alpha files are refused with a message
// rather than misread. Float samples are kept as they are, above 1.0 too.
//
// Premultiplied (associated) alpha is refused, not un-premultiplied: where
// alpha is small the colour has only a few code values left, dividing them
// out amplifies their quantisation into visible noise the filter would then
// treat as signal, and writing the result back premultiplied would lose
// precision a second time. GIMP and most tools write unassociated alpha.
#include <tiffio.h>

#include <algorithm>
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

// Compression levels, measured on a 24 MP RGB photo (bench_codecs' image,
// 1 MiB strips, predictor; 2-core EPYC dev VM): deflate 1 encodes in
// 0.89 s to 38.3 MiB, deflate 6 (libtiff's default) in 1.94 s to 36.2 MiB;
// zstd 1 in 0.23 s to 35.7 MiB, zstd 9 (libtiff's default) in 2.84 s to
// 37.4 MiB. The fast levels keep the codec from dwarfing the filter.
constexpr int kTiffDeflateLevel = 1;
constexpr int kTiffZstdLevel = 1;

// Throws unless the file's layout is one DecodedImage can hold.
void check_layout(const std::string& path, TIFF* tiff, uint16_t samples, uint16_t bits) {
  uint16_t format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photometric = PHOTOMETRIC_MINISBLACK;
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric);
  if (format == SAMPLEFORMAT_IEEEFP && bits != 32)
    throw std::runtime_error(path + ": " + std::to_string(bits) +
                             "-bit floating-point TIFF is not supported (only 32-bit float)");
  if ((format != SAMPLEFORMAT_UINT || (bits != 8 && bits != 16)) && format != SAMPLEFORMAT_IEEEFP)
    throw std::runtime_error(path + ": " + std::to_string(bits) +
                             "-bit TIFF is not supported (only 8- and 16-bit unsigned integer or 32-bit float)");
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

[[noreturn]] void damaged(const std::string& path, const std::string& error) {
  throw std::runtime_error(path + ": unreadable TIFF, damaged image data" + detail(error));
}

// Each strip decodes straight into its rows (whole strips also let libtiff
// use libdeflate instead of zlib).
void read_strips(const std::string& path, TIFF* tiff, DecodedImage& image, const std::string& error) {
  uint32_t rows_per_strip = 0;
  TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  rows_per_strip = std::clamp<uint32_t>(rows_per_strip, 1, uint32_t(image.height));
  const uint32_t strips = (uint32_t(image.height) + rows_per_strip - 1) / rows_per_strip;
  if (TIFFNumberOfStrips(tiff) < strips) damaged(path, error);
  for (uint32_t strip = 0; strip < strips; ++strip) {
    const uint32_t first = strip * rows_per_strip;
    const uint32_t rows = std::min(rows_per_strip, uint32_t(image.height) - first);
    const tmsize_t bytes = tmsize_t(rows * image.row_bytes());
    if (TIFFReadEncodedStrip(tiff, strip, image.bytes.data() + first * image.row_bytes(), bytes) != bytes)
      damaged(path, error);
  }
}

// Tiles decode into one tile's buffer, then its part inside the image is
// copied to the rows (edge tiles extend past the image).
void read_tiles(const std::string& path, TIFF* tiff, DecodedImage& image, const std::string& error) {
  uint32_t tile_width = 0, tile_length = 0;
  TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &tile_width);
  TIFFGetField(tiff, TIFFTAG_TILELENGTH, &tile_length);
  // Tiles bigger than the image (rounded up to TIFF's multiple of 16) would
  // make a small file cost more memory than its pixels.
  if (tile_width == 0 || tile_length == 0 || tile_width > uint32_t(image.width) + 15 ||
      tile_length > uint32_t(image.height) + 15)
    throw std::runtime_error(path + ": unreadable TIFF, tiles of " + std::to_string(tile_width) + "x" +
                             std::to_string(tile_length) + " do not fit the image");
  const size_t pixel_bytes = image.row_bytes() / size_t(image.width);
  const size_t tile_row_bytes = size_t(tile_width) * pixel_bytes;
  const tmsize_t tile_bytes = tmsize_t(tile_row_bytes * tile_length);
  if (TIFFTileSize(tiff) != tile_bytes) throw std::runtime_error(path + ": unsupported TIFF tile layout");
  std::vector<uint8_t> tile(static_cast<size_t>(tile_bytes));
  for (uint32_t y = 0; y < uint32_t(image.height); y += tile_length)
    for (uint32_t x = 0; x < uint32_t(image.width); x += tile_width) {
      if (TIFFReadEncodedTile(tiff, TIFFComputeTile(tiff, x, y, 0, 0), tile.data(), tile_bytes) != tile_bytes)
        damaged(path, error);
      const uint32_t rows = std::min(tile_length, uint32_t(image.height) - y);
      const size_t copy_bytes = std::min(tile_width, uint32_t(image.width) - x) * pixel_bytes;
      for (uint32_t row = 0; row < rows; ++row)
        std::memcpy(image.bytes.data() + (y + row) * image.row_bytes() + x * pixel_bytes,
                    tile.data() + row * tile_row_bytes, copy_bytes);
    }
}

void read_tiff_metadata(TIFF* tiff, Metadata& metadata) {
  uint32_t icc_size = 0;
  void* icc = nullptr;
  if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc)
    metadata.icc.assign(static_cast<const char*>(icc), icc_size);
  float x = 0.0f, y = 0.0f;
  uint16_t unit = RESUNIT_INCH;
  if (TIFFGetField(tiff, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tiff, TIFFTAG_YRESOLUTION, &y)) {
    TIFFGetFieldDefaulted(tiff, TIFFTAG_RESOLUTIONUNIT, &unit);
    metadata.resolution = {double(x), double(y),
                           unit == RESUNIT_INCH         ? Resolution::Unit::inch
                           : unit == RESUNIT_CENTIMETER ? Resolution::Unit::centimetre
                                                        : Resolution::Unit::unknown};
    if (!metadata.resolution.known()) metadata.resolution = Resolution{};
  }
}

struct Compression {
  uint16_t scheme;
  bool predictor;  // horizontal differencing (integers) or the floating-point predictor
};

// Deflate by default: every TIFF reader has it (zstd is libtiff's own
// extension, which Photoshop and many viewers cannot open), and with the
// predictor it makes photos smaller than LZW at a similar speed.
Compression compression_for(const std::string& path, const std::string& name) {
  Compression compression{COMPRESSION_ADOBE_DEFLATE, true};
  if (name == "none")
    compression = {COMPRESSION_NONE, false};
  else if (name == "lzw")
    compression.scheme = COMPRESSION_LZW;
  else if (name == "zstd")
    compression.scheme = COMPRESSION_ZSTD;
  else if (!name.empty() && name != "deflate")
    throw std::runtime_error("cannot write " + path + ": unknown TIFF compression '" + name + "'");
  if (!TIFFIsCODECConfigured(compression.scheme))
    throw std::runtime_error("cannot write " + path + ": this libtiff cannot write " + name + " compression");
  return compression;
}

void set_layout_tags(TIFF* t, const DecodedImage& image, const Compression& compression, uint32_t rows_per_strip) {
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, uint32_t(image.width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, uint32_t(image.height));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t(image.channels));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t(image.bits));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, image.bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, image.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_COMPRESSION, compression.scheme);
  if (compression.predictor)  // photos compress far better as differences
    TIFFSetField(t, TIFFTAG_PREDICTOR, image.bits == 32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
  if (compression.scheme == COMPRESSION_ADOBE_DEFLATE) TIFFSetField(t, TIFFTAG_ZIPQUALITY, kTiffDeflateLevel);
  if (compression.scheme == COMPRESSION_ZSTD) TIFFSetField(t, TIFFTAG_ZSTD_LEVEL, kTiffZstdLevel);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
  if (image.channels == 2 || image.channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
}

void set_metadata_tags(TIFF* t, const Metadata& metadata) {
  if (!metadata.icc.empty()) TIFFSetField(t, TIFFTAG_ICCPROFILE, uint32_t(metadata.icc.size()), metadata.icc.data());
  if (metadata.resolution.known()) {
    TIFFSetField(t, TIFFTAG_XRESOLUTION, float(metadata.resolution.x));
    TIFFSetField(t, TIFFTAG_YRESOLUTION, float(metadata.resolution.y));
    TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT,
                 metadata.resolution.unit == Resolution::Unit::inch         ? RESUNIT_INCH
                 : metadata.resolution.unit == Resolution::Unit::centimetre ? RESUNIT_CENTIMETER
                                                                            : RESUNIT_NONE);
  }
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
  // libtiff returns 16-bit and float samples in host byte order.
  if (TIFFIsTiled(tiff.get()))
    read_tiles(path, tiff.get(), image, error);
  else
    read_strips(path, tiff.get(), image, error);
  read_tiff_metadata(tiff.get(), image.metadata);
  tiff.reset();
  read_exiv2_metadata(path, image.metadata);
  return image;
}

void write_tiff(const std::string& path, const DecodedImage& image, const WriteOptions& options) {
  const Metadata& metadata = metadata_to_write(image.metadata, options.strip_metadata);
  const Compression compression = compression_for(path, options.tiff_compression);
  std::string error;
  Tiff tiff = open_tiff(path, "w", error);
  if (!tiff) throw std::runtime_error("cannot write " + path + detail(error));
  TIFF* t = tiff.get();
  // Strips of about 1 MiB: large enough to compress well (and for libtiff
  // to use libdeflate), small enough for any reader's memory.
  const uint32_t rows_per_strip =
      uint32_t(std::clamp<size_t>((size_t(1) << 20) / image.row_bytes(), 1, size_t(image.height)));
  set_layout_tags(t, image, compression, rows_per_strip);
  set_metadata_tags(t, metadata);
  // The predictor may encode in place, so each strip goes through a copy.
  std::vector<uint8_t> strip(rows_per_strip * image.row_bytes());
  for (uint32_t first = 0, index = 0; first < uint32_t(image.height); first += rows_per_strip, ++index) {
    const size_t bytes = std::min(rows_per_strip, uint32_t(image.height) - first) * image.row_bytes();
    std::memcpy(strip.data(), image.bytes.data() + first * image.row_bytes(), bytes);
    if (TIFFWriteEncodedStrip(t, index, strip.data(), tmsize_t(bytes)) < 0)
      throw std::runtime_error("cannot write " + path + detail(error));
  }
  if (!TIFFFlush(t)) throw std::runtime_error("cannot write " + path + detail(error));
  tiff.reset();  // TIFFClose reports no errors; everything has been flushed above
  write_exiv2_metadata_to_tiff(path, metadata);
}

}  // namespace edgewise_cli
