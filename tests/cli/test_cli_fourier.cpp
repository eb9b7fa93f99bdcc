// The Fourier bilateral filter from the command line: its options come
// from its registry row (no line of cli/ names it), rgb is refused with the
// modes that work named.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "fourier.h"

namespace edgewise_cli_test {
namespace {

const char* const kFourier =
    "--backend cpu --filter fourier --mode lab --sigma-s 6 --sigma-r 12 --kernel lorentz --terms 0";

edgewise::FilterSpec fourier_args_spec() {
  edgewise::FourierParameters parameters;
  parameters.mode = edgewise::ColorMode::lab;
  parameters.sigma_s = 6.0f;
  parameters.sigma_r = 12.0f;
  parameters.kernel = edgewise::RangeKernel::lorentz;
  return edgewise::fourier_spec(parameters);
}

TEST(CliFourier, FiltersLikeTheEngine) {
  expect_cli_filters_like_the_engine(kFourier, fourier_args_spec(), {{4, 16}, {3, 8}, {1, 8}, {2, 8}});
}

TEST(CliFourier, HelpAndValidation) {
  const CliResult help = run_cli("--help");
  EXPECT_NE(help.out.find("--terms N"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("fourier"), std::string::npos);
  EXPECT_NE(help.out.find("joint Delta E"), std::string::npos);  // lab differs from the exact filter's
  const PhotoJob job;
  CliResult result = run_cli("--filter fourier --mode rgb" + job.io);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("invalid mode rgb for the fourier filter"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("per-channel or lab"), std::string::npos) << result.err;
  result = run_cli("--filter fourier --terms 65" + job.io);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("invalid terms 65"), std::string::npos) << result.err;
  EXPECT_EQ(job.dir.entries(), (std::vector<std::string>{"in.png"}));
  // The bilateral's radius is not this filter's: a notice, then the job.
  result = run_cli("--backend cpu --filter fourier --sigma-s 2 --radius 3" + job.io);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("--radius is an option of"), std::string::npos) << result.err;
  EXPECT_EQ(job.dir.entries(), (std::vector<std::string>{"in.png", "out.png"}));
}

}  // namespace
}  // namespace edgewise_cli_test
