// The non-local-means bilateral filter from the command line: its options
// come from its registry row (no line of cli/ names it).
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "nlm.h"

namespace edgewise_cli_test {
namespace {

const char* const kNlm =
    "--backend cpu --filter nlm --search-radius 4 --patch-radius 1 --h 12 --sigma-n 6 --mode lab --sigma-r 40";

edgewise::FilterSpec nlm_args_spec() {
  edgewise::NlmParameters parameters;
  parameters.search_radius = 4;
  parameters.patch_radius = 1;
  parameters.h = 12.0f;
  parameters.sigma_n = 6.0f;
  parameters.mode = edgewise::ColorMode::lab;
  parameters.sigma_r = 40.0f;
  return edgewise::nlm_spec(parameters);
}

TEST(CliNlm, FiltersLikeTheEngine) {
  expect_cli_filters_like_the_engine(kNlm, nlm_args_spec(), {{4, 16}, {3, 8}, {1, 8}});
}

TEST(CliNlm, HelpAndValidation) {
  const CliResult help = run_cli("--help");
  EXPECT_NE(help.out.find("--search-radius N"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--patch-radius N"), std::string::npos);
  EXPECT_NE(help.out.find("nlm"), std::string::npos);
  const PhotoJob job;
  CliResult result = run_cli("--filter nlm --h 0.05" + job.io);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("invalid h 0.05"), std::string::npos) << result.err;
  result = run_cli("--filter nlm --search-radius 33" + job.io);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("invalid search-radius 33"), std::string::npos) << result.err;
  // The bilateral's radius is not this filter's: a notice, then the job.
  result = run_cli("--backend cpu --filter nlm --search-radius 2 --radius 3" + job.io);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("--radius is an option of"), std::string::npos) << result.err;
  EXPECT_EQ(job.dir.entries(), (std::vector<std::string>{"in.png", "out.png"}));
}

}  // namespace
}  // namespace edgewise_cli_test
