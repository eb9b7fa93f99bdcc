// Options, help, backends and the progress line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "cli_test_support.h"
#include "progress_line.h"

namespace edgewise_cli_test {
namespace {

using edgewise_cli::read_image;
using edgewise_cli::write_image;

// The help block of one option: from "  --flag" to the next option, the
// first after `from` (a flag two groups declare has a block in each).
std::string help_block(const std::string& help, const std::string& flag, size_t from = 0) {
  const size_t start = help.find("\n  --" + flag + " ", from);
  if (start == std::string::npos) return "";
  const size_t end = help.find("\n  -", start + 1);
  return squeeze_spaces(help.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

TEST(CliOptions, HelpDocumentsEveryParameterFromTheTable) {
  const CliResult result = run_cli("--help");
  ASSERT_EQ(result.status, 0);
  EXPECT_EQ(result.err, "");
  for (const edgewise::ParamGroup* group : edgewise::builtin_registry().groups())
    for (const auto& info : group->params) {
      SCOPED_TRACE(info.cli_flag);
      const size_t section = result.out.find(std::string(group->cli_heading));
      ASSERT_NE(section, std::string::npos) << group->cli_heading;
      const std::string block = help_block(result.out, info.cli_flag, section);
      ASSERT_NE(block, "") << "no --" << info.cli_flag << " in\n" << result.out;
      EXPECT_NE(block.find(squeeze_spaces(info.help)), std::string::npos) << block;
      if (info.is_enum()) {
        EXPECT_NE(block.find("Default " + info.default_token), std::string::npos) << block;
        for (const std::string& token : info.tokens) EXPECT_NE(block.find(token), std::string::npos) << block;
      } else {
        // The one range formatter, units and notes included.
        const std::string range =
            "Default " + edgewise::value_text(info, info.default_value) + ", range " + squeeze_spaces(info.range_text());
        EXPECT_NE(block.find(range), std::string::npos) << block;
      }
    }
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters())
    EXPECT_NE(help_block(result.out, "filter").find(filter->name), std::string::npos) << filter->name;
  EXPECT_NE(help_block(result.out, "write-sigma").find("--filter adaptive"), std::string::npos);
  for (const char* run_option : {"--backend", "--threads", "--gpu-memory", "--band-rows", "-o, --output", "--version"})
    EXPECT_NE(result.out.find(run_option), std::string::npos) << run_option;
  EXPECT_NE(result.out.find("Exit status: 0 success; 1"), std::string::npos);
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 79u) << line;
}

// The help gives ranges as the error messages do: with their unit and
// what an integer or an automatic 0 means.
TEST(CliOptions, HelpRangesCarryTheirUnits) {
  const CliResult result = run_cli("--help");
  ASSERT_EQ(result.status, 0);
  EXPECT_NE(help_block(result.out, "sigma-s").find("Default 1.5, range 0.1 to 100 px."), std::string::npos)
      << help_block(result.out, "sigma-s");
  EXPECT_NE(
      help_block(result.out, "radius").find("Default 0, range 0 to 128 px (an integer; 0 = auto: ceil(2 sigma-s))."),
      std::string::npos)
      << help_block(result.out, "radius");
  EXPECT_NE(help_block(result.out, "sigma-r").find("range 0.001 to 100000 code values (0-255 scale"), std::string::npos)
      << help_block(result.out, "sigma-r");
  // The same words as the message for a value out of range.
  ScratchDir dir;
  write_image(dir.file("in.png"), FileFormat::png, photo(1, 8));
  const CliResult refused = run_cli("--sigma-s 0 " + dir.file("in.png") + " -o " + dir.file("out.png"));
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("allowed range is 0.1 to 100 px"), std::string::npos) << refused.err;
}

TEST(CliOptions, Version) {
  const CliResult result = run_cli("--version");
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.out.rfind("edgewise ", 0), 0u) << result.out;
  // One line per backend of the list: built in or not, usable here or not.
  EXPECT_NE(result.out.find("CPU: built in, usable: "), std::string::npos) << result.out;
  const bool cuda_said = result.out.find("CUDA: not built in (") != std::string::npos ||
                         result.out.find("CUDA: built in, usable: ") != std::string::npos ||
                         result.out.find("CUDA: built in, not usable here: ") != std::string::npos;
  EXPECT_TRUE(cuda_said) << result.out;
}

TEST(CliOptions, EqualsFormAndBandRowsGiveTheSameResult) {
  ScratchDir dir;
  write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  ASSERT_EQ(run_cli(std::string(kFilterArgs) + " " + dir.file("in.png") + " -o " + dir.file("a.png")).status, 0);
  const CliResult other = run_cli("--backend=cpu --mode=lab --sigma-s=2 --sigma-r=12 --band-rows 7 --threads 1 " +
                                  dir.file("in.png") + " --output=" + dir.file("b.png"));
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_EQ(read_image(dir.file("a.png")).bytes, read_image(dir.file("b.png")).bytes);
}

TEST(CliOptions, DoubleDashEndsOptions) {
  ScratchDir dir;
  write_image(dir.file("-dash.png"), FileFormat::png, photo(1, 8));
  const CliResult result = run_cli("--backend cpu -o " + dir.file("out.png") + " -- " + dir.file("-dash.png"));
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(exists(dir.file("out.png")));
}

TEST(CliBackends, AutoWithoutGpuMatchesCpu) {
  if (gpu_usable()) GTEST_SKIP() << "a GPU is usable here; tests/gpu compares it with the CPU";
  ScratchDir dir;
  const DecodedImage input = photo(3, 8);
  write_image(dir.file("in.png"), FileFormat::png, input);
  const CliResult result = run_cli("--mode lab --sigma-s 2 --sigma-r 12 --backend auto " + dir.file("in.png") + " -o " +
                                   dir.file("out.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "") << "no GPU is not worth a message in auto mode";
  EXPECT_LE(max_error_in_codes(read_image(dir.file("out.png")), engine_result(input, filter_args_spec())), 0.51);
}

// The engine's test hook makes the GPU fail part-way (a simulated device
// where there is none): auto reruns on the CPU and says so on one line, and
// the file holds the CPU result; forced cuda fails and writes nothing.
TEST(CliBackends, GpuFailureFallsBackToCpu) {
  ScratchDir dir;
  const DecodedImage input = photo(4, 16);
  write_image(dir.file("in.png"), FileFormat::png, input);
  for (const char* failure : {"oom", "launch"}) {
    SCOPED_TRACE(failure);
    const std::string hook = std::string("EDGEWISE_INJECT_GPU_FAILURE=") + failure;
    const CliResult result = run_cli(
        std::string(kFilterArgs) + " --backend auto " + dir.file("in.png") + " -o " + dir.file("out.png"), hook);
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_NE(result.err.find("rerunning on the CPU"), std::string::npos) << result.err;
    EXPECT_LE(max_error_in_codes(read_image(dir.file("out.png")), engine_result(input, filter_args_spec())), 0.51);
    const CliResult forced = run_cli("--backend cuda " + dir.file("in.png") + " -o " + dir.file("forced.png"), hook);
    EXPECT_EQ(forced.status, 1);
    EXPECT_EQ(line_count(forced.err), 1) << forced.err;
    EXPECT_FALSE(exists(dir.file("forced.png")));
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"in.png", "out.png"}));
}

// Collects what the code under test writes to stderr.
class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()), saved_(dup(STDERR_FILENO)) {
    std::fflush(stderr);
    dup2(fileno(file_), STDERR_FILENO);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    for (int c; (c = std::fgetc(file_)) != EOF;) out += char(c);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
  }
  FILE* file_;
  int saved_;
};

const edgewise_cli::ProgressTiming kNoDelays{std::chrono::milliseconds(0), std::chrono::milliseconds(0),
                                             std::chrono::milliseconds(0)};

TEST(CliProgress, TerminalLineIsRewrittenInPlace) {
  StderrCapture capture;
  {
    edgewise_cli::ProgressLine line("photo.png", true, kNoDelays);
    line.update(0.25);
    line.update(0.5);
    line.message("GPU failed (test); rerunning on the CPU");
    line.update(1.0);
    line.finish();
  }
  EXPECT_EQ(capture.text(),
            "\redgewise: photo.png  25%\redgewise: photo.png  50%\n"
            "edgewise: GPU failed (test); rerunning on the CPU\n"
            "\redgewise: photo.png 100%\redgewise: photo.png done\n");
}

TEST(CliProgress, UnfinishedTerminalLineIsEndedSoErrorsStartOnTheirOwnLine) {
  StderrCapture capture;
  { edgewise_cli::ProgressLine("photo.png", true, kNoDelays).update(0.4); }
  EXPECT_EQ(capture.text(), "\redgewise: photo.png  40%\n");
}

TEST(CliProgress, LogGetsPlainLines) {
  StderrCapture capture;
  edgewise_cli::ProgressLine line("photo.png", false, kNoDelays);
  line.update(0.5);
  line.finish();
  EXPECT_EQ(capture.text(), "edgewise: photo.png 50%\nedgewise: photo.png done\n");
}

TEST(CliProgress, ShortJobsPrintNothing) {
  for (bool terminal : {true, false}) {
    StderrCapture capture;
    {
      edgewise_cli::ProgressLine line("photo.png", terminal);  // the real delays
      for (int i = 0; i <= 100; ++i) line.update(i / 100.0);
      line.finish();
    }
    EXPECT_EQ(capture.text(), "") << (terminal ? "terminal" : "log");
  }
}

}  // namespace
}  // namespace edgewise_cli_test
