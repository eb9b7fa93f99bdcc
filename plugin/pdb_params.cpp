#include "pdb_params.h"

#include <sstream>

#include "backend.h"

namespace edgewise_plugin {

namespace {

// The procedure is the bilateral filter; the adaptive family gets its own
// procedure later, so the "filter" selector is not a PDB argument here.
bool is_pdb_arg(const edgewise::ParamInfo& info) { return std::string(info.field) != "filter"; }

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// "Spatial sigma: standard deviation of the spatial Gaussian, in px (0.1 to
// 100, default 3)", or for enums the list "0 gaussian, 1 tukey, ...".
std::string describe(const edgewise::ParamInfo& info) {
  std::string text = info.label + ": " + info.help;
  if (info.is_enum) {
    text += " {";
    for (size_t i = 0; i < info.tokens.size(); ++i) text += (i ? ", " : "") + std::to_string(i) + " " + info.tokens[i];
    text += "} (default " + std::string(info.default_token) + ")";
  } else {
    if (info.unit[0]) text += ", in " + std::string(info.unit);
    text +=
        " (" + number(info.hard_min) + " to " + number(info.hard_max) + ", default " + number(info.default_value) + ")";
  }
  return text;
}

const char* kBackendName = "backend";
const char* kBackendDescription =
    "Backend {0 auto, 1 cpu, 2 cuda}: auto uses a usable CUDA GPU and reruns on the CPU when it "
    "fails; cuda fails when no GPU is usable";

}  // namespace

PdbParams::PdbParams(Procedure procedure) {
  names_ = {"run-mode", "image", "drawable"};
  descriptions_ = {"The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }",
                   "Input image", "Input drawable"};
  std::vector<GimpPDBArgType> types = {GIMP_PDB_INT32, GIMP_PDB_IMAGE, GIMP_PDB_DRAWABLE};
  for (const auto& info : edgewise::param_table()) {
    if (!is_pdb_arg(info)) continue;
    names_.push_back(info.cli_flag);
    descriptions_.push_back(describe(info));
    types.push_back(info.is_enum || info.is_integer ? GIMP_PDB_INT32 : GIMP_PDB_FLOAT);
    help_ += describe(info) + ".\n";
  }
  names_.push_back(kBackendName);
  descriptions_.push_back(kBackendDescription);
  types.push_back(GIMP_PDB_INT32);
  help_ += std::string(kBackendDescription) + ".\n";
  if (procedure == Procedure::adaptive)
    for (const auto& info : edgewise::adaptive_param_table()) {
      names_.push_back(info.cli_flag);
      descriptions_.push_back(describe(info));
      types.push_back(GIMP_PDB_FLOAT);
      help_ += describe(info) + ".\n";
    }
  for (size_t i = 0; i < names_.size(); ++i)
    defs_.push_back({types[i], const_cast<gchar*>(names_[i].c_str()), const_cast<gchar*>(descriptions_[i].c_str())});
}

std::string parse_args(Procedure procedure, int nparams, const GimpParam* params, Request& request) {
  const PdbParams layout(procedure);
  if (nparams != layout.count())
    return "expected " + std::to_string(layout.count()) + " arguments, got " + std::to_string(nparams);
  int index = kFixedArgs;
  for (const auto& info : edgewise::param_table()) {
    if (!is_pdb_arg(info)) continue;
    const GimpParam& param = params[index++];
    const double value = param.type == GIMP_PDB_FLOAT ? param.data.d_float : param.data.d_int32;
    const std::string error = edgewise::set_param(request.spec, info.cli_flag, value);
    if (!error.empty()) return error;
  }
  request.backend = params[index++].data.d_int32;
  if (request.backend < int(edgewise::BackendChoice::automatic) || request.backend > int(edgewise::BackendChoice::cuda))
    return "invalid backend " + std::to_string(request.backend) + ": expected 0 (auto), 1 (cpu) or 2 (cuda)";
  request.spec.filter =
      procedure == Procedure::adaptive ? edgewise::FilterKind::adaptive : edgewise::FilterKind::bilateral;
  if (procedure == Procedure::adaptive)
    for (const auto& info : edgewise::adaptive_param_table()) {
      const std::string error = edgewise::set_param(request.spec, info.cli_flag, params[index++].data.d_float);
      if (!error.empty()) return error;
    }
  // set_param checks each value alone; this checks them together.
  return edgewise::validate(request.spec);
}

}  // namespace edgewise_plugin
