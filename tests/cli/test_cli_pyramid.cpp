// The multiresolution bilateral filter from the command line: its options
// come from its registry row (no line of cli/ names it), values out of
// range are refused before any file is written.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "pyramid.h"

namespace edgewise_cli_test {
namespace {

const char* const kPyramid =
    "--backend cpu --filter pyramid --mode lab --sigma-s 1.5 --sigma-r 8 --kernel tukey --levels 3 "
    "--luma-strength 0.5 --chroma-strength 2 --coarse-strength 1.5";

edgewise::FilterSpec pyramid_args_spec() {
  edgewise::PyramidParameters parameters;
  parameters.mode = edgewise::ColorMode::lab;
  parameters.sigma_s = 1.5f;
  parameters.sigma_r = 8.0f;
  parameters.kernel = edgewise::RangeKernel::tukey;
  parameters.levels = 3;
  parameters.luma_strength = 0.5f;
  parameters.chroma_strength = 2.0f;
  parameters.coarse_strength = 1.5f;
  return edgewise::pyramid_spec(parameters);
}

TEST(CliPyramid, FiltersLikeTheEngine) {
  for (const auto& layout : {std::pair{4, 16}, std::pair{3, 8}, std::pair{1, 8}, std::pair{2, 8}}) {
    SCOPED_TRACE(std::to_string(layout.first) + " channels, " + std::to_string(layout.second) + "-bit");
    ScratchDir dir;
    const DecodedImage input = photo(layout.first, layout.second);
    edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, input);
    const CliResult result = run_cli(std::string(kPyramid) + " " + dir.file("in.png") + " -o " + dir.file("out.png"));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_LE(
        max_error_in_codes(edgewise_cli::read_image(dir.file("out.png")), engine_result(input, pyramid_args_spec())),
        0.51);
  }
}

TEST(CliPyramid, HelpAndValidation) {
  const CliResult help = run_cli("--help");
  EXPECT_NE(help.out.find("--levels N"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--luma-strength F"), std::string::npos);
  EXPECT_NE(help.out.find("--chroma-strength F"), std::string::npos);
  EXPECT_NE(help.out.find("--guide gaussian|laplacian"), std::string::npos);
  ScratchDir dir;
  edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
  const std::string io = " " + dir.file("in.png") + " -o " + dir.file("out.png");
  CliResult result = run_cli("--filter pyramid --levels 9" + io);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("invalid levels 9"), std::string::npos) << result.err;
  result = run_cli("--filter pyramid --chroma-strength 4.5" + io);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("invalid chroma-strength 4.5"), std::string::npos) << result.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"in.png"}));
}

}  // namespace
}  // namespace edgewise_cli_test
