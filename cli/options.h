// Command-line parsing. The filter options come from core/params.def
// through param_table(); only run options are spelled out here.
#pragma once

#include <string>
#include <vector>

#include "engine.h"

namespace edgewise_cli {

struct CliOptions {
  edgewise::FilterSpec spec;
  edgewise::RunOptions run;
  std::vector<std::string> inputs;
  std::string output;
  bool help = false;
  bool version = false;
};

// Throws std::invalid_argument with one message naming what is wrong.
CliOptions parse_options(int argc, char** argv);
std::string help_text();

}  // namespace edgewise_cli
