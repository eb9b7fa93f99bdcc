// The collaborative denoiser from the command line: its options come from
// its registry row (no line of cli/ names it). --scales takes 0, auto (the
// default: the noise model chooses), and 1 to 4 as before.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "jobs.h"
#include "nlbayes.h"
#include "noise_estimate.h"
#include "noise_models.h"
#include "test_support.h"

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

// --verbose names the scales auto chose, after the noise values; nothing
// about scales when the user gave them. The expectation follows the
// documented rule (nlbayes.h, docs/quality.md "Scales at auto"), not the
// function that applies it: white noise is one scale (its coarse-scale
// gain is 1, the threshold 1.7); noise blurred by 1 px (colour) or 1.5 px
// (grey) reads a gain of 2.8-3.4, two scales. The files are built here:
// a smooth ramp plus bench/quality's noise field of deviation 10.
TEST(CliNlBayes, VerboseNamesTheScalesAutoChose) {
  EW_SEEDED_RNG(rng);
  const int width = 320, height = 240;
  struct Case {
    int channels;
    double blur;  // 0: white
    int scales;
  };
  int checked = 0;
  for (const Case& c : {Case{3, 0.0, 1}, Case{1, 0.0, 1}, Case{3, 1.0, 2}, Case{1, 1.5, 2}}) {
    SCOPED_TRACE(std::to_string(c.channels) + " channels, blur " + std::to_string(c.blur) + " px");
    std::mt19937 field_rng{unsigned(rng())};
    const edgewise_noise::Field field =
        edgewise_noise::correlated_field(width, height, c.channels, c.blur, 10.0, field_rng);
    DecodedImage image;
    image.width = width;
    image.height = height;
    image.channels = c.channels;
    image.bits = 8;
    image.allocate();
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int k = 0; k < c.channels; ++k)
          image.bytes[(size_t(y) * width + x) * c.channels + k] = uint8_t(60 + x / 4 + y / 6 + 10 * k);
    edgewise_noise::add_field(image.bytes.data(), field);
    ScratchDir dir;
    edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, image);
    const std::string io = " " + dir.file("in.png") + " -o " + dir.file("out.png");
    const CliResult automatic = run_cli("--backend cpu --filter nlbayes --search-radius 3 --verbose" + io);
    ASSERT_EQ(automatic.status, 0) << automatic.err;
    EXPECT_NE(automatic.err.find("; auto sigma-n "), std::string::npos) << automatic.err;
    EXPECT_NE(automatic.err.find(", scales " + std::to_string(c.scales)), std::string::npos) << automatic.err;
    const CliResult given = run_cli("--backend cpu --filter nlbayes --search-radius 3 --scales 1 --verbose" + io);
    ASSERT_EQ(given.status, 0) << given.err;
    EXPECT_EQ(given.err.find("scales"), std::string::npos) << given.err;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
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
