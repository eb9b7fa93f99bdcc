// Command-line parsing. The filter options come from core/params.def
// through param_table(); only run options are spelled out here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine.h"

namespace edgewise_cli {

// Exit statuses, documented in --help.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // a file, image or backend problem
constexpr int kExitUsage = 2;    // bad options or parameter values
constexpr int kExitCancelled = 3;  // --gui: the dialog was cancelled, nothing written

struct CliOptions {
  edgewise::FilterSpec spec;
  edgewise::RunOptions run;
  std::vector<std::string> inputs;
  std::string output;
  std::string sigma_map;  // --write-sigma FILE (adaptive filter, one input)
  // Filter parameters and --backend as given on the command line, in order:
  // --gui applies them over the dialog's last values.
  std::vector<std::pair<std::string, std::string>> given;
  bool gui = false;
  bool help = false;
  bool version = false;
};

// Throws std::invalid_argument with one message naming what is wrong; the
// spec it returns has passed edgewise::validate().
CliOptions parse_options(int argc, char** argv);
std::string help_text();

}  // namespace edgewise_cli
