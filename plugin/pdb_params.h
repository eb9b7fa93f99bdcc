// A filter's PDB arguments as libgimp wants them (GimpParamDef), from
// pdb_layout, and a call's values read back into settings.
#pragma once

#include <libgimp/gimp.h>

#include <string>
#include <vector>

#include "denoise.h"
#include "pdb_layout.h"

namespace edgewise_plugin {

class PdbParams {
 public:
  PdbParams(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version);
  // Any procedure's (the Denoise procedure's).
  PdbParams(std::vector<PdbArgument> arguments, std::string help);
  const GimpParamDef* defs() const { return defs_.data(); }
  int count() const { return int(defs_.size()); }
  const std::string& help() const { return help_; }

 private:
  std::vector<PdbArgument> arguments_;  // owns the strings defs_ points to
  std::vector<GimpParamDef> defs_;
  std::string help_;
};

// Reads the filter arguments of a NONINTERACTIVE call. Returns "" or one message.
std::string parse_args(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version,
                       int nparams, const GimpParam* params, edgewise::Settings& settings);

// The last successful call's settings, kept by GIMP for the session
// (gimp_set_data) as the settings text, so RUN-WITH-LAST-VALS and Filters >
// Repeat reproduce it and values are read back by name; every version of a
// filter's procedure shares them (under the version-1 name), the dialog's
// own state (view, zoom, size) included. A stored value that is no longer
// valid falls back to its default; `problems` says which.
edgewise::Settings load_last_values(const edgewise::FilterInfo& filter, std::vector<std::string>& problems);
void store_last_values(const edgewise::FilterInfo& filter, const edgewise::Settings& settings);

// The Denoise procedure's: a NONINTERACTIVE call's arguments, and its last
// values (format_denoise's text, under its own name).
std::string parse_denoise_args(int nparams, const GimpParam* params, edgewise::DenoiseSettings& denoise);
edgewise::DenoiseSettings load_denoise_values(std::vector<std::string>& problems);
void store_denoise_values(const edgewise::DenoiseSettings& denoise);

}  // namespace edgewise_plugin
