// What an image file carries besides its pixels, read with the image and
// written with the result (EXIF, XMP, IPTC, the ICC profile, resolution,
// PNG text), so that a denoised photo keeps its orientation, colour space
// and captions. Filled in by the readers, written by the writers.
//
// EXIF, XMP and IPTC are read and written with exiv2, the library GIMP
// itself uses (through gexiv2), and travel here as the blocks JPEG and PNG
// store, so the writers of those formats embed them without exiv2 and
// only TIFF output needs it again. The ICC profile, resolution and PNG
// text go through each format's own chunk or tag.
#pragma once

#include <string>
#include <vector>

namespace edgewise_cli {

struct Resolution {
  enum class Unit { unknown, inch, centimetre };
  // Pixels per unit; with Unit::unknown only their ratio (the pixel aspect) means anything.
  double x = 0.0;
  double y = 0.0;
  Unit unit = Unit::unknown;
  bool known() const { return x > 0.0 && y > 0.0; }
};

// One PNG tEXt, zTXt or iTXt chunk.
struct PngText {
  enum class Kind { text, compressed_text, international, compressed_international };
  Kind kind = Kind::text;
  std::string keyword;
  std::string text;  // Latin-1 for tEXt and zTXt, UTF-8 for iTXt
  std::string language;
  std::string translated_keyword;
};

struct Metadata {
  std::string exif;  // a TIFF-structured EXIF block ("II*\0..." or "MM\0*..."), as in JPEG APP1 and PNG eXIf
  std::string xmp;   // the XMP packet
  std::string iptc;  // IPTC-IIM datasets
  std::string icc;   // the ICC profile
  Resolution resolution;
  std::vector<PngText> png_text;  // carried to PNG outputs only: JPEG and TIFF have no such chunks
  // Why EXIF, XMP or IPTC could not be read ("" when they could): writing
  // then fails unless the metadata is stripped, rather than silently
  // writing a result without them.
  std::string unreadable;
  std::string source;  // the file it was read from, for messages

  bool empty() const;
};

// Fills exif, xmp and iptc from the file at path (PNG, JPEG or TIFF), and
// resolution from the EXIF when the format's own fields left it unknown.
// Never throws: a failure is recorded in metadata.unreadable.
void read_exiv2_metadata(const std::string& path, Metadata& metadata);

// What a writer writes: nothing when stripping, else the metadata. Throws
// std::runtime_error naming the input when its metadata could not be read
// and is not stripped.
const Metadata& metadata_to_write(const Metadata& metadata, bool strip);

// Adds exif, xmp and iptc to the finished TIFF at path with exiv2, keeping
// every tag the file already has (image layout, ICC profile, resolution).
// The EXIF thumbnail is left out: in a TIFF it would become a second page.
void write_exiv2_metadata_to_tiff(const std::string& path, const Metadata& metadata);

// The IPTC datasets as a Photoshop image resource block (8BIM 0x0404), the
// form JPEG's APP13 and exiv2's PNG "Raw profile type iptc" hold.
std::string photoshop_iptc_block(const std::string& iptc);

// Text as ImageMagick's (and exiv2's) "Raw profile type NAME" PNG chunks
// hold binary data: name, length and hexadecimal lines.
std::string raw_profile_text(const std::string& name, const std::string& data);

}  // namespace edgewise_cli
