// PNG reading through libpng's classic API (the simplified API turns 16-bit
// into linear light, which would not keep the file's precision as it is).
//
// PNG writing is our own chunk writer around libdeflate: libpng's zlib
// deflate made a 24 MP photo's encode take 4-7 s on 2 cores (bench/RESULTS.md,
// "CLI codecs (issue 11)"); libdeflate compresses the same filtered rows
// several times faster, and the rows are filtered on all cores first.
// libdeflate works on whole buffers, so the filtered image and its
// compressed stream are held in memory while the file is written.
#include <libdeflate.h>
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "atomic_file.h"
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

// ---- reading ----

// Text chunks that hold EXIF, XMP or IPTC are exiv2's to read and write.
bool holds_exiv2_block(const std::string& keyword) {
  return keyword == "XML:com.adobe.xmp" || keyword.rfind("Raw profile type ", 0) == 0;
}

void read_text_chunks(png_structp png, png_infop info, Metadata& metadata) {
  png_textp texts = nullptr;
  const int count = png_get_text(png, info, &texts, nullptr);
  for (int i = 0; i < count; ++i) {
    const png_text& chunk = texts[i];
    if (!chunk.key || holds_exiv2_block(chunk.key)) continue;
    PngText text;
    text.keyword = chunk.key;
    const bool international = chunk.compression >= PNG_ITXT_COMPRESSION_NONE;
    if (chunk.text) text.text.assign(chunk.text, international ? chunk.itxt_length : chunk.text_length);
    text.kind = chunk.compression == PNG_TEXT_COMPRESSION_NONE   ? PngText::Kind::text
                : chunk.compression == PNG_TEXT_COMPRESSION_zTXt ? PngText::Kind::compressed_text
                : chunk.compression == PNG_ITXT_COMPRESSION_NONE ? PngText::Kind::international
                                                                 : PngText::Kind::compressed_international;
    if (chunk.lang) text.language = chunk.lang;
    if (chunk.lang_key) text.translated_keyword = chunk.lang_key;
    metadata.png_text.push_back(std::move(text));
  }
}

// A resolution in pixels per metre is shown as the whole number of dots
// per inch it was made from (300 dpi is stored as 11811 px/m).
Resolution resolution_from_phys(png_uint_32 x, png_uint_32 y, int unit) {
  Resolution resolution;
  if (x == 0 || y == 0) return resolution;
  if (unit != PNG_RESOLUTION_METER) return {double(x), double(y), Resolution::Unit::unknown};
  const double x_dpi = x * 0.0254, y_dpi = y * 0.0254;
  if (std::abs(x_dpi - std::round(x_dpi)) < 0.01 && std::abs(y_dpi - std::round(y_dpi)) < 0.01)
    return {std::round(x_dpi), std::round(y_dpi), Resolution::Unit::inch};
  return {x / 100.0, y / 100.0, Resolution::Unit::centimetre};
}

// No single allocation of libpng's above this: it also allocates a chunk's
// declared length before reading it, which that cap does not cover (2 GB
// for an iTXt chunk of a 120-byte file, found by the PNG fuzzer). Refused,
// libpng skips the chunk or fails the read. Rows and chunks of real files
// stay far below it.
constexpr png_alloc_size_t kPngAllocationCap = png_alloc_size_t(64) << 20;

png_voidp capped_png_malloc(png_structp, png_alloc_size_t size) {
  return size > kPngAllocationCap ? nullptr : std::malloc(size);
}

void capped_png_free(png_structp, png_voidp data) { std::free(data); }

void read_chunk_metadata(png_structp png, png_infop info, Metadata& metadata) {
  png_charp name = nullptr;
  int compression = 0;
  png_bytep profile = nullptr;
  png_uint_32 profile_size = 0;
  if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_size) && profile)
    metadata.icc.assign(reinterpret_cast<const char*>(profile), profile_size);
  png_uint_32 x = 0, y = 0;
  int unit = 0;
  if (png_get_pHYs(png, info, &x, &y, &unit)) metadata.resolution = resolution_from_phys(x, y, unit);
  read_text_chunks(png, info, metadata);
}

// ---- writing ----

// A PNG file as a sequence of chunks, each with its CRC.
class ChunkWriter {
 public:
  explicit ChunkWriter(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) fail();
    put("\x89PNG\r\n\x1a\n", 8);
  }
  void chunk(const char* type, const void* data, size_t size) {
    if (size > 0x7fffffff) throw std::runtime_error("cannot write " + path_ + ": a PNG chunk is too large");
    uint8_t header[8];
    store_big_endian(header, uint32_t(size));
    std::memcpy(header + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, header + 4, 4);
    if (size) crc = libdeflate_crc32(crc, data, size);  // a null buffer would reset the CRC
    uint8_t trailer[4];
    store_big_endian(trailer, crc);
    put(header, 8);
    put(data, size);
    put(trailer, 4);
  }
  void chunk(const char* type, const std::string& data) { chunk(type, data.data(), data.size()); }
  void finish() {
    if (std::fflush(file_.get()) != 0) fail();
  }
  static void store_big_endian(uint8_t* out, uint32_t value) {
    for (int i = 0; i < 4; ++i) out[i] = uint8_t(value >> (24 - 8 * i));
  }

 private:
  void put(const void* data, size_t size) {
    if (size && std::fwrite(data, 1, size, file_.get()) != size) fail();
  }
  [[noreturn]] void fail() const { throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno)); }

  std::string path_;
  File file_;
};

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
using Compressor = std::unique_ptr<libdeflate_compressor, CompressorDeleter>;

Compressor make_compressor(int level) {
  Compressor compressor(libdeflate_alloc_compressor(level));
  if (!compressor) throw std::bad_alloc();
  return compressor;
}

// A zlib stream, as IDAT, iCCP, zTXt and compressed iTXt hold.
PixelBytes zlib_compress(const uint8_t* data, size_t size, int level) {
  const Compressor compressor = make_compressor(level);
  PixelBytes out(libdeflate_zlib_compress_bound(compressor.get(), size));
  out.resize(libdeflate_zlib_compress(compressor.get(), data, size, out.data(), out.size()));
  if (out.empty()) throw std::logic_error("libdeflate: compressed data larger than its bound");
  return out;
}

std::string zlib_compress(const std::string& text) {
  const PixelBytes packed = zlib_compress(reinterpret_cast<const uint8_t*>(text.data()), text.size(), 9);
  return std::string(packed.begin(), packed.end());
}

// The four PNG filters, each in its own loop over restrict pointers so that
// the compiler vectorises it (one loop computing all four did not: too many
// possible overlaps to check at run time). Bytes before the row's first
// pixel count as zero.
void sub_filter(const uint8_t* __restrict row, size_t n, size_t bpp, uint8_t* __restrict out) {
  for (size_t i = 0; i < bpp; ++i) out[i] = row[i];
  for (size_t i = bpp; i < n; ++i) out[i] = uint8_t(row[i] - row[i - bpp]);
}

void up_filter(const uint8_t* __restrict row, const uint8_t* __restrict above, size_t n, uint8_t* __restrict out) {
  for (size_t i = 0; i < n; ++i) out[i] = uint8_t(row[i] - above[i]);
}

void average_filter(const uint8_t* __restrict row, const uint8_t* __restrict above, size_t n, size_t bpp,
                    uint8_t* __restrict out) {
  for (size_t i = 0; i < bpp; ++i) out[i] = uint8_t(row[i] - (above[i] >> 1));
  for (size_t i = bpp; i < n; ++i) out[i] = uint8_t(row[i] - ((row[i - bpp] + above[i]) >> 1));
}

void paeth_filter(const uint8_t* __restrict row, const uint8_t* __restrict above, size_t n, size_t bpp,
                  uint8_t* __restrict out) {
  for (size_t i = 0; i < bpp; ++i) out[i] = uint8_t(row[i] - above[i]);  // the predictor picks the byte above
  for (size_t i = bpp; i < n; ++i) {
    const int left = row[i - bpp], up = above[i], corner = above[i - bpp];
    // Branch-free: the nearest of left, up and corner to left + up - corner, ties in that order.
    const int pa = std::abs(up - corner), pb = std::abs(left - corner), pc = std::abs(left + up - 2 * corner);
    const int nearer = pb < pa ? up : left;
    out[i] = uint8_t(row[i] - (pc < std::min(pa, pb) ? corner : nearer));
  }
}

// Each byte read as signed, by magnitude.
uint32_t magnitude_sum(const uint8_t* __restrict bytes, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += bytes[i] < 128 ? bytes[i] : 256u - bytes[i];
  return sum;
}

// The adaptive choice the PNG specification recommends (and libpng makes):
// per row, the filter whose output bytes, read as signed, have the
// smallest sum of magnitudes.
class RowFilter {
 public:
  RowFilter(size_t row_bytes, size_t pixel_bytes)
      : row_bytes_(row_bytes), pixel_bytes_(pixel_bytes), candidates_(4 * row_bytes) {}

  // out receives the filter type byte and row_bytes filtered bytes;
  // above is the unfiltered row above (zeros for the first row).
  void filter(const uint8_t* row, const uint8_t* above, uint8_t* out) {
    const size_t n = row_bytes_, bpp = pixel_bytes_;
    uint8_t* const candidate[5] = {nullptr, candidates_.data(), candidates_.data() + n, candidates_.data() + 2 * n,
                                   candidates_.data() + 3 * n};
    sub_filter(row, n, bpp, candidate[1]);
    up_filter(row, above, n, candidate[2]);
    average_filter(row, above, n, bpp, candidate[3]);
    paeth_filter(row, above, n, bpp, candidate[4]);
    int best = 0;
    uint32_t best_sum = magnitude_sum(row, n);
    for (int type = 1; type <= 4; ++type) {
      const uint32_t sum = magnitude_sum(candidate[type], n);
      if (sum < best_sum) {
        best = type;
        best_sum = sum;
      }
    }
    out[0] = uint8_t(best);
    std::memcpy(out + 1, best == 0 ? row : candidate[best], n);
  }

 private:
  size_t row_bytes_;
  size_t pixel_bytes_;
  std::vector<uint8_t> candidates_;
};

// Row y as PNG stores it: 16-bit samples big-endian.
const uint8_t* png_row(const DecodedImage& image, int y, std::vector<uint8_t>& scratch) {
  const uint8_t* row = image.bytes.data() + size_t(y) * image.row_bytes();
  if (image.bits == 8 || !little_endian()) return row;
  const size_t samples = image.row_bytes() / 2;
  for (size_t i = 0; i < samples; ++i) {
    uint16_t sample;
    std::memcpy(&sample, row + 2 * i, 2);
    sample = uint16_t(sample << 8 | sample >> 8);
    std::memcpy(scratch.data() + 2 * i, &sample, 2);
  }
  return scratch.data();
}

// Rows [begin, end) into out (row_bytes + 1 bytes each, from row begin).
void filter_rows(const DecodedImage& image, int begin, int end, bool adaptive, uint8_t* out) {
  const size_t n = image.row_bytes();
  std::vector<uint8_t> current(n), previous_bytes(n, 0);
  RowFilter filter(n, size_t(image.channels * image.bits / 8));
  const uint8_t* previous = begin > 0 ? png_row(image, begin - 1, previous_bytes) : previous_bytes.data();
  for (int y = begin; y < end; ++y, out += n + 1) {
    const uint8_t* row = png_row(image, y, current);
    if (adaptive) {
      filter.filter(row, previous, out);
    } else {
      out[0] = 0;
      std::memcpy(out + 1, row, n);
    }
    if (row == current.data()) {
      current.swap(previous_bytes);  // the scratch row becomes the one above
      previous = previous_bytes.data();
    } else {
      previous = row;
    }
  }
}

// Filtering is independent per row, given the row above: split over cores.
PixelBytes filter_image(const DecodedImage& image, bool adaptive) {
  const size_t stride = image.row_bytes() + 1;
  PixelBytes filtered(stride * size_t(image.height));
  const int threads = std::clamp(int(std::thread::hardware_concurrency()), 1, std::max(1, image.height / 64));
  std::vector<std::thread> workers;
  auto range = [&](int t) { return int(int64_t(image.height) * t / threads); };
  try {
    for (int t = 1; t < threads; ++t)
      workers.emplace_back(filter_rows, std::cref(image), range(t), range(t + 1), adaptive,
                           filtered.data() + stride * size_t(range(t)));
    filter_rows(image, 0, range(1), adaptive, filtered.data());
  } catch (...) {
    for (std::thread& worker : workers) worker.join();
    throw;
  }
  for (std::thread& worker : workers) worker.join();
  return filtered;
}

std::string header_chunk(const DecodedImage& image) {
  static const uint8_t kColour[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                    PNG_COLOR_TYPE_RGB_ALPHA};
  uint8_t header[13] = {};
  ChunkWriter::store_big_endian(header, uint32_t(image.width));
  ChunkWriter::store_big_endian(header + 4, uint32_t(image.height));
  header[8] = uint8_t(image.bits);
  header[9] = kColour[image.channels];  // compression, filter method and interlace stay 0
  return std::string(reinterpret_cast<const char*>(header), sizeof header);
}

std::string phys_chunk(const Resolution& resolution) {
  const double per_metre = resolution.unit == Resolution::Unit::inch         ? 100.0 / 2.54
                           : resolution.unit == Resolution::Unit::centimetre ? 100.0
                                                                             : 1.0;
  auto scaled = [&](double value) { return uint32_t(std::clamp(std::round(value * per_metre), 1.0, 2147483647.0)); };
  uint8_t phys[9];
  ChunkWriter::store_big_endian(phys, scaled(resolution.x));
  ChunkWriter::store_big_endian(phys + 4, scaled(resolution.y));
  phys[8] = resolution.unit == Resolution::Unit::unknown ? PNG_RESOLUTION_UNKNOWN : PNG_RESOLUTION_METER;
  return std::string(reinterpret_cast<const char*>(phys), sizeof phys);
}

void write_text_chunk(ChunkWriter& png, const PngText& text) {
  const std::string key = text.keyword + '\0';
  switch (text.kind) {
    case PngText::Kind::text:
      return png.chunk("tEXt", key + text.text);
    case PngText::Kind::compressed_text:
      return png.chunk("zTXt", key + '\0' + zlib_compress(text.text));
    case PngText::Kind::international:
    case PngText::Kind::compressed_international: {
      const bool compressed = text.kind == PngText::Kind::compressed_international;
      return png.chunk("iTXt", key + char(compressed) + '\0' + text.language + '\0' + text.translated_keyword + '\0' +
                                   (compressed ? zlib_compress(text.text) : text.text));
    }
  }
}

// Before IDAT, where readers that stop at the pixels still see them. EXIF
// goes in eXIf (PNG 1.5; exiv2, browsers and macOS read it), XMP and IPTC
// where exiv2 and GIMP write them.
void write_metadata_chunks(ChunkWriter& png, const Metadata& metadata) {
  if (!metadata.icc.empty()) png.chunk("iCCP", std::string("ICC profile\0\0", 13) + zlib_compress(metadata.icc));
  if (metadata.resolution.known()) png.chunk("pHYs", phys_chunk(metadata.resolution));
  if (!metadata.exif.empty()) png.chunk("eXIf", metadata.exif);
  if (!metadata.xmp.empty())
    write_text_chunk(png, {PngText::Kind::international, "XML:com.adobe.xmp", metadata.xmp, "", ""});
  if (!metadata.iptc.empty())
    write_text_chunk(png, {PngText::Kind::compressed_text, "Raw profile type iptc",
                           raw_profile_text("iptc", photoshop_iptc_block(metadata.iptc)), "", ""});
  for (const PngText& text : metadata.png_text) write_text_chunk(png, text);
}

}  // namespace

DecodedImage read_png(const std::string& path, const ReadLimits& limits) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  std::string error;
  png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &error, png_fail, png_warn, nullptr,
                                             capped_png_malloc, capped_png_free);
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
  // A compressed chunk (iCCP, zTXt, iTXt) declares its inflated size: without
  // a cap libpng allocates it up front (2 GB from a 200-byte file, found by
  // the PNG fuzzer). 64 MiB holds any real ICC profile or text.
  png_set_chunk_malloc_max(png, kPngAllocationCap);
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
  png_read_end(png, info);  // text chunks may also follow the pixels
  read_chunk_metadata(png, info, image.metadata);
  png_destroy_read_struct(&png, &info, nullptr);
  read_exiv2_metadata(path, image.metadata);
  return image;
}

void write_png(const std::string& path, const DecodedImage& image, const WriteOptions& options) {
  if (image.bits != 8 && image.bits != 16)
    throw std::runtime_error(path + ": PNG holds 8- or 16-bit samples, not " + std::to_string(image.bits) + "-bit");
  const Metadata& metadata = metadata_to_write(image.metadata, options.strip_metadata);
  const int level = options.png_compression >= 0 ? std::min(options.png_compression, 9) : kDefaultPngCompression;
  // Level 0 stores the rows as they are: filtering would only cost time.
  const PixelBytes filtered = filter_image(image, level > 0);
  const PixelBytes stream = zlib_compress(filtered.data(), filtered.size(), level);
  ChunkWriter png(path);
  png.chunk("IHDR", header_chunk(image));
  write_metadata_chunks(png, metadata);
  constexpr size_t kIdatBytes = size_t(1) << 20;  // any size is valid; 1 MiB keeps the chunk count small
  for (size_t offset = 0; offset < stream.size(); offset += kIdatBytes) {
    png.chunk("IDAT", stream.data() + offset, std::min(kIdatBytes, stream.size() - offset));
    if (offset == 0 && stream.size() > kIdatBytes) stop_for_test_at("mid-write");
  }
  png.chunk("IEND", nullptr, 0);
  png.finish();
}

}  // namespace edgewise_cli
