// The CLI on real photos in every supported layout: the output keeps the
// input's size, channels and bit depth, and holds what the engine computes
// from the same samples, to within the output's quantisation.
#include <gtest/gtest.h>
#include <sys/stat.h>

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

TEST(CliFormats, OutputMayReplaceItsInput) {
  ScratchDir dir;
  const DecodedImage input = photo(3, 8);
  write_image(dir.file("photo.png"), FileFormat::png, input);
  const CliResult result =
      run_cli(std::string(kFilterArgs) + " " + dir.file("photo.png") + " -o " + dir.file("photo.png"));
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

}  // namespace
}  // namespace edgewise_cli_test
