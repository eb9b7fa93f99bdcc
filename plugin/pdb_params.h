// The PDB arguments of plug-in-edgewise-bilateral, generated from
// core/params.def (through edgewise::param_table()) so that the procedure,
// the CLI and the dialog cannot disagree about names, units or ranges.
#pragma once

#include <libgimp/gimp.h>

#include <string>
#include <vector>

#include "filter_spec.h"

namespace edgewise_plugin {

// run-mode, image, drawable, the filter's parameters, backend.
constexpr int kFixedArgs = 3;

// plug-in-edgewise-bilateral, and plug-in-edgewise-adaptive: the same
// arguments followed by the adaptive filter's own (adaptive_params.def).
enum class Procedure { bilateral, adaptive };

class PdbParams {
 public:
  explicit PdbParams(Procedure procedure = Procedure::bilateral);
  const GimpParamDef* defs() const { return defs_.data(); }
  int count() const { return int(defs_.size()); }
  // The procedure's help: every filter argument with its unit and range.
  const std::string& help() const { return help_; }

 private:
  std::vector<std::string> names_, descriptions_;  // own the strings defs_ points to
  std::vector<GimpParamDef> defs_;
  std::string help_;
};

// What one call asks for once its arguments have been checked.
struct Request {
  edgewise::FilterSpec spec;
  int backend = 0;  // edgewise::BackendChoice as an integer
};

// Reads the filter arguments of a NONINTERACTIVE call. Returns "" or the
// engine's validator message for the first bad argument.
std::string parse_args(Procedure procedure, int nparams, const GimpParam* params, Request& request);

}  // namespace edgewise_plugin
