// The shipped noise network as the CLI uses it (core/learned_noise.h): auto
// follows the learned reading and --verbose says so; a network file that is
// damaged, of another version or missing is refused with one line naming
// it, and the run then takes the statistical reading, exactly as with the
// learned reading turned off (EDGEWISE_NOISE_NET=none).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "cli_test_support.h"
#include "noise_net.h"

namespace edgewise_cli_test {
namespace {

const std::string kShipped = EDGEWISE_SOURCE_DIR "/models/noise_net-v1.ewnn";

std::vector<char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string noisy_input(ScratchDir& dir) {
  write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  return dir.file("in.png");
}

TEST(CliNoiseNet, AutoFollowsTheLearnedReadingAndSaysSo) {
  ScratchDir dir;
  const std::string in = noisy_input(dir);
  const CliResult result = run_cli("--filter nlm --verbose " + in + " -o " + dir.file("out.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("(learned reading); auto"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("statistical"), std::string::npos) << result.err;
  const CliResult estimate = run_cli("--estimate-noise --verbose " + in);
  ASSERT_EQ(estimate.status, 0) << estimate.err;
  EXPECT_NE(estimate.out.find("\treading\tlearned\n"), std::string::npos) << estimate.out;
  EXPECT_TRUE(estimate.err.empty()) << estimate.err;
}

TEST(CliNoiseNet, ABadNetworkFileIsNamedAndTheStatisticalReadingUsed) {
  ScratchDir dir;
  const std::string in = noisy_input(dir);
  const CliResult off = run_cli("--filter nlm " + in + " -o " + dir.file("statistical.png"), "EDGEWISE_NOISE_NET=none");
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_NE(off.err.find("the learned reading is off (EDGEWISE_NOISE_NET=none); the statistical noise reading is used"),
            std::string::npos)
      << off.err;

  // A flipped weight, a network of another version, no file at all.
  std::vector<char> damaged = bytes_of(kShipped);
  ASSERT_GT(damaged.size(), 1000u) << kShipped;
  damaged[damaged.size() / 2] ^= 0x10;
  std::ofstream(dir.file("damaged.ewnn"), std::ios::binary).write(damaged.data(), std::streamsize(damaged.size()));
  edgewise::NoiseNet later = edgewise::load_noise_net(kShipped);
  later.version = 2;
  edgewise::save_noise_net(later, dir.file("later.ewnn"));
  const struct {
    std::string file, says;
  } cases[] = {{dir.file("damaged.ewnn"), "its checksum does not match"},
               {dir.file("later.ewnn"), "version 2"},
               {dir.file("missing.ewnn"), "missing.ewnn"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const CliResult result =
        run_cli("--filter nlm " + in + " -o " + dir.file("out.png"), "EDGEWISE_NOISE_NET='" + c.file + "'");
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_NE(result.err.find(c.file), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(c.says), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("the statistical noise reading is used"), std::string::npos) << result.err;
    EXPECT_EQ(bytes_of(dir.file("out.png")), bytes_of(dir.file("statistical.png")));
  }
}

}  // namespace
}  // namespace edgewise_cli_test
