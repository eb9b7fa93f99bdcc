// JPEG through libjpeg(-turbo): 8-bit grey or RGB. Warnings while reading
// (a truncated or damaged stream) are errors: libjpeg would otherwise fill
// the missing rows with grey and we would filter and save a broken photo.
// Metadata: the ICC profile in APP2 markers (libjpeg-turbo splits and joins
// them), resolution in the JFIF header, EXIF, XMP and IPTC in APP1/APP13.
#include <algorithm>
#include <csetjmp>
#include <cstddef>
#include <cstdio>

// jpeglib.h needs size_t and FILE declared before it.
#include <jpeglib.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

// The example tables of the JPEG standard (Annex K), in natural order,
// which libjpeg and most encoders scale by the quality setting.
constexpr uint8_t kLuminanceTable[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                                         14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                                         18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                                         49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
constexpr uint8_t kChrominanceTable[64] = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                                           24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
                                           99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                                           99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

// As jpeg_set_quality scales a table entry (baseline: at most 255).
int scaled_entry(int entry, int quality) {
  const int scale = quality < 50 ? 5000 / quality : 200 - 2 * quality;
  return std::clamp((entry * scale + 50) / 100, 1, 255);
}

int64_t table_distance(const JQUANT_TBL* table, const uint8_t* reference, int quality) {
  if (!table) return 0;
  int64_t distance = 0;
  for (int i = 0; i < 64; ++i) {
    const int64_t difference = int64_t(table->quantval[i]) - scaled_entry(reference[i], quality);
    distance += difference * difference;
  }
  return distance;
}

// The quality whose scaled standard tables are nearest the file's: exact
// for files libjpeg wrote, the closest equivalent for other encoders.
int estimate_quality(const jpeg_decompress_struct& info) {
  if (!info.quant_tbl_ptrs[0]) return 0;
  int best = 0;
  int64_t best_distance = 0;
  for (int quality = 1; quality <= 100; ++quality) {
    const int64_t distance = table_distance(info.quant_tbl_ptrs[0], kLuminanceTable, quality) +
                             table_distance(info.quant_tbl_ptrs[1], kChrominanceTable, quality);
    if (best == 0 || distance <= best_distance) {  // ties go to the higher quality
      best = quality;
      best_distance = distance;
    }
  }
  return best;
}

Resolution resolution_from_jfif(const jpeg_decompress_struct& info) {
  if (!info.saw_JFIF_marker || info.X_density == 0 || info.Y_density == 0) return {};
  if (info.density_unit == 0 && info.X_density == info.Y_density) return {};  // square pixels, no density
  const Resolution::Unit unit = info.density_unit == 1   ? Resolution::Unit::inch
                                : info.density_unit == 2 ? Resolution::Unit::centimetre
                                                         : Resolution::Unit::unknown;
  return {double(info.X_density), double(info.Y_density), unit};
}

void read_icc_profile(jpeg_decompress_struct& info, Metadata& metadata) {
  JOCTET* profile = nullptr;
  unsigned int size = 0;
  if (jpeg_read_icc_profile(&info, &profile, &size) && profile)
    metadata.icc.assign(reinterpret_cast<const char*>(profile), size);
  std::free(profile);
}

void set_density(jpeg_compress_struct& info, const Resolution& resolution) {
  if (!resolution.known()) return;
  info.density_unit = resolution.unit == Resolution::Unit::inch         ? 1
                      : resolution.unit == Resolution::Unit::centimetre ? 2
                                                                        : 0;
  auto density = [](double value) { return UINT16(std::clamp(std::round(value), 1.0, 65535.0)); };
  info.X_density = density(resolution.x);
  info.Y_density = density(resolution.y);
}

// A JPEG marker's payload holds at most 65533 bytes.
constexpr size_t kMarkerBytes = 65533;

struct Marker {
  int code;
  std::string payload;
};

// The APP1 and APP13 markers for EXIF, XMP and IPTC; throws when one
// cannot fit, rather than writing the result without it.
std::vector<Marker> metadata_markers(const Metadata& metadata) {
  std::vector<Marker> markers;
  auto add = [&](int code, const std::string& signature, const std::string& data, const char* what) {
    if (data.empty()) return;
    if (signature.size() + data.size() > kMarkerBytes)
      throw std::runtime_error(metadata.source + ": its " + what + " (" + std::to_string(data.size()) +
                               " bytes) does not fit in a JPEG marker (" +
                               std::to_string(kMarkerBytes - signature.size()) +
                               " at most); write PNG or TIFF, or give --strip-metadata");
    markers.push_back({code, signature + data});
  };
  add(JPEG_APP0 + 1, std::string("Exif\0\0", 6), metadata.exif, "EXIF");
  add(JPEG_APP0 + 1, std::string("http://ns.adobe.com/xap/1.0/", 29), metadata.xmp, "XMP packet");
  add(JPEG_APP0 + 13, std::string("Photoshop 3.0", 14),
      metadata.iptc.empty() ? "" : photoshop_iptc_block(metadata.iptc), "IPTC");
  return markers;
}

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
  jpeg_save_markers(&info, JPEG_APP0 + 2, 0xffff);  // ICC profile chunks
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
  image.jpeg_quality = estimate_quality(info);
  image.metadata.resolution = resolution_from_jfif(info);
  read_icc_profile(info, image.metadata);
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
  read_exiv2_metadata(path, image.metadata);
  return image;
}

void write_jpeg(const std::string& path, const DecodedImage& image, const WriteOptions& options) {
  if (image.bits != 8) throw std::runtime_error(path + ": JPEG holds 8-bit samples only");
  // Everything that allocates is made before setjmp: longjmp skips destructors.
  const Metadata& metadata = metadata_to_write(image.metadata, options.strip_metadata);
  const std::vector<Marker> markers = metadata_markers(metadata);
  const int quality = options.jpeg_quality > 0 ? options.jpeg_quality
                      : image.jpeg_quality > 0 ? image.jpeg_quality
                                               : 95;
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
  // A denoiser's output should not gain artefacts: high quality (the
  // input's own for JPEG to JPEG), and no chroma subsampling (4:4:4),
  // which would halve the colour resolution.
  jpeg_set_quality(&info, quality, TRUE);
  for (int c = 0; c < info.num_components; ++c) {
    info.comp_info[c].h_samp_factor = 1;
    info.comp_info[c].v_samp_factor = 1;
  }
  set_density(info, metadata.resolution);
  jpeg_start_compress(&info, TRUE);  // writes the JFIF header (APP0)
  for (const Marker& marker : markers)
    jpeg_write_marker(&info, marker.code, reinterpret_cast<const JOCTET*>(marker.payload.data()),
                      unsigned(marker.payload.size()));
  if (!metadata.icc.empty())
    jpeg_write_icc_profile(&info, reinterpret_cast<const JOCTET*>(metadata.icc.data()), unsigned(metadata.icc.size()));
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.bytes.data() + size_t(info.next_scanline) * image.row_bytes());
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  if (std::fflush(file.get()) != 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace edgewise_cli
