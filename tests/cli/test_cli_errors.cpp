// Every way a run can fail: a non-zero status (1 for files, images and
// backends, 2 for usage), exactly one line on stderr naming the problem,
// no output or temporary file left behind, and an existing output file
// left byte for byte as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "cli_test_support.h"

namespace edgewise_cli_test {
namespace {

using edgewise_cli::write_image;

struct BadRun {
  std::string name;
  std::string args;
  int status;
  std::string expected_words;
  std::string prefix = "";  // shell words before the command
};

// Inputs of every kind in `in`, and `out` holding a previous result.
class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    write_image(in.file("good.png"), FileFormat::png, photo(4, 8));
    write_image(in.file("good16.png"), FileFormat::png, photo(3, 16));
    write_image(in.file("also_good.png"), FileFormat::png, photo(1, 8));
    write_image(in.file("photo.jpg"), FileFormat::jpeg, photo(3, 8));
    write_image(in.file("photo.tif"), FileFormat::tiff, photo(3, 8));
    const std::string png = read_bytes(in.file("good.png"));
    const std::string jpeg = read_bytes(in.file("photo.jpg"));
    const std::string tiff = read_bytes(in.file("photo.tif"));
    write_bytes(in.file("truncated.png"), png.substr(0, png.size() / 3));
    write_bytes(in.file("truncated.jpg"), jpeg.substr(0, jpeg.size() / 2));
    // Found by the PNG fuzzer: an iTXt chunk declaring 2 GB in a 120-byte
    // file, which libpng allocated before reading it (the fuzz stage, under
    // ASan, is what sees the allocation; here, the clean message).
    write_bytes(in.file("huge-chunk.png"),
                std::string("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52"
                            "\x00\x00\x00\x13\x00\x00\x00\x0d\x01\x00\x00\x00\x00\x63\xf7\x68"
                            "\x8a\x78\x00\x00\x00\x69\x54\x58\x74\x08\x99\x01\x34\x00\xcb\xff"
                            "\x00\x00\x2c\x51\x00\x68\x8d\xb2\x00\xc9\x15\x42\x00\x51\x76\xa3"
                            "\x00\xb2\xd7\x2b\x00\x3a\x67\x8c\x20\x9a\xc7\xec\x00\x2a\x4f\x74"
                            "\x00\x8b\xb0\xd5\x00\xec\x38\x65\xb7\x74\x99\xc6\x00\xd5\xfa\x4e"
                            "\x00\x5c\x89\xae\xd3\x0c\x13\xe6\x6f\xe5\x2d\xe0\x00\x00\x00\x00"
                            "\x49\x45\x4e\x44\xae\x42\x60\x82",
                            120));
    write_bytes(in.file("truncated.tif"), tiff.substr(0, tiff.size() / 2));
    write_bytes(in.file("notes.png"), "this is not an image\n");
    write_bytes(in.file("empty.png"), "");
    // A 2x1 24-bit BMP.
    write_bytes(in.file("image.bmp"),
                std::string("BM\x3e\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\x02\0\0\0\x01\0\0\0\x01\0\x18\0", 30) +
                    std::string(32, '\0'));
    write_odd_tiff(in.file("float.tif"), OddTiff::floating_point);
    write_odd_tiff(in.file("palette.tif"), OddTiff::palette);
    write_odd_tiff(in.file("planar.tif"), OddTiff::planar);
    write_odd_tiff(in.file("pages.tif"), OddTiff::two_pages);
    write_odd_tiff(in.file("premultiplied.tif"), OddTiff::premultiplied_alpha);
    mkdir(in.file("folder.png").c_str(), 0755);
    mkdir(in.file("sub").c_str(), 0755);
    write_image(in.file("sub/good.png"), FileFormat::png, photo(1, 8));  // same name as good.png
    mkdir(out.file("good.png").c_str(), 0755);                           // a directory where good.png's result would go
    write_image(out.file("out.png"), FileFormat::png, photo(1, 8));
    previous_output = read_bytes(out.file("out.png"));
    in_entries = in.entries();
    out_entries = out.entries();
  }

  // Runs each bad run and checks everything the header promises.
  void expect_clean_failures(const std::vector<BadRun>& runs) {
    for (const BadRun& run : runs) {
      SCOPED_TRACE(run.name + ": edgewise " + run.args);
      const CliResult result = run_cli(run.args, run.prefix);
      EXPECT_EQ(result.status, run.status);
      EXPECT_EQ(line_count(result.err), 1) << result.err;
      EXPECT_EQ(result.err.rfind("edgewise: ", 0), 0u) << result.err;
      EXPECT_NE(result.err.find(run.expected_words), std::string::npos) << result.err;
      EXPECT_EQ(result.out, "");
      EXPECT_EQ(in.entries(), in_entries) << "files were left behind";
      EXPECT_EQ(out.entries(), out_entries) << "files were left behind";
      EXPECT_EQ(read_bytes(out.file("out.png")), previous_output) << "the existing output was changed";
    }
  }

  std::string input(const std::string& name) const { return in.file(name); }
  std::string to_out(const std::string& name) const { return input(name) + " -o " + out.file("out.png"); }

  ScratchDir in, out;
  std::string previous_output;
  std::vector<std::string> in_entries, out_entries;
};

TEST_F(CliErrors, UnusableInputs) {
  expect_clean_failures({
      {"missing input", to_out("missing.png"), 1, "cannot open " + input("missing.png") + ": No such file"},
      {"directory as input", to_out("folder.png"), 1, "folder.png is a directory"},
      {"text file", to_out("notes.png"), 1, "notes.png: unsupported file format"},
      {"BMP file", to_out("image.bmp"), 1, "image.bmp: unsupported file format (expected PNG, JPEG or TIFF)"},
      {"empty file", to_out("empty.png"), 1, "empty.png is empty"},
      {"truncated PNG", to_out("truncated.png"), 1, "truncated.png: unreadable PNG"},
      {"PNG chunk larger than its file", to_out("huge-chunk.png"), 1, "huge-chunk.png: unreadable PNG"},
      {"truncated JPEG", to_out("truncated.jpg"), 1, "truncated.jpg: unreadable JPEG"},
      {"truncated TIFF", to_out("truncated.tif"), 1, "truncated.tif: unreadable TIFF"},
      {"float TIFF to PNG", to_out("float.tif"), 1, "PNG cannot hold 32-bit floating-point samples; write TIFF"},
      {"palette TIFF", to_out("palette.tif"), 1, "palette (indexed-colour) TIFF is not supported"},
      {"planar TIFF", to_out("planar.tif"), 1, "planar TIFF"},
      {"multi-page TIFF", to_out("pages.tif"), 1, "multi-page TIFF is not supported"},
      {"premultiplied alpha", to_out("premultiplied.tif"), 1, "premultiplied (associated) alpha"},
  });
}

TEST_F(CliErrors, BadOptionsAndParameters) {
  const std::string good = input("good.png") + " -o " + out.file("out.png");
  expect_clean_failures({
      {"sigma-s out of range", "--sigma-s -1 " + good, 2, "invalid sigma-s -1: allowed range is 0.1 to 100 px"},
      {"sigma-r not a number", "--sigma-r soft " + good, 2, "sigma-r"},
      {"sigma-r zero", "--sigma-r=0 " + good, 2, "invalid sigma-r 0"},
      {"radius not an integer", "--radius 2.5 " + good, 2, "invalid radius 2.5"},
      {"radius too large", "--radius 129 " + good, 2, "invalid radius 129"},
      {"iterations zero", "--iterations 0 " + good, 2, "invalid iterations 0"},
      {"unknown mode", "--mode hsv " + good, 2, "invalid mode 'hsv'"},
      {"unknown kernel", "--kernel box " + good, 2, "kernel"},
      {"unknown filter", "--filter median " + good, 2, "filter"},
      {"bad threads", "--threads -2 " + good, 2, "invalid threads '-2'"},
      {"bad backend", "--backend gpu " + good, 2, "invalid backend 'gpu'"},
      {"unknown option", "--sharpness 3 " + good, 2, "unknown option --sharpness"},
      {"short unknown option", "-x " + good, 2, "unknown option -x"},
      {"value missing", good + " --sigma-s", 2, "option --sigma-s needs a value"},
      {"no output", input("good.png"), 2, "no output given"},
      {"no input", "-o " + out.file("out.png"), 2, "no input file given"},
      {"output twice", good + " -o " + out.file("other.png"), 2, "given twice"},
  });
}

// --gui needs a display and one input; it refuses before opening anything.
TEST_F(CliErrors, GuiMisuse) {
  const std::string good = input("good.png") + " -o " + out.file("out.png");
  expect_clean_failures({
      {"no display", "--gui " + good, 1, "--gui: no display to show the dialog on (DISPLAY is not set)",
       "unset DISPLAY WAYLAND_DISPLAY;"},
      {"two inputs", "--gui " + input("good.png") + " " + input("also_good.png") + " -o " + out.path(), 2,
       "--gui takes exactly one input"},
      {"with --write-sigma", "--gui --filter adaptive --write-sigma " + out.file("sigma.png") + " " + good, 2,
       "--write-sigma cannot be combined with --gui"},
  });
}

TEST_F(CliErrors, UnwritableOutputs) {
  const std::string good = input("good.png");
  expect_clean_failures({
      {"missing output directory", good + " -o " + out.file("no/such/dir/out.png"), 1,
       "output directory " + out.file("no/such/dir") + " does not exist"},
      {"output directory is a file", good + " -o " + input("photo.jpg") + "/out.png", 1, "is not a directory"},
      {"missing directory with slash", good + " -o " + out.file("new_dir/"), 1, "does not exist"},
      {"unsupported output format", good + " -o " + out.file("out.bmp"), 1,
       "out.bmp: unsupported output format (use .png, .jpg, .jpeg, .tif or .tiff)"},
      {"no extension", good + " -o " + out.file("out"), 1, "unsupported output format"},
      {"alpha to JPEG", good + " -o " + out.file("out.jpg"), 1, "JPEG cannot hold alpha"},
      {"16-bit to JPEG", input("good16.png") + " -o " + out.file("out.jpg"), 1, "JPEG cannot hold 16-bit samples"},
      {"a directory in the output's place", good + " -o " + out.path(), 1,
       "cannot write " + out.file("good.png") + ": it is a directory"},
  });
}

TEST_F(CliErrors, PermissionsForNonRootUsers) {
  if (running_as_root())
    GTEST_SKIP() << "root reads and writes regardless of permissions; "
                    "the directory and damaged-file cases cover these paths";
  ASSERT_EQ(chmod(input("photo.tif").c_str(), 0), 0);
  ASSERT_EQ(chmod(out.path().c_str(), 0555), 0);
  expect_clean_failures({
      {"unreadable input", input("photo.tif") + " -o " + in.file("x.png"), 1, "Permission denied"},
      {"read-only output directory", to_out("good.png"), 1, "cannot write to directory " + out.path()},
  });
}

// What a batch can know before reading pixels is checked for every file
// before the first is written (a damaged file only fails itself:
// test_cli_files.cpp).
TEST_F(CliErrors, BatchChecksNamesAndFormatsBeforeWriting) {
  ScratchDir results;
  const std::vector<std::string> nothing;
  const std::string good = input("good.png") + " " + input("photo.tif") + " ";
  const std::vector<BadRun> runs = {
      {"last input missing", good + input("missing.png") + " -o " + results.path(), 1, "missing.png"},
      {"last input not an image", good + input("notes.png") + " -o " + results.path(), 1, "unsupported file format"},
      {"output not a directory", good + "-o " + out.file("out.png"), 1,
       "several inputs need OUTPUT to be an existing directory"},
      {"two inputs, one name", good + input("sub/good.png") + " -o " + results.path(), 1,
       "inputs " + input("good.png") + " and " + input("sub/good.png") + " would both be written to " +
           results.file("good.png")},
  };
  expect_clean_failures(runs);
  EXPECT_EQ(results.entries(), nothing);
}

TEST_F(CliErrors, ForcedCudaWithoutGpu) {
  if (gpu_usable()) GTEST_SKIP() << "a GPU is usable here; tests/gpu covers --backend cuda";
  ScratchDir results;
  expect_clean_failures({
      {"single file", "--backend cuda " + to_out("good.png"), 1, "CUDA backend requested but unavailable"},
      {"batch", "--backend cuda " + input("good.png") + " " + input("photo.tif") + " -o " + results.path(), 1,
       "CUDA backend requested but unavailable"},
  });
  EXPECT_EQ(results.entries(), std::vector<std::string>{});
}

}  // namespace
}  // namespace edgewise_cli_test
