// --filter auto (issue 37, item 5): the CLI chooses the method as GIMP's
// Denoise entry does (core/denoise.h) and takes its Strength, Luminance and
// Colour. The expected method is not asked of recommend_method: the noise's
// kind is known from how the file was made (white noise added per pixel is
// fine grain; the same noise blurred by 1.5 px is correlated, with R, G and
// B alike, so not colour noise), and the documented rule picks among the
// registry rows' DenoiseInfo: the highest rank among the methods that suit
// every kind the noise shows (denoise.h, recommend_method's comment).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "cli_test_support.h"
#include "denoise.h"
#include "filter_registry.h"
#include "jobs.h"
#include "noise_estimate.h"
#include "noise_models.h"
#include "test_support.h"

namespace edgewise_cli_test {
namespace {

// The documented rule, applied here to the rows' data.
const edgewise::FilterInfo* expected_method(unsigned kinds) {
  const edgewise::FilterInfo* chosen = nullptr;
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const edgewise::DenoiseInfo& row = filter->denoise;
    if (!row.method[0] || (row.suits & kinds) != kinds) continue;
    if (!chosen || row.rank > chosen->denoise.rank) chosen = filter;
  }
  return chosen;
}

// A smooth ramp plus a noise field of deviation 10 (bench/quality's), as the
// CLI's nlbayes tests make their files.
DecodedImage noisy_ramp(int channels, double blur, std::mt19937_64& rng) {
  const int width = 320, height = 240;
  std::mt19937 field_rng{unsigned(rng())};
  const edgewise_noise::Field field = edgewise_noise::correlated_field(width, height, channels, blur, 10.0, field_rng);
  DecodedImage image;
  image.width = width;
  image.height = height;
  image.channels = channels;
  image.bits = 8;
  image.allocate();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int k = 0; k < channels; ++k)
        image.bytes[(size_t(y) * width + x) * channels + k] = uint8_t(60 + x / 4 + y / 6 + 10 * k);
  edgewise_noise::add_field(image.bytes.data(), field);
  return image;
}

// Every channel's noise times `factor`, as denoise.h documents Strength for
// equal Luminance and Colour: sigma and both readings of every bin.
edgewise::NoiseEstimate times(edgewise::NoiseEstimate noise, double factor) {
  for (auto* planes : {&noise.channels, &noise.opponent})
    for (edgewise::ChannelNoise& channel : *planes) {
      channel.sigma *= factor;
      for (edgewise::NoiseLevelBin& bin : channel.bins) {
        bin.sigma *= factor;
        bin.reading *= factor;
        bin.texture *= factor;
      }
    }
  return noise;
}

// The filter's defaults run by the engine on the file's samples with the noise given.
std::vector<float> engine_with_noise(const DecodedImage& image, const edgewise::FilterInfo& filter,
                                     const edgewise::NoiseEstimate& noise) {
  const edgewise::ImageShape shape{image.width, image.height, image.channels};
  edgewise::FloatImage source(shape), result(shape);
  for (size_t i = 0; i < image.bytes.size(); ++i) source.pixels()[i] = float(image.bytes[i]) / 255.0f;
  edgewise::RunOptions options;
  options.backend = "cpu";
  options.noise = &noise;
  edgewise::run_filter(edgewise::FilterSpec(filter), shape, source, result, options);
  return result.pixels();
}

// What is left of the grain: the mean difference between horizontal
// neighbours (the ramp itself changes by a quarter of a code value).
double roughness(const DecodedImage& image) {
  double sum = 0;
  size_t count = 0;
  const size_t row = size_t(image.width) * image.channels;
  for (int y = 0; y < image.height; ++y)
    for (size_t i = image.channels; i < row; ++i, ++count)
      sum += std::fabs(double(image.bytes[y * row + i]) - image.bytes[y * row + i - image.channels]);
  return sum / double(count);
}

struct Case {
  int channels;
  double blur;
  unsigned kinds;
  const char* words;  // denoise.h's words for those kinds
};

TEST(CliAutoMethod, ChoosesAsTheDocumentedRuleAndFiltersWithTheScaledNoise) {
  EW_SEEDED_RNG(rng);
  int checked = 0;
  for (const Case& c :
       {Case{3, 0.0, edgewise::kFineNoise, "fine, even grain"}, Case{1, 0.0, edgewise::kFineNoise, "fine, even grain"},
        Case{3, 1.5, edgewise::kCorrelatedNoise, "correlated"}}) {
    SCOPED_TRACE(std::to_string(c.channels) + " channels, blur " + std::to_string(c.blur) + " px");
    const edgewise::FilterInfo* method = expected_method(c.kinds);
    ASSERT_NE(method, nullptr);
    ScratchDir dir;
    edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, noisy_ramp(c.channels, c.blur, rng));
    DecodedImage input = edgewise_cli::read_image(dir.file("in.png"));
    const edgewise::NoiseEstimate measured = edgewise::estimate_noise(edgewise_cli::view(input));
    DecodedImage outputs[2];
    for (int strength : {1, 2}) {
      SCOPED_TRACE("--strength " + std::to_string(strength));
      const std::string out = dir.file("out" + std::to_string(strength) + ".png");
      const CliResult result = run_cli("--backend cpu --filter auto --verbose --strength " + std::to_string(strength) +
                                       " " + dir.file("in.png") + " -o " + out);
      ASSERT_EQ(result.status, 0) << result.err;
      // The reason line the dialog shows ("fine, even grain: Non-local means"), and the filter.
      EXPECT_NE(result.err.find(std::string(": auto method: ") + c.words + ": " + method->denoise.method +
                                " (--filter " + method->name + ")"),
                std::string::npos)
          << result.err;
      outputs[strength - 1] = edgewise_cli::read_image(out);
      EXPECT_LE(max_error_in_codes(outputs[strength - 1], engine_with_noise(input, *method, times(measured, strength))),
                0.51);
    }
    // Strength 2 hands the method twice the noise: it smooths more.
    EXPECT_LT(roughness(outputs[1]), 0.8 * roughness(outputs[0]))
        << roughness(input) << " " << roughness(outputs[0]) << " " << roughness(outputs[1]);
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

TEST(CliAutoMethod, BadControlsAreRefusedBeforeAnythingIsWritten) {
  const PhotoJob job;
  for (const char* bad :
       {"--strength -1", "--strength 5", "--strength abc", "--strength=", "--luminance 4.5", "--colour -0.1"}) {
    SCOPED_TRACE(bad);
    const CliResult result = run_cli(std::string("--filter auto ") + bad + job.io);
    EXPECT_EQ(result.status, 2);
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_NE(result.err.find("invalid "), std::string::npos) << result.err;
  }
  // A filter's own option does not go with auto; the controls need it.
  for (const char* bad : {"--filter auto --sigma-s 2", "--luminance 2", "--filter bilateral --colour 2"}) {
    SCOPED_TRACE(bad);
    const CliResult result = run_cli(std::string(bad) + job.io);
    EXPECT_EQ(result.status, 2);
    EXPECT_EQ(line_count(result.err), 1) << result.err;
  }
  EXPECT_EQ(job.dir.entries(), (std::vector<std::string>{"in.png"}));
}

// Without --filter the default filter runs as before; its --strength (a
// filter's own, e.g. pyramid's) keeps its meaning and notice.
TEST(CliAutoMethod, DefaultsUnchanged) {
  const PhotoJob job;
  const CliResult plain = run_cli("--backend cpu" + job.io);
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_LE(max_error_in_codes(
                edgewise_cli::read_image(job.dir.file("out.png")),
                engine_result(photo(3, 8), edgewise::FilterSpec(edgewise::builtin_registry().default_filter()))),
            0.51);
  const CliResult strength = run_cli("--backend cpu --strength 2" + job.io);
  EXPECT_EQ(strength.status, 0) << strength.err;
  EXPECT_NE(strength.err.find("--strength is an option of the "), std::string::npos) << strength.err;
  const CliResult help = run_cli("--help");
  const std::string text = squeeze_spaces(help.out);
  EXPECT_NE(text.find("Denoise options (--filter auto):"), std::string::npos) << help.out;
  EXPECT_NE(text.find("Default " + std::string(edgewise::builtin_registry().default_filter().name) + "."),
            std::string::npos);
}

}  // namespace
}  // namespace edgewise_cli_test
