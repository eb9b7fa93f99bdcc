#include "metadata.h"

#include <cstdio>
#include <exiv2/exiv2.hpp>
#include <mutex>
#include <stdexcept>

namespace edgewise_cli {

namespace {

// exiv2 prints its warnings on stderr, where the CLI prints one line per
// failed file; and its XMP toolkit must be initialised once before threads
// may use it.
void prepare_exiv2() {
  static std::once_flag once;
  std::call_once(once, [] {
    Exiv2::LogMsg::setLevel(Exiv2::LogMsg::mute);
    Exiv2::XmpParser::initialize();
  });
}

// Tags of the first IFD that describe a TIFF's pixel data, or hold what
// Metadata carries on its own (XMP, IPTC, ICC): in another file they would
// describe pixels that are not there, or duplicate a block.
bool describes_pixels_or_other_block(uint16_t tag) {
  switch (tag) {
    case 254:
    case 255:  // NewSubfileType, SubfileType
    case 256:
    case 257:
    case 258:
    case 259:
    case 262:
    case 263:
    case 266:  // size, bits, compression, ...
    case 273:
    case 277:
    case 278:
    case 279:
    case 284:  // strips, samples, planar
    case 317:
    case 320:
    case 322:
    case 323:
    case 324:
    case 325:
    case 330:  // predictor, colour map, tiles
    case 338:
    case 339:
    case 340:
    case 341:
    case 347:  // extra samples, sample format, JPEG tables
    case 529:
    case 530:
    case 532:  // YCbCr coefficients, subsampling, reference black/white
    case 700:
    case 33723:
    case 34377:
    case 34675:  // XMP, IPTC, Photoshop resources, ICC
      return true;
    default:
      return false;
  }
}

Exiv2::ExifData portable_exif(const Exiv2::ExifData& exif) {
  Exiv2::ExifData kept;
  for (const Exiv2::Exifdatum& datum : exif)
    if (datum.groupName() != "Image" || !describes_pixels_or_other_block(datum.tag())) kept.add(datum);
  return kept;
}

std::string as_string(const Exiv2::DataBuf& data) {
  return data.size_ > 0 ? std::string(reinterpret_cast<const char*>(data.pData_), size_t(data.size_)) : "";
}

const Exiv2::byte* as_bytes(const std::string& data) { return reinterpret_cast<const Exiv2::byte*>(data.data()); }

std::string encode_exif(const Exiv2::ExifData& exif, Exiv2::ByteOrder order) {
  const Exiv2::ExifData kept = portable_exif(exif);
  if (kept.empty()) return "";
  Exiv2::Blob blob;
  Exiv2::ExifParser::encode(blob, order == Exiv2::invalidByteOrder ? Exiv2::littleEndian : order, kept);
  return std::string(blob.begin(), blob.end());
}

// Camera JPEGs often state their resolution only in EXIF (no JFIF header).
void resolution_from_exif(const Exiv2::ExifData& exif, Resolution& resolution) {
  const auto x = exif.findKey(Exiv2::ExifKey("Exif.Image.XResolution"));
  const auto y = exif.findKey(Exiv2::ExifKey("Exif.Image.YResolution"));
  if (x == exif.end() || y == exif.end()) return;
  const auto unit = exif.findKey(Exiv2::ExifKey("Exif.Image.ResolutionUnit"));
  const long unit_code = unit == exif.end() ? 2 : unit->toLong();  // TIFF's default is the inch
  resolution.x = double(x->toFloat());
  resolution.y = double(y->toFloat());
  resolution.unit = unit_code == 2   ? Resolution::Unit::inch
                    : unit_code == 3 ? Resolution::Unit::centimetre
                                     : Resolution::Unit::unknown;
  if (!resolution.known()) resolution = Resolution{};
}

void append_big_endian(std::string& out, uint32_t value, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) out += char((value >> shift) & 0xff);
}

}  // namespace

bool Metadata::empty() const {
  return exif.empty() && xmp.empty() && iptc.empty() && icc.empty() && !resolution.known() && png_text.empty();
}

void read_exiv2_metadata(const std::string& path, Metadata& metadata) {
  metadata.source = path;
  try {
    prepare_exiv2();
    const Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(path);
    image->readMetadata();
    metadata.exif = encode_exif(image->exifData(), image->byteOrder());
    if (!metadata.resolution.known()) resolution_from_exif(image->exifData(), metadata.resolution);
    metadata.xmp = image->xmpPacket();
    if (!image->iptcData().empty()) metadata.iptc = as_string(Exiv2::IptcParser::encode(image->iptcData()));
  } catch (const std::exception& error) {  // Exiv2::AnyError, std::bad_alloc, ...
    metadata.exif.clear();
    metadata.xmp.clear();
    metadata.iptc.clear();
    metadata.unreadable = path + ": unreadable EXIF, XMP or IPTC metadata (" + error.what() + ")";
  }
}

const Metadata& metadata_to_write(const Metadata& metadata, bool strip) {
  static const Metadata none;
  if (strip) return none;
  if (!metadata.unreadable.empty())
    throw std::runtime_error(metadata.unreadable + "; give --strip-metadata to write the result without metadata");
  return metadata;
}

void write_exiv2_metadata_to_tiff(const std::string& path, const Metadata& metadata) {
  if (metadata.exif.empty() && metadata.xmp.empty() && metadata.iptc.empty()) return;
  try {
    prepare_exiv2();
    const Exiv2::Image::AutoPtr image = Exiv2::ImageFactory::open(path);
    image->readMetadata();  // what libtiff wrote stays: layout, ICC profile, resolution
    if (!metadata.exif.empty()) {
      Exiv2::ExifData carried;
      Exiv2::ExifParser::decode(carried, as_bytes(metadata.exif), uint32_t(metadata.exif.size()));
      Exiv2::ExifData& exif = image->exifData();
      for (const Exiv2::Exifdatum& datum : carried)
        if (datum.groupName() != "Thumbnail" && exif.findKey(Exiv2::ExifKey(datum.key())) == exif.end())
          exif.add(datum);
    }
    if (!metadata.xmp.empty()) {
      image->setXmpPacket(metadata.xmp);
      image->writeXmpFromPacket(true);  // the packet as it was, not re-serialised
    }
    if (!metadata.iptc.empty()) {
      Exiv2::IptcData iptc;
      Exiv2::IptcParser::decode(iptc, as_bytes(metadata.iptc), uint32_t(metadata.iptc.size()));
      image->setIptcData(iptc);
    }
    image->writeMetadata();
  } catch (const std::exception& error) {
    throw std::runtime_error(metadata.source + ": its metadata cannot be written to TIFF (" + error.what() + ")");
  }
}

std::string photoshop_iptc_block(const std::string& iptc) {
  std::string block = "8BIM";
  append_big_endian(block, 0x0404, 2);  // the IPTC-NAA resource
  block += std::string(2, '\0');        // empty name, padded to even length
  append_big_endian(block, uint32_t(iptc.size()), 4);
  block += iptc;
  if (iptc.size() % 2) block += '\0';
  return block;
}

std::string raw_profile_text(const std::string& name, const std::string& data) {
  static const char kHex[] = "0123456789abcdef";
  char length[16];
  std::snprintf(length, sizeof length, "%8zu", data.size());
  std::string text = "\n" + name + "\n" + length + "\n";
  text.reserve(text.size() + data.size() * 2 + data.size() / 36 + 2);
  for (size_t i = 0; i < data.size(); ++i) {
    const auto byte = uint8_t(data[i]);
    text += kHex[byte >> 4];
    text += kHex[byte & 15];
    if (i % 36 == 35) text += '\n';  // 72 digits per line, as ImageMagick writes them
  }
  if (data.size() % 36) text += '\n';
  return text;
}

}  // namespace edgewise_cli
