// Command-line parsing and help, generated from a filter registry and a
// backend list: the filter options, --filter's choices and the --write-NAME
// options for filters' extra outputs come from the registry; only run
// options are spelled out here.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "denoise.h"
#include "engine.h"
#include "jobs.h"
#include "settings.h"

namespace edgewise_cli {

// Exit statuses, documented in --help.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;    // a file, image or backend problem
constexpr int kExitUsage = 2;      // bad options or parameter values
constexpr int kExitCancelled = 3;  // --gui: the dialog was cancelled, nothing written

struct CliOptions {
  edgewise::Settings settings;  // the filter, its values and the backend
  // --filter auto: each input gets the method the Denoise front end
  // recommends for its measured noise (core/denoise.h), with its default
  // values, and --strength, --luminance, --colour (denoise.method stays
  // null: the recommended one). `settings` then keeps the registry's
  // default filter and the backend.
  bool auto_method = false;
  edgewise::DenoiseSettings denoise;
  edgewise::RunOptions run;
  std::vector<std::string> inputs;
  std::string output;
  std::map<std::string, std::string> extra_outputs;  // --write-NAME FILE: output name -> file
  JobOptions files;  // --max-pixels, --overwrite, --fail-fast, --strip-metadata and the codecs' options
  // Filter options and --backend as given on the command line, in order:
  // --gui applies them over the dialog's last values.
  std::vector<std::pair<std::string, std::string>> given;
  bool gui = false;
  // --estimate-noise: print each input's noise level and write nothing;
  // --verbose: with it, each channel's noise level function.
  bool estimate_noise = false;
  bool verbose = false;
  bool help = false;
  bool version = false;
};

// Throws std::invalid_argument with one message naming what is wrong; the
// settings it returns have passed edgewise::validate().
CliOptions parse_options(int argc, char** argv, const edgewise::Registry& registry = edgewise::builtin_registry(),
                         const edgewise::BackendList& backends = edgewise::installed_backends());
std::string help_text(const edgewise::Registry& registry = edgewise::builtin_registry(),
                      const edgewise::BackendList& backends = edgewise::installed_backends());

// Options given for parameters the chosen filter does not have: one notice
// each ("--adapt-k is an option of the adaptive filter; ignored with
// --filter bilateral"), for runs without the dialog.
std::vector<std::string> unused_options(const CliOptions& options,
                                        const edgewise::Registry& registry = edgewise::builtin_registry());

}  // namespace edgewise_cli
