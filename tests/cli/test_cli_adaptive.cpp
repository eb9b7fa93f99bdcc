// The adaptive filter from the command line, and its sigma map.
#include <gtest/gtest.h>

#include <algorithm>

#include "bilateral.h"
#include "cli_test_support.h"

namespace edgewise_cli_test {
namespace {

const char* const kAdaptive = "--backend cpu --filter adaptive --sigma-s 1.5 --sigma-r 30";

TEST(CliAdaptive, FiltersLikeTheEngine) {
  ScratchDir dir;
  const DecodedImage input = photo(4, 16);
  edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, input);
  const CliResult result = run_cli(std::string(kAdaptive) + " " + dir.file("in.png") + " -o " + dir.file("out.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  // The CLI's defaults are the engine's: adapt-eps and adapt-min auto,
  // from the noise of the same image.
  edgewise::FilterSpec spec(edgewise::adaptive_filter());
  ASSERT_EQ(edgewise::set_param(spec, "sigma-s", 1.5), "");
  ASSERT_EQ(edgewise::set_param(spec, "sigma-r", 30.0), "");
  // Rounding to 16 bits allows 0.5 code; the 0.01 is float noise (1.5e-7
  // of full scale) for samples that land on a rounding boundary, since the
  // test converts its input independently of the CLI.
  EXPECT_LE(max_error_in_codes(edgewise_cli::read_image(dir.file("out.png")), engine_result(input, spec)), 0.51);
}

// With k = 0 the map is adapt-min everywhere: min / max of full scale.
// With the defaults it is brighter (smooths more) where the photo has
// detail than in its flat parts, within its automatic range: 2 to 4 times
// the noise.
TEST(CliAdaptive, SigmaMap) {
  ScratchDir dir;
  edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  const std::string io = " " + dir.file("in.png") + " -o " + dir.file("out.png") + " --write-sigma ";
  CliResult result =
      run_cli(std::string(kAdaptive) + " --adapt-k 0 --adapt-min 0.25 --adapt-max 1" + io + dir.file("k0.png"));
  ASSERT_EQ(result.status, 0) << result.err;
  const DecodedImage flat = edgewise_cli::read_image(dir.file("k0.png"));
  EXPECT_EQ(flat.channels, 1);
  EXPECT_EQ(flat.bits, 16);
  for (size_t i = 0; i < size_t(flat.width) * size_t(flat.height); ++i) ASSERT_EQ(sample(flat, i), 16384u) << i;

  result = run_cli(std::string(kAdaptive) + " --mode per-channel" + io + dir.file("map.tif"));
  ASSERT_EQ(result.status, 0) << result.err;
  const DecodedImage map = edgewise_cli::read_image(dir.file("map.tif"));
  EXPECT_EQ(map.channels, 3);
  uint32_t low = 65535, high = 0;
  for (size_t i = 0; i < map.bytes.size() / 2; ++i) {
    low = std::min(low, sample(map, i));
    high = std::max(high, sample(map, i));
  }
  EXPECT_GT(2 * high, 3 * low) << "the map should vary with local detail";
  EXPECT_LE(high, 2 * low + 2) << "adapt-min and adapt-max at auto are 2 and 4 x the noise";
}

TEST(CliAdaptive, SigmaMapMisuseIsAUsageError) {
  ScratchDir dir;
  edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  const std::string in = " " + dir.file("in.png");
  for (const std::string& args :
       {"--write-sigma " + dir.file("s.png") + in + " -o " + dir.file("o.png"),
        std::string(kAdaptive) + " --write-sigma " + dir.file("s.png") + in + in + " -o " + dir.path(),
        std::string(kAdaptive) + " --write-sigma " + dir.file("s.jpg") + in + " -o " + dir.file("o.png")}) {
    SCOPED_TRACE(args);
    const CliResult result = run_cli(args);
    EXPECT_NE(result.status, 0);
    EXPECT_EQ(line_count(result.err), 1) << result.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"in.png"});
  }
}

}  // namespace
}  // namespace edgewise_cli_test
