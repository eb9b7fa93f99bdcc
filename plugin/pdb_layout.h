// A filter's PDB procedures as data, made from its registry row: the
// argument lists (run-mode, image, drawable, the first parameter group, the
// backend, the other groups, then each later version's parameters), the
// procedure names and help texts, the reading of a call's values into
// settings, and the texts the plug-in shows. Free of libgimp, so tests run
// it on made-up filters; pdb_params turns it into GimpParamDefs.
//
// Published procedures never change: a parameter added later is declared
// EW_PDB_SINCE(N) and becomes an argument of the filter's procedure of
// version N and later, named like GIMP's own extended procedures
// (file-png-save2): plug-in-edgewise-bilateral2 takes everything
// plug-in-edgewise-bilateral takes, then the working space. An older
// version runs with the newer parameters at their defaults.
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

// The procedure versions a filter has: 1 up to the highest EW_PDB_SINCE of
// its PDB parameters.
int pdb_versions(const edgewise::FilterInfo& filter);
// Version 1 is the row's pdb_procedure, version N that name followed by N.
std::string procedure_name(const edgewise::FilterInfo& filter, int version);
// The filter and version of a procedure name; false when the registry has none.
bool find_procedure(const edgewise::Registry& registry, const std::string& name, const edgewise::FilterInfo*& filter,
                    int& version);
// The parameters a procedure of `version` does not take (they keep their defaults).
std::vector<const edgewise::ParamInfo*> newer_params(const edgewise::FilterInfo& filter, int version);
// Puts those parameters back to their defaults: what that version runs.
void keep_to_version(edgewise::Settings& settings, int version);

std::vector<PdbArgument> pdb_arguments(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends,
                                       int version = 1);
// The procedure's help: what it does, which values the filter sees, then
// every argument after the fixed ones.
std::string pdb_help(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version = 1);

// The filter's settings from a NONINTERACTIVE call's values after the
// fixed arguments (INT32 and FLOAT values as doubles, in argument order).
// Returns "" or the validator's message for the first bad value.
std::string read_call(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends,
                      const std::vector<double>& values, edgewise::Settings& settings, int version = 1);

// "" for RUN-INTERACTIVE, RUN-NONINTERACTIVE and RUN-WITH-LAST-VALS (0, 1,
// 2), else the message of the calling error.
std::string check_run_mode(int run_mode);

// The progress bar's text while a filter runs: the filter's title, and the
// working space when it is not the default ("Edgewise Adaptive (linear
// light)").
std::string progress_text(const edgewise::Settings& settings);

}  // namespace edgewise_plugin
