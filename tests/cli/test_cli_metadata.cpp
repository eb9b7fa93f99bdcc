// Metadata through the real CLI: inputs carrying EXIF (Orientation = 6),
// XMP, IPTC, an ICC profile, a resolution and PNG text are made here with
// exiv2 and the format libraries, filtered to every format, and the
// outputs are read back with exiv2 and the format libraries again, not
// with the CLI's own reader, so a mistake shared by our reader and writer
// cannot hide itself.
#include <gtest/gtest.h>
#include <png.h>
#include <tiffio.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exiv2/exiv2.hpp>
#include <string>
#include <vector>

// jpeglib.h needs size_t and FILE declared before it.
#include <jpeglib.h>

#include "cli_test_support.h"

namespace edgewise_cli_test {
namespace {

using edgewise_cli::read_image;

const char* const kMake = "Edgewise test camera";
const char* const kTitle = "Moon walk";
const char* const kCaption = "Denoised astronaut";

// ---- making inputs ----

void put_big_endian(std::string& bytes, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[offset + i] = char(value >> (24 - 8 * i));
}

// A well-formed ICC v2 display profile of the given size (a header, a
// white point and a private tag of noise), enough for libpng's checks (which
// in Debian's libpng also refuse a compressed profile under 132 bytes); its
// bytes are compared, never interpreted.
std::string icc_profile(uint32_t size = 600) {
  std::string profile(size, '\0');
  put_big_endian(profile, 0, size);
  put_big_endian(profile, 8, 0x02100000);  // version 2.1
  profile.replace(12, 4, "mntr");
  profile.replace(16, 4, "RGB ");
  profile.replace(20, 4, "XYZ ");
  profile.replace(36, 4, "acsp");
  put_big_endian(profile, 68, 0x0000f6d6);  // the D50 illuminant
  put_big_endian(profile, 72, 0x00010000);
  put_big_endian(profile, 76, 0x0000d32d);
  profile.replace(80, 4, "EdgW");
  put_big_endian(profile, 128, 2);  // tags: wtpt at 156 (20 bytes), then the private one
  profile.replace(132, 4, "wtpt");
  put_big_endian(profile, 136, 156);
  put_big_endian(profile, 140, 20);
  profile.replace(144, 4, "EdgW");
  put_big_endian(profile, 148, 176);
  put_big_endian(profile, 152, size - 176);
  profile.replace(156, 4, "XYZ ");
  put_big_endian(profile, 164, 0x0000f6d6);
  put_big_endian(profile, 168, 0x00010000);
  put_big_endian(profile, 172, 0x0000d32d);
  uint32_t state = 12345;
  for (uint32_t i = 176; i < size; ++i) {
    state = state * 1103515245u + 12345u;
    profile[i] = char(state >> 24);
  }
  return profile;
}

// Not square, so a reader that rotated by the Orientation tag would show.
DecodedImage portrait_photo() {
  const DecodedImage full = photo(3, 8);
  DecodedImage image = full;
  image.width = 200;
  image.height = 120;
  image.allocate();
  for (int y = 0; y < image.height; ++y)
    std::memcpy(image.bytes.data() + size_t(y) * image.row_bytes(), full.bytes.data() + size_t(y) * full.row_bytes(),
                image.row_bytes());
  return image;
}

png_text text_chunk(int compression, const char* key, const char* text, const char* language = nullptr) {
  png_text chunk{};
  chunk.compression = compression;
  chunk.key = const_cast<char*>(key);
  chunk.text = const_cast<char*>(text);
  chunk.lang = const_cast<char*>(language);
  return chunk;
}

void write_png_with_chunks(const std::string& path, const DecodedImage& image) {
  FILE* file = std::fopen(path.c_str(), "wb");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, file);
  png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  const std::string icc = icc_profile();
  png_set_iCCP(png, info, "test profile", PNG_COMPRESSION_TYPE_BASE, reinterpret_cast<png_const_bytep>(icc.data()),
               png_uint_32(icc.size()));
  png_set_pHYs(png, info, 11811, 11811, PNG_RESOLUTION_METER);  // 300 dpi
  png_text texts[] = {text_chunk(PNG_TEXT_COMPRESSION_NONE, "Title", "Astronaut"),
                      text_chunk(PNG_TEXT_COMPRESSION_zTXt, "Comment", "compressed comment, compressed comment"),
                      // Not "Description": exiv2 rewrites that one as its image comment.
                      text_chunk(PNG_ITXT_COMPRESSION_NONE, "Author", "\xc3\x89quipage", "fr")};
  png_set_text(png, info, texts, 3);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) png_write_row(png, image.bytes.data() + size_t(y) * image.row_bytes());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(file);
}

void write_jpeg_with_markers(const std::string& path, const DecodedImage& image) {
  FILE* file = std::fopen(path.c_str(), "wb");
  jpeg_compress_struct info{};
  jpeg_error_mgr errors{};
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, file);
  info.image_width = JDIMENSION(image.width);
  info.image_height = JDIMENSION(image.height);
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  info.density_unit = 1;  // dots per inch
  info.X_density = 300;
  info.Y_density = 300;
  jpeg_start_compress(&info, TRUE);
  // Over 65519 bytes, so that libjpeg-turbo splits it over two APP2 markers.
  const std::string icc = icc_profile(70000);
  jpeg_write_icc_profile(&info, reinterpret_cast<const JOCTET*>(icc.data()), unsigned(icc.size()));
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.bytes.data() + size_t(info.next_scanline) * image.row_bytes());
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::fclose(file);
}

void write_tiff_with_tags(const std::string& path, const DecodedImage& image) {
  TIFF* tiff = TIFFOpen(path.c_str(), "w");
  TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, uint32_t(image.width));
  TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, uint32_t(image.height));
  TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, uint16_t(3));
  TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, uint16_t(8));
  TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, uint32_t(16));
  const std::string icc = icc_profile();
  TIFFSetField(tiff, TIFFTAG_ICCPROFILE, uint32_t(icc.size()), icc.data());
  TIFFSetField(tiff, TIFFTAG_XRESOLUTION, 300.0f);
  TIFFSetField(tiff, TIFFTAG_YRESOLUTION, 300.0f);
  TIFFSetField(tiff, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
  std::vector<uint8_t> row(image.row_bytes());
  for (int y = 0; y < image.height; ++y) {
    std::memcpy(row.data(), image.bytes.data() + size_t(y) * image.row_bytes(), row.size());
    TIFFWriteScanline(tiff, row.data(), uint32_t(y), 0);
  }
  TIFFClose(tiff);
}

// EXIF, XMP and IPTC, written into the file by exiv2 as GIMP would. A
// JPEG or PNG also gets an EXIF thumbnail (IFD1), which a TIFF output must
// not turn into a second page.
void add_exiv2_metadata(const std::string& path, const std::string& extra_xmp_text = "") {
  Exiv2::LogMsg::setLevel(Exiv2::LogMsg::mute);
  Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(path);
  image->readMetadata();
  if (image->imageType() != Exiv2::ImageType::tiff) {
    const std::string thumbnail_path = path + ".thumbnail.jpg";
    edgewise_cli::write_image(thumbnail_path, FileFormat::jpeg, photo(3, 8));
    const std::string thumbnail = read_bytes(thumbnail_path);
    std::remove(thumbnail_path.c_str());
    Exiv2::ExifThumb(image->exifData())
        .setJpegThumbnail(reinterpret_cast<const Exiv2::byte*>(thumbnail.data()), long(thumbnail.size()));
  }
  image->exifData()["Exif.Image.Orientation"] = uint16_t(6);  // shown rotated 90 degrees clockwise
  image->exifData()["Exif.Image.Make"] = kMake;
  image->exifData()["Exif.Photo.DateTimeOriginal"] = "2026:01:02 03:04:05";
  image->xmpData()["Xmp.dc.title"] = kTitle;
  if (!extra_xmp_text.empty()) image->xmpData()["Xmp.dc.description"] = extra_xmp_text;
  image->iptcData()["Iptc.Application2.Caption"] = kCaption;
  image->writeMetadata();
}

// An input of the format with every kind of metadata it can carry.
std::string make_input(const ScratchDir& dir, FileFormat format) {
  const DecodedImage image = portrait_photo();
  const char* const names[] = {"in.png", "in.jpg", "in.tif"};
  const std::string path = dir.file(names[int(format)]);
  switch (format) {
    case FileFormat::png:
      write_png_with_chunks(path, image);
      break;
    case FileFormat::jpeg:
      write_jpeg_with_markers(path, image);
      break;
    case FileFormat::tiff:
      write_tiff_with_tags(path, image);
      break;
  }
  add_exiv2_metadata(path);
  return path;
}

// ---- reading outputs ----

struct Exiv2Fields {
  long orientation = 0;
  std::string make, date, title, caption;
};

Exiv2Fields read_exiv2(const std::string& path) {
  Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(path);
  image->readMetadata();
  Exiv2Fields fields;
  const Exiv2::ExifData& exif = image->exifData();
  auto orientation = exif.findKey(Exiv2::ExifKey("Exif.Image.Orientation"));
  if (orientation != exif.end()) fields.orientation = orientation->toLong();
  auto make = exif.findKey(Exiv2::ExifKey("Exif.Image.Make"));
  if (make != exif.end()) fields.make = make->toString();
  auto date = exif.findKey(Exiv2::ExifKey("Exif.Photo.DateTimeOriginal"));
  if (date != exif.end()) fields.date = date->toString();
  auto title = image->xmpData().findKey(Exiv2::XmpKey("Xmp.dc.title"));
  if (title != image->xmpData().end()) fields.title = title->toString();
  auto caption = image->iptcData().findKey(Exiv2::IptcKey("Iptc.Application2.Caption"));
  if (caption != image->iptcData().end()) fields.caption = caption->toString();
  return fields;
}

struct FormatFields {
  std::string icc;
  double x_resolution = 0, y_resolution = 0;
  std::string unit;                // "inch", "cm", "metre" or ""
  std::vector<std::string> texts;  // PNG: "KIND KEY=TEXT" per chunk
};

FormatFields read_png_fields(const std::string& path) {
  FormatFields fields;
  FILE* file = std::fopen(path.c_str(), "rb");
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, file);
  png_read_info(png, info);
  png_charp name = nullptr;
  int compression = 0;
  png_bytep profile = nullptr;
  png_uint_32 size = 0;
  if (png_get_iCCP(png, info, &name, &compression, &profile, &size))
    fields.icc.assign(reinterpret_cast<const char*>(profile), size);
  png_uint_32 x = 0, y = 0;
  int unit = 0;
  if (png_get_pHYs(png, info, &x, &y, &unit)) {
    fields.x_resolution = x;
    fields.y_resolution = y;
    fields.unit = unit == PNG_RESOLUTION_METER ? "metre" : "";
  }
  png_textp texts = nullptr;
  const int count = png_get_text(png, info, &texts, nullptr);
  static const char* const kKinds[] = {"tEXt", "zTXt", "iTXt", "iTXt-z"};
  for (int i = 0; i < count; ++i)
    fields.texts.push_back(std::string(kKinds[texts[i].compression + 1]) + " " + texts[i].key + "=" +
                           (texts[i].compression >= PNG_ITXT_COMPRESSION_NONE
                                ? std::string(texts[i].lang ? texts[i].lang : "") + ":"
                                : "") +
                           std::string(texts[i].text).substr(0, 40));
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(file);
  return fields;
}

FormatFields read_jpeg_fields(const std::string& path) {
  FormatFields fields;
  FILE* file = std::fopen(path.c_str(), "rb");
  jpeg_decompress_struct info{};
  jpeg_error_mgr errors{};
  info.err = jpeg_std_error(&errors);
  jpeg_create_decompress(&info);
  jpeg_stdio_src(&info, file);
  jpeg_save_markers(&info, JPEG_APP0 + 2, 0xffff);
  jpeg_read_header(&info, TRUE);
  JOCTET* profile = nullptr;
  unsigned size = 0;
  if (jpeg_read_icc_profile(&info, &profile, &size)) fields.icc.assign(reinterpret_cast<const char*>(profile), size);
  std::free(profile);
  if (info.saw_JFIF_marker && info.density_unit != 0) {
    fields.x_resolution = info.X_density;
    fields.y_resolution = info.Y_density;
    fields.unit = info.density_unit == 1 ? "inch" : "cm";
  }
  jpeg_destroy_decompress(&info);
  std::fclose(file);
  return fields;
}

FormatFields read_tiff_fields(const std::string& path) {
  FormatFields fields;
  TIFF* tiff = TIFFOpen(path.c_str(), "r");
  uint32_t size = 0;
  void* profile = nullptr;
  if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &size, &profile))
    fields.icc.assign(static_cast<const char*>(profile), size);
  float x = 0, y = 0;
  uint16_t unit = 0;
  if (TIFFGetField(tiff, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tiff, TIFFTAG_YRESOLUTION, &y)) {
    TIFFGetFieldDefaulted(tiff, TIFFTAG_RESOLUTIONUNIT, &unit);
    fields.x_resolution = x;
    fields.y_resolution = y;
    fields.unit = unit == RESUNIT_INCH ? "inch" : unit == RESUNIT_CENTIMETER ? "cm" : "";
  }
  if (TIFFNumberOfDirectories(tiff) != 1) fields.unit += " (several pages)";
  TIFFClose(tiff);
  return fields;
}

FormatFields read_format_fields(const std::string& path) {
  switch (edgewise_cli::detect_format(path)) {
    case FileFormat::png:
      return read_png_fields(path);
    case FileFormat::jpeg:
      return read_jpeg_fields(path);
    case FileFormat::tiff:
      return read_tiff_fields(path);
  }
  return {};
}

// 300 dpi as each format states it.
void expect_300_dpi(const FormatFields& fields, FileFormat format) {
  if (format == FileFormat::png) {
    EXPECT_EQ(fields.unit, "metre");
    EXPECT_EQ(fields.x_resolution, 11811);
    EXPECT_EQ(fields.y_resolution, 11811);
  } else {
    EXPECT_EQ(fields.unit, "inch");
    EXPECT_NEAR(fields.x_resolution, 300.0, 1e-3);
    EXPECT_NEAR(fields.y_resolution, 300.0, 1e-3);
  }
}

const char* extension(FileFormat format) {
  static const char* const kExtensions[] = {"png", "jpg", "tif"};
  return kExtensions[int(format)];
}

std::string filter_to(const std::string& input, const std::string& output, const std::string& options = "") {
  const CliResult result = run_cli(std::string(kFilterArgs) + " " + options + " " + input + " -o " + output);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  return output;
}

const FileFormat kFormats[] = {FileFormat::png, FileFormat::jpeg, FileFormat::tiff};

// ---- the tests ----

TEST(CliMetadata, InputsCarryEveryKind) {
  ScratchDir dir;
  for (FileFormat format : kFormats) {
    SCOPED_TRACE(extension(format));
    const std::string input = make_input(dir, format);
    const Exiv2Fields tags = read_exiv2(input);
    EXPECT_EQ(tags.orientation, 6);
    EXPECT_EQ(tags.make, kMake);
    EXPECT_NE(tags.title.find(kTitle), std::string::npos);
    EXPECT_EQ(tags.caption, kCaption);
    const FormatFields fields = read_format_fields(input);
    EXPECT_FALSE(fields.icc.empty());
    expect_300_dpi(fields, format);
  }
}

// Every input format to every output format: EXIF (the Orientation as it
// was, the pixels not rotated), XMP, IPTC, the ICC profile and 300 dpi.
TEST(CliMetadata, KeptForEveryFormatPair) {
  ScratchDir dir;
  for (FileFormat from : kFormats) {
    const std::string input = make_input(dir, from);
    const std::string icc = read_format_fields(input).icc;
    for (FileFormat to : kFormats) {
      SCOPED_TRACE(std::string(extension(from)) + " -> " + extension(to));
      const std::string output = filter_to(input, dir.file(std::string("out.") + extension(to)));
      const Exiv2Fields tags = read_exiv2(output);
      EXPECT_EQ(tags.orientation, 6);
      EXPECT_EQ(tags.make, kMake);
      EXPECT_EQ(tags.date, "2026:01:02 03:04:05");
      EXPECT_NE(tags.title.find(kTitle), std::string::npos) << tags.title;
      EXPECT_EQ(tags.caption, kCaption);
      const FormatFields fields = read_format_fields(output);
      EXPECT_EQ(fields.icc, icc);
      expect_300_dpi(fields, to);
      const DecodedImage image = read_image(output);
      EXPECT_EQ(image.width, 200);
      EXPECT_EQ(image.height, 120);
    }
  }
}

TEST(CliMetadata, PngTextChunksKept) {
  ScratchDir dir;
  const std::string input = make_input(dir, FileFormat::png);
  const FormatFields fields = read_png_fields(filter_to(input, dir.file("out.png")));
  for (const char* text : {"tEXt Title=Astronaut", "zTXt Comment=compressed comment, compressed comment",
                           "iTXt Author=fr:\xc3\x89quipage"})
    EXPECT_EQ(std::count(fields.texts.begin(), fields.texts.end(), text), 1) << text << " among:\n"
                                                                             << ::testing::PrintToString(fields.texts);
  int xmp_chunks = 0;
  for (const std::string& text : fields.texts) xmp_chunks += text.find("XML:com.adobe.xmp=") != std::string::npos;
  EXPECT_EQ(xmp_chunks, 1) << "exiv2's chunks are written once, not also as text";
}

// EXIF in a PNG output goes in the standard eXIf chunk.
TEST(CliMetadata, PngOutputUsesExifChunk) {
  ScratchDir dir;
  const std::string output = filter_to(make_input(dir, FileFormat::jpeg), dir.file("out.png"));
  EXPECT_NE(read_bytes(output).find("eXIf"), std::string::npos);
}

TEST(CliMetadata, StrippedOnRequest) {
  ScratchDir dir;
  for (FileFormat from : kFormats) {
    const std::string input = make_input(dir, from);
    for (FileFormat to : kFormats) {
      SCOPED_TRACE(std::string(extension(from)) + " -> " + extension(to));
      const std::string output = filter_to(input, dir.file(std::string("out.") + extension(to)), "--strip-metadata");
      const Exiv2Fields tags = read_exiv2(output);
      EXPECT_EQ(tags.orientation, 0);
      EXPECT_EQ(tags.make, "");
      EXPECT_EQ(tags.title, "");
      EXPECT_EQ(tags.caption, "");
      const FormatFields fields = read_format_fields(output);
      EXPECT_EQ(fields.icc, "");
      EXPECT_EQ(fields.x_resolution, 0);
      EXPECT_EQ(fields.texts, std::vector<std::string>{});
    }
  }
}

// A JPEG marker holds at most 64 KiB: metadata that cannot fit is an error
// naming the input, not a silent loss; PNG and TIFF take it whole.
TEST(CliMetadata, XmpTooLargeForJpeg) {
  ScratchDir dir;
  write_png_with_chunks(dir.file("in.png"), portrait_photo());
  const std::string description(70000, 'x');
  add_exiv2_metadata(dir.file("in.png"), description);
  const CliResult refused = run_cli(dir.file("in.png") + " -o " + dir.file("out.jpg"));
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.err.find(dir.file("in.png") + ": its XMP packet"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("does not fit in a JPEG marker"), std::string::npos) << refused.err;
  EXPECT_FALSE(exists(dir.file("out.jpg")));
  filter_to(dir.file("in.png"), dir.file("out.jpg"), "--strip-metadata");
  const std::string tiff = filter_to(dir.file("in.png"), dir.file("out.tif"));
  Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(tiff);
  image->readMetadata();
  EXPECT_NE(image->xmpPacket().find(description), std::string::npos);
}

}  // namespace
}  // namespace edgewise_cli_test
