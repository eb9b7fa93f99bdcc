// Shared by the CLI tests: running the real binary, scratch directories,
// the test photos in every layout, and the expected result computed by
// calling the engine directly on the same samples.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "engine.h"
#include "image_file.h"

namespace edgewise_cli_test {

using edgewise_cli::DecodedImage;
using edgewise_cli::FileFormat;

struct CliResult {
  int status = -1;  // exit status, -1 when killed by a signal
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the edgewise binary with args (shell syntax; quote paths that need
// it); prefix is prepended to the shell command (e.g. "umask 022;").
CliResult run_cli(const std::string& args, const std::string& prefix = "");

// The edgewise binary and tests/data as built in, unless EDGEWISE_TEST_CLI
// and EDGEWISE_TEST_DATA_DIR name copies (run_unprivileged.sh runs this
// program as another user from copies that user can reach).
std::string cli_program();
std::string test_data_dir();

// A fresh directory under the test temp dir, removed with its contents.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const;  // sorted names, without . and ..

 private:
  std::string path_;
};

bool exists(const std::string& path);
std::string read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);
mode_t file_mode(const std::string& path);
int line_count(const std::string& text);
// The words of `text` joined by single spaces: help text as it reads, line
// breaks and indentation of its wrapping left out.
std::string squeeze_spaces(const std::string& text);
bool running_as_root();
bool gpu_usable();

// A test photo (astronaut for 3-4 channels, camera for 1-2) in the given
// layout. Alpha is a diagonal ramp with a transparent disc; 16-bit samples
// are the 8-bit value * 257 plus a pattern in the low byte, so a reader or
// writer that drops the low byte fails.
DecodedImage photo(int channels, int bits);

// The filter applied by the engine on the CPU to image's samples, converted
// to 0..1 floats here (v / 255 or v / 65535; float samples as they are),
// independently of the CLI's and core's own conversion code. Same layout as
// image.
std::vector<float> engine_result(const DecodedImage& image, const edgewise::FilterSpec& spec);

// Largest |sample / max - expected| over the image, in code values
// (multiplied by 255 or 65535): rounding to nearest keeps it <= 0.5.
double max_error_in_codes(const DecodedImage& image, const std::vector<float>& expected);
// The mean of the same, for lossy formats.
double mean_error_in_codes(const DecodedImage& image, const std::vector<float>& expected);

uint32_t sample(const DecodedImage& image, size_t index);
// A 32-bit float image's sample.
float float_sample(const DecodedImage& image, size_t index);
// The image with float samples: each 8- or 16-bit value / max, times gain
// (a gain above 1 puts the bright parts above 1.0, as raw converters do).
DecodedImage as_float(const DecodedImage& image, float gain);

// A filter's CLI test: the CLI run with `args` on the test photo in each
// layout (channels, bits), as PNG, gives the engine's result for `spec`
// within half a code value and says nothing on stderr.
struct Layout {
  int channels, bits;
};
void expect_cli_filters_like_the_engine(const std::string& args, const edgewise::FilterSpec& spec,
                                        const std::vector<Layout>& layouts);

// A scratch directory holding the 3-channel 8-bit photo as in.png; `io` is
// " DIR/in.png -o DIR/out.png", to end a command line with.
struct PhotoJob {
  PhotoJob();
  ScratchDir dir;
  std::string io;
};

// The CLI arguments and the spec they stand for.
extern const char* const kFilterArgs;
edgewise::FilterSpec filter_args_spec();

// Files the CLI's writers cannot produce, written with libpng and libtiff.
// A 4-colour palette PNG (with tRNS when transparent); returns the RGB(A)
// image it stands for.
DecodedImage write_palette_png(const std::string& path, bool transparent);
// A 1-bit grey PNG, Adam7-interlaced; returns the 8-bit grey image it
// stands for (0 and 255).
DecodedImage write_one_bit_interlaced_png(const std::string& path);
// The image as a big-endian ("MM") TIFF.
void write_big_endian_tiff(const std::string& path, const DecodedImage& image);
enum class OddTiff { floating_point, palette, planar, two_pages, premultiplied_alpha };
void write_odd_tiff(const std::string& path, OddTiff kind);
// The image as a tiled TIFF (tile sizes multiples of 16; edge tiles run
// past the image), uncompressed, any bit depth DecodedImage holds.
void write_tiled_tiff(const std::string& path, const DecodedImage& image, uint32_t tile_width, uint32_t tile_length);

}  // namespace edgewise_cli_test
