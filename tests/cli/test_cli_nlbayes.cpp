// The collaborative denoiser from the command line: its options come from
// its registry row (no line of cli/ names it). --scales takes 0, auto (the
// default: the noise model chooses), and 1 to 4 as before.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "jobs.h"
#include "nlbayes.h"
#include "noise_estimate.h"

namespace edgewise_cli_test {
namespace {

// sigma-n a number: white noise, so auto runs one scale.
const char* const kNlBayes = "--backend cpu --filter nlbayes --sigma-n 8 --search-radius 3";

edgewise::FilterSpec nlbayes_args_spec(float sigma_n, int scales) {
  edgewise::NlBayesParameters parameters;
  parameters.sigma_n = sigma_n;
  parameters.search_radius = 3;
  parameters.scales = scales;
  return edgewise::nlbayes_spec(parameters);
}

TEST(CliNlBayes, ScalesFilterLikeTheEngine) {
  for (int scales : {0, 1, 2}) {
    SCOPED_TRACE("--scales " + std::to_string(scales));
    expect_cli_filters_like_the_engine(std::string(kNlBayes) + " --scales " + std::to_string(scales),
                                       nlbayes_args_spec(8.0f, scales), {{3, 8}, {1, 8}});
  }
  // The defaults: sigma-n and scales at auto, the noise measured on the file.
  expect_cli_filters_like_the_engine("--backend cpu --filter nlbayes --search-radius 3",
                                     nlbayes_args_spec(float(edgewise::kNoiseAuto), 0), {{3, 8}});
}

// Auto with sigma-n given as a number is one scale: the same file as
// --scales 1, another than --scales 2.
TEST(CliNlBayes, AutoScalesWithANumberForTheNoiseIsOneScale) {
  const PhotoJob job;
  std::string outputs[3];
  for (int scales : {0, 1, 2}) {
    const CliResult result = run_cli(std::string(kNlBayes) + " --scales " + std::to_string(scales) + job.io);
    ASSERT_EQ(result.status, 0) << result.err;
    outputs[scales] = read_bytes(job.dir.file("out.png"));
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_NE(outputs[0], outputs[2]);
}

// --verbose names the scales auto chose, after the noise values: the
// engine's choice on the file's own noise; nothing about scales when the
// user gave them.
TEST(CliNlBayes, VerboseNamesTheScalesAutoChose) {
  const PhotoJob job;
  DecodedImage input = edgewise_cli::read_image(job.dir.file("in.png"));
  const edgewise::NoiseEstimate noise = edgewise::estimate_noise(edgewise_cli::view(input));
  const int chosen = edgewise::nlbayes_auto_scales(&noise, 3);
  const CliResult automatic = run_cli("--backend cpu --filter nlbayes --search-radius 3 --verbose" + job.io);
  ASSERT_EQ(automatic.status, 0) << automatic.err;
  EXPECT_NE(automatic.err.find("; auto sigma-n "), std::string::npos) << automatic.err;
  EXPECT_NE(automatic.err.find(", scales " + std::to_string(chosen)), std::string::npos) << automatic.err;
  const CliResult given = run_cli("--backend cpu --filter nlbayes --search-radius 3 --scales 1 --verbose" + job.io);
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_EQ(given.err.find("scales"), std::string::npos) << given.err;
}

TEST(CliNlBayes, HelpAndValidation) {
  const CliResult help = run_cli("--help");
  const std::string text = squeeze_spaces(help.out);
  EXPECT_NE(text.find("--scales N"), std::string::npos) << help.out;
  EXPECT_NE(text.find("0 = auto: 2 where the noise model finds the noise correlated"), std::string::npos) << text;
  const PhotoJob job;
  for (const char* bad : {"5", "-1"}) {
    const CliResult result = run_cli(std::string("--filter nlbayes --scales ") + bad + job.io);
    EXPECT_EQ(result.status, 2) << bad;
    EXPECT_NE(result.err.find(std::string("invalid scales ") + bad), std::string::npos) << result.err;
  }
  EXPECT_EQ(job.dir.entries(), (std::vector<std::string>{"in.png"}));
}

}  // namespace
}  // namespace edgewise_cli_test
