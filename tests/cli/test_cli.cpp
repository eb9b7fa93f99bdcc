// The edgewise CLI as a user runs it: real photos from tests/data turned
// into every supported layout, the real binary, exit codes, stderr, and the
// files left behind (or not) afterwards.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "engine.h"
#include "image_file.h"

namespace {

using namespace edgewise_cli;

struct Result {
  int status = 0;
  std::string err;
};

// Runs the CLI with stderr captured; returns the exit status.
Result run_cli(const std::string& args, const std::string& env = "") {
  // One file per call and process: ctest runs test cases in parallel.
  static int calls = 0;
  const std::string err_file = ::testing::TempDir() + "/edgewise_stderr_" + std::to_string(getpid()) + "_" +
                               std::to_string(++calls) + ".txt";
  const std::string command = env + " " + EDGEWISE_CLI + " " + args + " 2>" + err_file + " >/dev/null";
  Result result;
  const int raw = std::system(command.c_str());
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(err_file);
  result.err.assign(std::istreambuf_iterator<char>(in), {});
  std::remove(err_file.c_str());
  return result;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "/edgewise-cli-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    path_ = mkdtemp(buffer.data());
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* dir = opendir(path_.c_str())) {
      while (dirent* e = readdir(dir))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
      closedir(dir);
    }
    return names;
  }

 private:
  std::string path_;
};

bool exists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0;
}

int line_count(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

// A real photo in the requested layout: 16-bit scales each sample by 257
// and adds detail in the low byte; alpha is a diagonal ramp with a hole.
DecodedImage photo(int channels, int bits) {
  const DecodedImage rgb = read_image(std::string(EDGEWISE_TEST_DATA) + "/astronaut.png");
  const DecodedImage grey = read_image(std::string(EDGEWISE_TEST_DATA) + "/camera.png");
  const DecodedImage& source = channels >= 3 ? rgb : grey;
  DecodedImage image;
  image.width = source.width;
  image.height = source.height;
  image.channels = channels;
  image.bits = bits;
  image.allocate();
  const int colour = channels >= 3 ? 3 : 1;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < channels; ++c) {
        int value;
        if (c < colour) {
          value = source.bytes[(size_t(y) * source.width + x) * source.channels + c];
        } else {
          value = ((x - 100) * (x - 100) + (y - 90) * (y - 90) < 400) ? 0 : (x + y) * 255 / (image.width + image.height);
        }
        const size_t i = (size_t(y) * image.width + x) * channels + c;
        if (bits == 8) {
          image.bytes[i] = uint8_t(value);
        } else {
          reinterpret_cast<uint16_t*>(image.bytes.data())[i] = uint16_t(value * 257 + ((x * 7 + y * 3 + c) % 200));
        }
      }
  return image;
}

edgewise::ImageBuffer view(DecodedImage& image) {
  return {image.bytes.data(), {image.width, image.height, image.channels},
          image.bits == 16 ? edgewise::SampleType::u16 : edgewise::SampleType::u8, image.row_bytes()};
}

// What the engine gives for the same decoded samples and settings.
DecodedImage expected_output(DecodedImage input, const edgewise::FilterSpec& spec) {
  DecodedImage output = input;
  edgewise::RunOptions options;
  options.backend = edgewise::BackendChoice::cpu;
  edgewise::run_filter(spec, view(input), view(output), options);
  return output;
}

const char* kArgs = "--backend cpu --mode lab --sigma-s 2 --sigma-r 12";
edgewise::FilterSpec args_spec() {
  edgewise::FilterSpec spec;
  spec.mode = edgewise::ColorMode::lab;
  spec.sigma_s = 2.0f;
  spec.sigma_r = 12.0f;
  return spec;
}

struct Layout {
  int channels, bits;
  const char* extension;
};

TEST(Cli, RoundTripsKeepLayoutAndMatchEngine) {
  const Layout layouts[] = {{1, 8, "png"},  {2, 8, "png"},  {3, 8, "png"},  {4, 8, "png"}, {1, 16, "png"},
                            {2, 16, "png"}, {3, 16, "png"}, {4, 16, "png"}, {3, 8, "tif"}, {4, 16, "tif"},
                            {1, 16, "tif"}, {2, 8, "tif"}};
  for (const Layout& layout : layouts) {
    SCOPED_TRACE(std::to_string(layout.channels) + " channels, " + std::to_string(layout.bits) + " bit, " +
                 layout.extension);
    TempDir dir;
    const DecodedImage input = photo(layout.channels, layout.bits);
    const std::string in_path = dir.file(std::string("in.") + layout.extension);
    const std::string out_path = dir.file(std::string("out.") + layout.extension);
    write_image(in_path, format_for_output(in_path), input);
    const Result result = run_cli(std::string(kArgs) + " " + in_path + " -o " + out_path);
    ASSERT_EQ(result.status, 0) << result.err;
    const DecodedImage output = read_image(out_path);
    EXPECT_EQ(output.channels, layout.channels);
    EXPECT_EQ(output.bits, layout.bits);
    const DecodedImage expected = expected_output(input, args_spec());
    EXPECT_EQ(output.bytes, expected.bytes);  // same samples, same code: nothing lost on the way
    EXPECT_NE(output.bytes, input.bytes);     // and the filter did something
  }
}

TEST(Cli, JpegInAndOut) {
  TempDir dir;
  const std::string in_path = dir.file("in.jpg"), out_path = dir.file("out.jpg");
  write_image(in_path, FileFormat::jpeg, photo(3, 8));
  const Result result = run_cli(std::string(kArgs) + " " + in_path + " -o " + out_path);
  ASSERT_EQ(result.status, 0) << result.err;
  const DecodedImage output = read_image(out_path);
  EXPECT_EQ(output.channels, 3);
  EXPECT_EQ(output.width, 256);
}

TEST(Cli, SeveralInputsToDirectory) {
  TempDir dir, out;
  write_image(dir.file("a.png"), FileFormat::png, photo(3, 8));
  write_image(dir.file("b.tif"), FileFormat::tiff, photo(1, 16));
  const Result result = run_cli(std::string(kArgs) + " " + dir.file("a.png") + " " + dir.file("b.tif") + " -o " + out.path());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(read_image(out.file("a.png")).bytes, expected_output(photo(3, 8), args_spec()).bytes);
  EXPECT_EQ(read_image(out.file("b.tif")).bytes, expected_output(photo(1, 16), args_spec()).bytes);
}

TEST(Cli, HelpListsEveryParameterWithItsDefault) {
  const std::string out_file = ::testing::TempDir() + "/edgewise_help_" + std::to_string(getpid()) + ".txt";
  ASSERT_EQ(std::system((std::string(EDGEWISE_CLI) + " --help >" + out_file).c_str()), 0);
  std::ifstream in(out_file);
  const std::string help((std::istreambuf_iterator<char>(in)), {});
  for (const auto& info : edgewise::param_table()) {
    EXPECT_NE(help.find(std::string("--") + info.cli_flag), std::string::npos) << info.cli_flag;
  }
  for (const char* text : {"default 3, range 0.1 to 100", "default rgb", "default gaussian", "--backend", "--threads"})
    EXPECT_NE(help.find(text), std::string::npos) << text;
}

// Every failure: non-zero status, one line naming the problem, no output
// written, an existing output untouched, no temporary files left.
struct BadCase {
  const char* name;
  std::string args;
  const char* expected_words;
};

TEST(Cli, BadInputFailsCleanly) {
  TempDir dir;
  write_image(dir.file("good.png"), FileFormat::png, photo(4, 8));
  {
    std::ofstream text(dir.file("notes.png"));
    text << "this is not an image\n";
  }
  {
    std::ifstream good(dir.file("good.png"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(good)), {});
    std::ofstream cut(dir.file("truncated.png"), std::ios::binary);
    cut << bytes.substr(0, bytes.size() / 3);
  }
  mkdir(dir.file("folder.png").c_str(), 0755);
  const std::string good = dir.file("good.png"), out = dir.file("out.png");
  const std::vector<BadCase> cases = {
      {"missing input", dir.file("missing.png") + " -o " + out, "missing.png"},
      {"directory as input", dir.file("folder.png") + " -o " + out, "folder.png"},
      {"not an image", dir.file("notes.png") + " -o " + out, "unsupported file format"},
      {"truncated file", dir.file("truncated.png") + " -o " + out, "unreadable PNG"},
      {"bad sigma-s", "--sigma-s -1 " + good + " -o " + out, "invalid sigma-s -1"},
      {"bad radius", "--radius 2.5 " + good + " -o " + out, "radius"},
      {"bad mode", "--mode hsv " + good + " -o " + out, "invalid mode 'hsv'"},
      {"unknown option", "--strength 3 " + good + " -o " + out, "unknown option --strength"},
      {"no output", good, "no output"},
      {"unwritable output", good + " -o " + dir.file("no/such/dir/out.png"), "cannot write"},
      {"unsupported output", good + " -o " + dir.file("out.bmp"), "unsupported output format"},
      {"alpha to JPEG", good + " -o " + dir.file("out.jpg"), "JPEG cannot hold alpha"},
      {"second input bad", good + " " + dir.file("missing.png") + " -o " + dir.path(), "missing.png"},
  };
  const std::vector<std::string> before = dir.entries();
  for (const BadCase& bad : cases) {
    SCOPED_TRACE(bad.name);
    const Result result = run_cli("--backend cpu " + bad.args);
    EXPECT_NE(result.status, 0);
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_EQ(result.err.rfind("edgewise: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(bad.expected_words), std::string::npos) << result.err;
    EXPECT_EQ(dir.entries(), before) << "files were left behind";
  }
  // An existing output survives a failed run unchanged.
  write_image(out, FileFormat::png, photo(1, 8));
  const DecodedImage kept = read_image(out);
  EXPECT_NE(run_cli("--sigma-r 0 " + good + " -o " + out).status, 0);
  EXPECT_NE(run_cli(dir.file("truncated.png") + " -o " + out).status, 0);
  EXPECT_EQ(read_image(out).bytes, kept.bytes);
}

// Without a GPU --backend cuda must fail with the engine's reason; auto
// must fall back to the CPU and still produce the CPU result.
TEST(Cli, BackendSelectionWithoutGpu) {
  std::string why;
  if (edgewise::make_cuda_backend({}, why)) GTEST_SKIP() << "a GPU is usable here; tests/gpu covers it";
  TempDir dir;
  write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  const Result forced = run_cli("--backend cuda " + dir.file("in.png") + " -o " + dir.file("out.png"));
  EXPECT_NE(forced.status, 0);
  EXPECT_NE(forced.err.find("CUDA backend requested but unavailable"), std::string::npos) << forced.err;
  EXPECT_FALSE(exists(dir.file("out.png")));
  const Result automatic = run_cli(std::string(kArgs) + " --backend auto " + dir.file("in.png") + " -o " + dir.file("out.png"));
  ASSERT_EQ(automatic.status, 0) << automatic.err;
  EXPECT_EQ(read_image(dir.file("out.png")).bytes, expected_output(photo(3, 8), args_spec()).bytes);
}

// The test hook makes the GPU fail part-way (a simulated device here, the
// real one on a GPU machine): auto reruns on the CPU, says so, and the file
// holds the CPU result, not the half-written GPU bands.
TEST(Cli, InjectedGpuFailureFallsBackToCpu) {
  TempDir dir;
  write_image(dir.file("in.png"), FileFormat::png, photo(4, 16));
  for (const char* failure : {"oom", "launch"}) {
    SCOPED_TRACE(failure);
    const Result result = run_cli(std::string(kArgs) + " --backend auto " + dir.file("in.png") + " -o " +
                                      dir.file("out.png"),
                                  std::string("EDGEWISE_INJECT_GPU_FAILURE=") + failure);
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_NE(result.err.find("rerunning on the CPU"), std::string::npos) << result.err;
    EXPECT_EQ(read_image(dir.file("out.png")).bytes, expected_output(photo(4, 16), args_spec()).bytes);
    const Result forced = run_cli("--backend cuda " + dir.file("in.png") + " -o " + dir.file("forced.png"),
                                  std::string("EDGEWISE_INJECT_GPU_FAILURE=") + failure);
    EXPECT_NE(forced.status, 0);
    EXPECT_FALSE(exists(dir.file("forced.png")));
  }
}

}  // namespace
