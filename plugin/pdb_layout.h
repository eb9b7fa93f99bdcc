// A filter's PDB procedure as data, made from its registry row: the
// argument list (run-mode, image, drawable, the first parameter group, the
// backend, the other groups), the help text, and the reading of a call's
// values into settings. Free of libgimp, so tests run it on made-up
// filters; pdb_params turns it into GimpParamDefs.
#pragma once

#include <string>
#include <vector>

#include "backend.h"
#include "filter_registry.h"
#include "settings.h"

namespace edgewise_plugin {

enum class PdbType { int32, real, image, drawable };

struct PdbArgument {
  PdbType type = PdbType::int32;
  std::string name;
  std::string description;
  const edgewise::ParamInfo* param = nullptr;  // the filter parameter it carries, or null
  bool backend = false;                        // the backend choice
};

// run-mode, image, drawable.
constexpr int kFixedArgs = 3;

std::vector<PdbArgument> pdb_arguments(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends);
// The procedure's help: what it does, then every argument after the fixed ones.
std::string pdb_help(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends);

// The filter's settings from a NONINTERACTIVE call's values after the
// fixed arguments (INT32 and FLOAT values as doubles, in argument order).
// Returns "" or the validator's message for the first bad value.
std::string read_call(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends,
                      const std::vector<double>& values, edgewise::Settings& settings);

}  // namespace edgewise_plugin
