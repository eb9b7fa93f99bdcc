// What the dialog edits and returns: the filter spec and the backend. Also
// their text form, "--mode rgb --sigma-s 3 ...", generated from the parameter
// tables: the CLI keeps the dialog's last values in it, and test traces
// print it, so a setting reads the same everywhere.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "filter_spec.h"

namespace edgewise_dialog {

struct Settings {
  edgewise::FilterSpec spec;
  edgewise::BackendChoice backend = edgewise::BackendChoice::automatic;
};

// (flag, value) for every parameter and the backend, in table order; floats
// in their shortest text that reads back to the same value.
std::vector<std::pair<std::string, std::string>> to_arguments(const Settings& settings);
// "--filter bilateral --mode rgb ... --backend auto"
std::string format_arguments(const Settings& settings);
// Sets one option ("sigma-s", "2.5"; "backend", "cpu") checking that value
// alone. Returns "" or the validator's message.
std::string apply_argument(Settings& settings, const std::string& flag, const std::string& value);
// Reads text written by format_arguments (or typed by hand). Returns "" or
// the validator's message for the first bad value; on error `settings` is
// unchanged.
std::string parse_arguments(const std::string& text, Settings& settings);

const char* to_string(edgewise::BackendChoice backend);

}  // namespace edgewise_dialog
