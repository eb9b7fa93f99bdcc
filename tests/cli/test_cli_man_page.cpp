// edgewise(1), made from --help (cli/man_page.h): every filter, its
// options as tagged paragraphs under their help's headings, the plug-in's
// procedures and the GEGL operations, for the built-in registry and for one
// holding a made-up filter (tests/registry/smudge_filter.h); and the page
// the build wrote is the built-in one.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "man_page.h"
#include "options.h"
#include "registry/smudge_filter.h"

namespace edgewise_cli_test {
namespace {

std::string escaped_flag(const std::string& flag) {
  std::string out = "\\fB\\-\\-";
  for (char c : flag) out += c;
  return out + "\\fR";
}

void expect_every_filter(const std::string& page, const edgewise::Registry& registry) {
  EXPECT_EQ(page.find("\n.SH NAME\nedgewise \\- "), page.find("\n.SH NAME"));
  for (const char* section : {".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH \"EXIT STATUS\"", ".SH NOTES"})
    EXPECT_NE(page.find(std::string("\n") + section + "\n"), std::string::npos) << section;
  for (const edgewise::FilterInfo* filter : registry.filters()) {
    SCOPED_TRACE(filter->name);
    EXPECT_NE(page.find(std::string("edgewise:") + filter->name), std::string::npos);
    EXPECT_NE(page.find(filter->pdb_procedure), std::string::npos);
    for (const edgewise::ParamInfo* param : filter->params())
      EXPECT_NE(page.find(".TP\n" + escaped_flag(param->cli_flag)), std::string::npos) << param->cli_flag;
  }
  for (const char* option : {"backend", "threads", "max-pixels", "estimate-noise", "gui", "version"})
    EXPECT_NE(page.find(".TP\n" + escaped_flag(option)), std::string::npos) << option;
  // Every line troff takes for a request is one the page means.
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || (line[0] != '.' && line[0] != '\'')) continue;
    const std::string request = line.substr(0, line.find(' '));
    const bool meant = line.rfind(".\\\"", 0) == 0 || request == ".TH" || request == ".SH" || request == ".SS" ||
                       request == ".TP" || request == ".PP" || request == ".nf" || request == ".fi" || request == ".nh";
    EXPECT_TRUE(meant) << line;
  }
}

TEST(CliManPage, EveryFilterAndOption) {
  const std::string page = edgewise_cli::man_page(edgewise_cli::help_text(), "1.2.3");
  EXPECT_NE(page.find(".TH EDGEWISE 1 \"\" \"edgewise 1.2.3\""), std::string::npos);
  expect_every_filter(page, edgewise::builtin_registry());
}

TEST(CliManPage, MadeUpFilter) {
  const edgewise::Registry& registry = edgewise_test::smudge_registry();
  const std::string page = edgewise_cli::man_page(edgewise_cli::help_text(registry), "1.2.3", registry);
  expect_every_filter(page, registry);
  EXPECT_NE(page.find(".SS \"Smudge options (\\-\\-filter smudge)\"\n.PP\nA made-up filter"), std::string::npos);
}

TEST(CliManPage, BuildWroteTheBuiltInPage) {
  std::ifstream file(EDGEWISE_MAN_PAGE);
  ASSERT_TRUE(file) << EDGEWISE_MAN_PAGE;
  std::stringstream written;
  written << file.rdbuf();
  EXPECT_EQ(written.str(), edgewise_cli::man_page(edgewise_cli::help_text(), EDGEWISE_VERSION));
}

}  // namespace
}  // namespace edgewise_cli_test
