// The learned filter from the CLI (--filter learned, from its registry row):
// it runs and says which noise it was told; weights that are damaged, of
// another version, missing or turned off are refused with one line naming
// the file, a non-zero status and the output file left as it was; without
// the noise network it takes white noise and says so in one line.
#include <gtest/gtest.h>

#include <string>

#include "cli_test_support.h"
#include "denoise_net.h"
#include "noise_net.h"

namespace edgewise_cli_test {
namespace {

const std::string kShipped = EDGEWISE_SOURCE_DIR "/models/denoiser-v1.ewnn";

std::string noisy_input(ScratchDir& dir) {
  write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  return dir.file("in.png");
}

TEST(CliLearned, RunsAndSaysWhichNoiseItWasTold) {
  ScratchDir dir;
  const std::string in = noisy_input(dir);
  const CliResult result = run_cli("--filter learned --verbose " + in + " -o " + dir.file("out.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("noise map per 64 px tile"), std::string::npos) << result.err;
  EXPECT_NE(read_bytes(dir.file("out.png")), read_bytes(in));
  const CliResult given = run_cli("--filter learned --sigma-n 12 --verbose " + in + " -o " + dir.file("given.png"));
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_EQ(given.err.find("noise map"), std::string::npos) << given.err;
  EXPECT_NE(read_bytes(dir.file("given.png")), read_bytes(dir.file("out.png")));
}

TEST(CliLearned, BadWeightsAreRefusedByNameAndNothingIsWritten) {
  ScratchDir dir;
  const std::string in = noisy_input(dir);
  std::string damaged = read_bytes(kShipped);
  ASSERT_GT(damaged.size(), 100000u) << kShipped;
  damaged[damaged.size() / 2] ^= 0x10;
  write_bytes(dir.file("damaged.ewnn"), damaged);
  edgewise::NoiseNet later = edgewise::load_denoise_net(kShipped).net;
  later.version = 2;
  edgewise::save_noise_net(later, dir.file("later.ewnn"));
  const struct {
    std::string variable, says;
  } cases[] = {{dir.file("damaged.ewnn"), "its checksum does not match"},
               {dir.file("later.ewnn"), "version 2"},
               {dir.file("missing.ewnn"), "missing.ewnn"},
               {"none", "the learned denoiser is off (EDGEWISE_DENOISE_NET=none)"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.variable);
    write_bytes(dir.file("out.png"), "keep me");
    const CliResult result =
        run_cli("--filter learned " + in + " -o " + dir.file("out.png"), "EDGEWISE_DENOISE_NET='" + c.variable + "'");
    EXPECT_NE(result.status, 0);
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_NE(result.err.find(c.says), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("the learned filter cannot run"), std::string::npos) << result.err;
    EXPECT_EQ(read_bytes(dir.file("out.png")), "keep me");
  }
  // The other filters do not need it.
  const CliResult other =
      run_cli("--filter nlm " + in + " -o " + dir.file("nlm.png"), "EDGEWISE_DENOISE_NET=" + dir.file("missing.ewnn"));
  EXPECT_EQ(other.status, 0) << other.err;
  EXPECT_TRUE(other.err.empty()) << other.err;
}

TEST(CliLearned, WithoutTheNoiseNetworkItSaysItTakesWhiteNoise) {
  ScratchDir dir;
  const std::string in = noisy_input(dir);
  const CliResult result =
      run_cli("--filter learned " + in + " -o " + dir.file("out.png"), "EDGEWISE_NOISE_NET=none");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("the learned filter has no noise map (the learned reading is off (EDGEWISE_NOISE_NET=none)): "
                            "it takes the noise as white noise of sigma"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(line_count(result.err), 2) << result.err;  // and the statistical reading's own line
}

}  // namespace
}  // namespace edgewise_cli_test
