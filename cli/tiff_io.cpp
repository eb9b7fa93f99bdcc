// TIFF through libtiff: 8/16-bit contiguous grey or RGB, optionally with one
// unassociated alpha. Associated (premultiplied) alpha, float, palette and
// planar files are refused with a message rather than misread.
#include <tiffio.h>

#include <memory>
#include <stdexcept>

#include "image_file.h"

namespace edgewise_cli {

namespace {

struct TiffCloser {
  void operator()(TIFF* t) const { if (t) TIFFClose(t); }
};
using Tiff = std::unique_ptr<TIFF, TiffCloser>;

}  // namespace

DecodedImage read_tiff(const std::string& path) {
  TIFFSetWarningHandler(nullptr);
  TIFFSetErrorHandler(nullptr);
  Tiff tiff(TIFFOpen(path.c_str(), "r"));
  if (!tiff) throw std::runtime_error(path + ": unreadable TIFF");
  uint32_t width = 0, height = 0;
  uint16_t samples = 1, bits = 8, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photometric = 0;
  TIFFGetField(tiff.get(), TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tiff.get(), TIFFTAG_IMAGELENGTH, &height);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetField(tiff.get(), TIFFTAG_PHOTOMETRIC, &photometric);
  if (format != SAMPLEFORMAT_UINT || (bits != 8 && bits != 16))
    throw std::runtime_error(path + ": unsupported TIFF (only 8- and 16-bit unsigned samples)");
  if (planar != PLANARCONFIG_CONTIG) throw std::runtime_error(path + ": unsupported TIFF (planar layout)");
  if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_RGB)
    throw std::runtime_error(path + ": unsupported TIFF (only grey and RGB)");
  const int colour = photometric == PHOTOMETRIC_RGB ? 3 : 1;
  if (samples != colour && samples != colour + 1) throw std::runtime_error(path + ": unsupported TIFF channel count");
  if (samples == colour + 1) {
    uint16_t extra_count = 0;
    uint16_t* extra = nullptr;
    if (TIFFGetField(tiff.get(), TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count == 1 &&
        extra[0] == EXTRASAMPLE_ASSOCALPHA)
      throw std::runtime_error(path + ": unsupported TIFF (premultiplied alpha)");
  }
  DecodedImage image;
  image.width = int(width);
  image.height = int(height);
  image.channels = samples;
  image.bits = bits;
  image.allocate();
  if (TIFFScanlineSize(tiff.get()) != tmsize_t(image.row_bytes()))
    throw std::runtime_error(path + ": unsupported TIFF layout");
  for (uint32_t y = 0; y < height; ++y)
    if (TIFFReadScanline(tiff.get(), image.bytes.data() + size_t(y) * image.row_bytes(), y) < 0)
      throw std::runtime_error(path + ": unreadable TIFF (damaged data)");
  return image;
}

void write_tiff(const std::string& path, const DecodedImage& image) {
  Tiff tiff(TIFFOpen(path.c_str(), "w"));
  if (!tiff) throw std::runtime_error("cannot write " + path);
  TIFF* t = tiff.get();
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, uint32_t(image.width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, uint32_t(image.height));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t(image.channels));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t(image.bits));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, image.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
  if (image.channels == 2 || image.channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  for (int y = 0; y < image.height; ++y)
    if (TIFFWriteScanline(t, const_cast<uint8_t*>(image.bytes.data() + size_t(y) * image.row_bytes()), uint32_t(y)) < 0)
      throw std::runtime_error("cannot write " + path);
  if (!TIFFFlush(t)) throw std::runtime_error("cannot write " + path);
}

}  // namespace edgewise_cli
