// The CLI on real photos in every supported layout: the output keeps the
// input's size, channels and bit depth, and holds what the engine computes
// from the same samples, to within the output's quantisation.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

#include "cli_test_support.h"

namespace edgewise_cli_test {
namespace {

using edgewise_cli::format_for_output;
using edgewise_cli::read_image;
using edgewise_cli::write_image;

// Filters in_path to out_path with kFilterArgs and checks the result
// against the engine run on `input` (the samples in_path holds).
// changes: whether the filter visibly alters this image (hard-edged
// synthetic images stay as they are).
void expect_filtered(const DecodedImage& input, const std::string& in_path, const std::string& out_path,
                     bool changes = true) {
  const CliResult result = run_cli(std::string(kFilterArgs) + " " + in_path + " -o " + out_path);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "") << "a short successful run prints nothing";
  const DecodedImage output = read_image(out_path);
  EXPECT_EQ(output.width, input.width);
  EXPECT_EQ(output.height, input.height);
  EXPECT_EQ(output.channels, input.channels);
  EXPECT_EQ(output.bits, input.bits);
  EXPECT_LE(max_error_in_codes(output, engine_result(input, filter_args_spec())), 0.51);
  if (changes) {
    EXPECT_NE(output.bytes, input.bytes) << "the filter changed nothing";
  }
}

struct Layout {
  int channels;
  int bits;
  const char* extension;
};

std::string layout_name(const ::testing::TestParamInfo<Layout>& info) {
  static const char* const kNames[] = {"", "grey", "grey_alpha", "rgb", "rgba"};
  return std::string(info.param.extension) + std::to_string(info.param.bits) + "_" + kNames[info.param.channels];
}

// Test names and ctest names show this instead of the struct's bytes.
void PrintTo(const Layout& layout, std::ostream* out) {
  *out << layout.extension << ", " << layout.bits << "-bit, " << layout.channels << " channels";
}

class RoundTrip : public ::testing::TestWithParam<Layout> {};

TEST_P(RoundTrip, KeepsLayoutAndMatchesEngine) {
  const Layout layout = GetParam();
  ScratchDir dir;
  const DecodedImage input = photo(layout.channels, layout.bits);
  const std::string in_path = dir.file(std::string("in.") + layout.extension);
  write_image(in_path, format_for_output(in_path), input);
  expect_filtered(input, in_path, dir.file(std::string("out.") + layout.extension));
}

INSTANTIATE_TEST_SUITE_P(Cli, RoundTrip,
                         ::testing::Values(Layout{1, 8, "png"}, Layout{2, 8, "png"}, Layout{3, 8, "png"},
                                           Layout{4, 8, "png"}, Layout{1, 16, "png"}, Layout{2, 16, "png"},
                                           Layout{3, 16, "png"}, Layout{4, 16, "png"}, Layout{1, 8, "tif"},
                                           Layout{2, 8, "tif"}, Layout{3, 8, "tif"}, Layout{4, 8, "tif"},
                                           Layout{1, 16, "tif"}, Layout{2, 16, "tif"}, Layout{3, 16, "tif"},
                                           Layout{4, 16, "tif"}),
                         layout_name);

TEST(CliFormats, SixteenBitPngToTiffAndBack) {
  ScratchDir dir;
  const DecodedImage input = photo(4, 16);
  write_image(dir.file("in.png"), FileFormat::png, input);
  expect_filtered(input, dir.file("in.png"), dir.file("out.tiff"));
  const DecodedImage grey = photo(1, 16);
  write_image(dir.file("grey.tif"), FileFormat::tiff, grey);
  expect_filtered(grey, dir.file("grey.tif"), dir.file("grey_out.png"));
}

TEST(CliFormats, BigEndianSixteenBitTiff) {
  ScratchDir dir;
  const DecodedImage input = photo(3, 16);
  write_big_endian_tiff(dir.file("in.tif"), input);
  ASSERT_EQ(read_bytes(dir.file("in.tif")).substr(0, 2), "MM");
  expect_filtered(input, dir.file("in.tif"), dir.file("out.tif"));
}

TEST(CliFormats, JpegInput) {
  ScratchDir dir;
  for (int channels : {1, 3}) {
    SCOPED_TRACE(channels);
    write_image(dir.file("in.jpg"), FileFormat::jpeg, photo(channels, 8));
    // The reference is the decoded JPEG: decoding is exact and repeatable.
    expect_filtered(read_image(dir.file("in.jpg")), dir.file("in.jpg"), dir.file("out.png"));
  }
}

TEST(CliFormats, JpegOutput) {
  ScratchDir dir;
  for (int channels : {1, 3}) {
    SCOPED_TRACE(channels);
    const DecodedImage input = photo(channels, 8);
    write_image(dir.file("in.png"), FileFormat::png, input);
    const CliResult result =
        run_cli(std::string(kFilterArgs) + " " + dir.file("in.png") + " -o " + dir.file("out.jpeg"));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(edgewise_cli::detect_format(dir.file("out.jpeg")), FileFormat::jpeg);
    const DecodedImage output = read_image(dir.file("out.jpeg"));
    EXPECT_EQ(output.channels, channels);
    EXPECT_EQ(output.bits, 8);
    // Lossy at quality 95: close on average, not sample for sample.
    EXPECT_LT(mean_error_in_codes(output, engine_result(input, filter_args_spec())), 1.5);
  }
}

TEST(CliFormats, PalettePngExpandsToRgbOrRgba) {
  ScratchDir dir;
  for (bool transparent : {false, true}) {
    SCOPED_TRACE(transparent ? "with tRNS" : "opaque");
    const DecodedImage expanded = write_palette_png(dir.file("palette.png"), transparent);
    expect_filtered(expanded, dir.file("palette.png"), dir.file("out.png"), false);
  }
}

TEST(CliFormats, OneBitInterlacedPngExpandsToEightBitGrey) {
  ScratchDir dir;
  const DecodedImage expanded = write_one_bit_interlaced_png(dir.file("bits.png"));
  expect_filtered(expanded, dir.file("bits.png"), dir.file("out.png"), false);
}

TEST(CliFormats, SeveralInputsKeepNamesAndFormatsInDirectory) {
  ScratchDir in, out;
  const DecodedImage rgba = photo(4, 8), grey16 = photo(1, 16), rgb = photo(3, 8);
  write_image(in.file("a.png"), FileFormat::png, rgba);
  write_image(in.file("b.tif"), FileFormat::tiff, grey16);
  write_image(in.file("c.jpg"), FileFormat::jpeg, rgb);
  const DecodedImage rgb_decoded = read_image(in.file("c.jpg"));
  const CliResult result = run_cli(std::string(kFilterArgs) + " " + in.file("a.png") + " " + in.file("b.tif") + " " +
                                   in.file("c.jpg") + " -o " + out.path());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(out.entries(), (std::vector<std::string>{"a.png", "b.tif", "c.jpg"}));
  EXPECT_EQ(edgewise_cli::detect_format(out.file("b.tif")), FileFormat::tiff);
  EXPECT_EQ(edgewise_cli::detect_format(out.file("c.jpg")), FileFormat::jpeg);
  const DecodedImage a = read_image(out.file("a.png")), b = read_image(out.file("b.tif"));
  EXPECT_EQ(a.channels, 4);
  EXPECT_EQ(b.bits, 16);
  EXPECT_LE(max_error_in_codes(a, engine_result(rgba, filter_args_spec())), 0.51);
  EXPECT_LE(max_error_in_codes(b, engine_result(grey16, filter_args_spec())), 0.51);
  EXPECT_LT(mean_error_in_codes(read_image(out.file("c.jpg")), engine_result(rgb_decoded, filter_args_spec())), 1.5);
}

TEST(CliFormats, OneInputIntoExistingDirectory) {
  ScratchDir in, out;
  const DecodedImage input = photo(3, 16);
  write_image(in.file("photo.tif"), FileFormat::tiff, input);
  const CliResult result = run_cli(std::string(kFilterArgs) + " " + in.file("photo.tif") + " -o " + out.path() + "/");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(out.entries(), std::vector<std::string>{"photo.tif"});
  EXPECT_EQ(read_image(out.file("photo.tif")).bits, 16);
}

// With --overwrite (issue 11: never without it).
TEST(CliFormats, OutputMayReplaceItsInput) {
  ScratchDir dir;
  const DecodedImage input = photo(3, 8);
  write_image(dir.file("photo.png"), FileFormat::png, input);
  const CliResult result = run_cli(std::string(kFilterArgs) + " --overwrite " + dir.file("photo.png") + " -o " +
                                   dir.file("photo.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"photo.png"});
  EXPECT_LE(max_error_in_codes(read_image(dir.file("photo.png")), engine_result(input, filter_args_spec())), 0.51);
}

// mkstemp creates 0600 files; outputs must look like ordinary new files, and
// a replaced file keeps its permissions.
TEST(CliFormats, OutputPermissions) {
  ScratchDir dir;
  write_image(dir.file("in.png"), FileFormat::png, photo(1, 8));
  ASSERT_EQ(run_cli(dir.file("in.png") + " -o " + dir.file("new.png"), "umask 022;").status, 0);
  EXPECT_EQ(file_mode(dir.file("new.png")), mode_t(0644));
  write_image(dir.file("private.png"), FileFormat::png, photo(1, 8));
  ASSERT_EQ(chmod(dir.file("private.png").c_str(), 0600), 0);
  ASSERT_EQ(run_cli(dir.file("in.png") + " -o " + dir.file("private.png"), "umask 022;").status, 0);
  EXPECT_EQ(file_mode(dir.file("private.png")), mode_t(0600));
}

// An image of awkward size (edge tiles and strips are partial).
DecodedImage cropped(const DecodedImage& image, int width, int height) {
  DecodedImage result = image;
  result.width = width;
  result.height = height;
  result.allocate();
  for (int y = 0; y < height; ++y)
    std::copy_n(image.bytes.data() + size_t(y) * image.row_bytes(), result.row_bytes(),
                result.bytes.data() + size_t(y) * result.row_bytes());
  return result;
}

TEST(CliFormats, TiledTiff) {
  ScratchDir dir;
  for (const auto& [channels, bits] : {std::pair{3, 8}, std::pair{4, 16}, std::pair{1, 8}}) {
    SCOPED_TRACE(std::to_string(channels) + " channels, " + std::to_string(bits) + "-bit");
    const DecodedImage input = cropped(photo(channels, bits), 250, 190);
    write_tiled_tiff(dir.file("tiled.tif"), input, 64, 48);
    const DecodedImage decoded = read_image(dir.file("tiled.tif"));
    EXPECT_EQ(decoded.bytes, input.bytes) << "tiles reassembled wrongly";
    expect_filtered(input, dir.file("tiled.tif"), dir.file("out.tif"));
    expect_filtered(input, dir.file("tiled.tif"), dir.file("out.png"));
  }
}

uint16_t tiff_tag(const std::string& path, uint32_t tag) {
  TIFF* tiff = TIFFOpen(path.c_str(), "r");
  uint16_t value = 0;
  if (tiff) TIFFGetFieldDefaulted(tiff, tag, &value);
  if (tiff) TIFFClose(tiff);
  return value;
}

// Float samples go through as they are, values above 1.0 included.
TEST(CliFormats, FloatTiffRoundTrip) {
  ScratchDir dir;
  for (bool tiled : {false, true}) {
    SCOPED_TRACE(tiled ? "tiled" : "strips");
    const DecodedImage input = as_float(cropped(photo(3, 8), 250, 190), 1.5f);
    if (tiled)
      write_tiled_tiff(dir.file("float.tif"), input, 32, 32);
    else
      write_image(dir.file("float.tif"), FileFormat::tiff, input);
    const CliResult result =
        run_cli(std::string(kFilterArgs) + " " + dir.file("float.tif") + " -o " + dir.file("out.tif"));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(tiff_tag(dir.file("out.tif"), TIFFTAG_SAMPLEFORMAT), SAMPLEFORMAT_IEEEFP);
    const DecodedImage output = read_image(dir.file("out.tif"));
    ASSERT_EQ(output.bits, 32);
    ASSERT_EQ(output.width, input.width);
    ASSERT_EQ(output.channels, 3);
    const std::vector<float> expected = engine_result(input, filter_args_spec());
    float largest = 0.0f, worst = 0.0f;
    for (size_t i = 0; i < expected.size(); ++i) {
      largest = std::max(largest, float_sample(output, i));
      worst = std::max(worst, std::fabs(float_sample(output, i) - expected[i]));
    }
    EXPECT_LE(worst, 1e-5f) << "the CLI's float result differs from the engine's";
    EXPECT_GT(largest, 1.2f) << "values above 1.0 were clipped";
  }
}

TEST(CliFormats, FloatIsRefusedByPngAndJpeg) {
  ScratchDir dir;
  write_image(dir.file("float.tif"), FileFormat::tiff, as_float(photo(3, 8), 1.0f));
  for (const char* name : {"out.png", "out.jpg"}) {
    SCOPED_TRACE(name);
    const CliResult result = run_cli(dir.file("float.tif") + " -o " + dir.file(name));
    EXPECT_EQ(result.status, 1);
    EXPECT_NE(result.err.find("cannot hold 32-bit floating-point samples; write TIFF"), std::string::npos)
        << result.err;
    EXPECT_FALSE(exists(dir.file(name)));
  }
}

// JPEG to JPEG keeps the input's quality unless --jpeg-quality is given;
// other inputs get 95.
TEST(CliFormats, JpegQuality) {
  ScratchDir dir;
  edgewise_cli::WriteOptions quality_80;
  quality_80.jpeg_quality = 80;
  write_image(dir.file("in.jpg"), FileFormat::jpeg, photo(3, 8), quality_80);
  write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  EXPECT_EQ(read_image(dir.file("in.jpg")).jpeg_quality, 80);
  const struct {
    std::string args;
    int quality;
  } runs[] = {{dir.file("in.jpg"), 80},
              {"--jpeg-quality 50 " + dir.file("in.jpg"), 50},
              {dir.file("in.png"), 95},
              {"--jpeg-quality=30 " + dir.file("in.png"), 30}};
  for (const auto& run : runs) {
    SCOPED_TRACE(run.args);
    const CliResult result = run_cli(run.args + " -o " + dir.file("out.jpg"));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(read_image(dir.file("out.jpg")).jpeg_quality, run.quality);
  }
}

TEST(CliFormats, PngCompression) {
  ScratchDir dir;
  const DecodedImage input = photo(4, 16);
  write_image(dir.file("in.png"), FileFormat::png, input);
  std::vector<size_t> sizes;
  DecodedImage reference;
  for (const char* level : {"0", "1", "9"}) {
    SCOPED_TRACE(level);
    const std::string out = dir.file(std::string("out") + level + ".png");
    const CliResult result =
        run_cli(std::string(kFilterArgs) + " --png-compression " + level + " " + dir.file("in.png") + " -o " + out);
    ASSERT_EQ(result.status, 0) << result.err;
    sizes.push_back(read_bytes(out).size());
    const DecodedImage output = read_image(out);
    if (reference.bytes.empty()) reference = output;
    EXPECT_EQ(output.bytes, reference.bytes) << "the level changed the pixels";
    EXPECT_EQ(output.bits, 16);
  }
  EXPECT_GT(sizes[0], input.bytes.size()) << "level 0 stores the rows uncompressed";
  EXPECT_LT(sizes[1], sizes[0] * 3 / 4);
  EXPECT_LE(sizes[2], sizes[1]);
}

TEST(CliFormats, TiffCompression) {
  ScratchDir dir;
  const DecodedImage input = photo(3, 16);
  write_image(dir.file("in.png"), FileFormat::png, input);
  const struct {
    const char* option;
    uint16_t scheme;
  } runs[] = {{"", COMPRESSION_ADOBE_DEFLATE},
              {"--tiff-compression none", COMPRESSION_NONE},
              {"--tiff-compression deflate", COMPRESSION_ADOBE_DEFLATE},
              {"--tiff-compression lzw", COMPRESSION_LZW},
              {"--tiff-compression zstd", COMPRESSION_ZSTD}};
  DecodedImage reference;
  for (const auto& run : runs) {
    SCOPED_TRACE(run.option);
    const CliResult result =
        run_cli(std::string(kFilterArgs) + " " + run.option + " " + dir.file("in.png") + " -o " + dir.file("out.tif"));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(tiff_tag(dir.file("out.tif"), TIFFTAG_COMPRESSION), run.scheme);
    const DecodedImage output = read_image(dir.file("out.tif"));
    if (reference.bytes.empty()) reference = output;
    EXPECT_EQ(output.bytes, reference.bytes) << "the compression changed the pixels";
  }
  EXPECT_LE(max_error_in_codes(reference, engine_result(input, filter_args_spec())), 0.51);
}

}  // namespace
}  // namespace edgewise_cli_test
