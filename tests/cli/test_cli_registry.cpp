// The CLI's options and help generated from a registry holding a made-up
// filter (tests/registry/smudge_filter.h), in-process: the filter gets its
// options, its --filter choice, its help block and its --write-NAME output
// without the CLI's sources naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_test_support.h"
#include "options.h"
#include "registry/smudge_filter.h"

namespace edgewise_cli_test {
namespace {

using edgewise_test::smudge_filter;
using edgewise_test::smudge_registry;

edgewise_cli::CliOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "edgewise");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return edgewise_cli::parse_options(int(argv.size()), argv.data(), smudge_registry());
}

TEST(CliRegistry, OptionsOfAMadeUpFilter) {
  const auto options = parse({"--strength", "0.25", "--shape=soft-edge", "--sigma-s", "2", "in.png", "-o", "out.png"});
  EXPECT_EQ(&options.settings.spec.filter(), &smudge_filter());  // the registry's default
  EXPECT_EQ(options.settings.spec.get("strength"), 0.25);
  EXPECT_EQ(options.settings.spec.get("shape"), 2);
  EXPECT_EQ(options.settings.spec.get("sigma-s"), 2);
  EXPECT_TRUE(edgewise_cli::unused_options(options, smudge_registry()).empty());

  const auto bilateral = parse({"--strength", "0.25", "--filter", "bilateral", "in.png", "-o", "out.png"});
  EXPECT_EQ(&bilateral.settings.spec.filter(), &edgewise::bilateral_filter());
  const auto unused = edgewise_cli::unused_options(bilateral, smudge_registry());
  ASSERT_EQ(unused.size(), 1u);
  EXPECT_EQ(unused[0], "--strength is an option of the smudge filter; ignored with --filter bilateral");

  const auto mask = parse({"--write-mask", "mask.png", "in.png", "-o", "out.png"});
  EXPECT_EQ(mask.extra_outputs.at("mask"), "mask.png");

  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--strength", "2", "in.png", "-o", "out.png"},
        std::vector<std::string>{"--shape", "oval", "in.png", "-o", "out.png"},
        std::vector<std::string>{"--adapt-k", "1", "in.png", "-o", "out.png"},  // not in this registry
        std::vector<std::string>{"--filter", "bilateral", "--write-mask", "m.png", "in.png", "-o", "out.png"}}) {
    SCOPED_TRACE(bad[0] + " " + bad[1]);
    EXPECT_THROW(parse(bad), std::invalid_argument);
  }
  try {
    parse({"--shape", "oval", "in.png", "-o", "out.png"});
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "invalid shape 'oval': expected round, square or soft-edge");
  }
}

TEST(CliRegistry, HelpOfAMadeUpFilter) {
  const std::string help = edgewise_cli::help_text(smudge_registry());
  for (const char* expected :
       {"  --filter smudge|bilateral\n", "smudge, a made-up filter", "\nSmudge options (--filter smudge):\n",
        "A made-up filter for the tests of the front ends' generators.", "  --strength F\n",
        "how much the smudge scales the range sigma. Default 0.5, range 0 to 1.", "  --shape round|square|soft-edge\n",
        "  --reach N\n", "  --write-mask FILE\n", "With --filter smudge and one input"})
    EXPECT_NE(help.find(expected), std::string::npos) << "missing: " << expected << "\n" << help;
  // The range as every message gives it (ParamInfo::range_text), unit and notes included.
  EXPECT_NE(squeeze_spaces(help).find("how far the smudge reaches. Default 0, range 0 to 50 px (an integer; 0 = auto: "
                                      "4 px)."),
            std::string::npos)
      << help;
  EXPECT_EQ(help.find("adapt-k"), std::string::npos);
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 79u) << line;
}

}  // namespace
}  // namespace edgewise_cli_test
