#include "pdb_params.h"

#include "denoise_procedure.h"

namespace edgewise_plugin {

namespace {

GimpPDBArgType gimp_type(PdbType type) {
  switch (type) {
    case PdbType::real:
      return GIMP_PDB_FLOAT;
    case PdbType::image:
      return GIMP_PDB_IMAGE;
    case PdbType::drawable:
      return GIMP_PDB_DRAWABLE;
    default:
      return GIMP_PDB_INT32;
  }
}

}  // namespace

PdbParams::PdbParams(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version)
    : PdbParams(pdb_arguments(filter, backends, version), pdb_help(filter, backends, version)) {}

PdbParams::PdbParams(std::vector<PdbArgument> arguments, std::string help)
    : arguments_(std::move(arguments)), help_(std::move(help)) {
  for (const PdbArgument& argument : arguments_)
    defs_.push_back({gimp_type(argument.type), const_cast<gchar*>(argument.name.c_str()),
                     const_cast<gchar*>(argument.description.c_str())});
}

namespace {

std::vector<double> call_values(int nparams, const GimpParam* params) {
  std::vector<double> values;
  for (int i = kFixedArgs; i < nparams; ++i)
    values.push_back(params[i].type == GIMP_PDB_FLOAT ? params[i].data.d_float : params[i].data.d_int32);
  return values;
}

// The text gimp_set_data kept under `name`, or "" in the session's first run.
std::string stored_text(const char* name) {
  const gint size = gimp_get_data_size(name);
  if (size <= 0) return "";
  std::string text(size_t(size), '\0');
  gimp_get_data(name, &text[0]);
  text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
  return text;
}

}  // namespace

std::string parse_args(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version,
                       int nparams, const GimpParam* params, edgewise::Settings& settings) {
  return read_call(filter, backends, call_values(nparams, params), settings, version);
}

edgewise::Settings load_last_values(const edgewise::FilterInfo& filter, std::vector<std::string>& problems) {
  edgewise::Settings settings = edgewise::default_settings(filter);
  const std::string text = stored_text(filter.pdb_procedure);
  if (text.empty()) return settings;  // the first run of the session
  problems = edgewise::read_arguments(text, settings);
  // Stored for this procedure: whatever filter the text names, it is this one.
  if (&settings.spec.filter() != &filter) settings = edgewise::choose_filter(settings, filter);
  return settings;
}

void store_last_values(const edgewise::FilterInfo& filter, const edgewise::Settings& settings) {
  const std::string text = edgewise::format_arguments(settings);
  gimp_set_data(filter.pdb_procedure, text.c_str(), guint32(text.size() + 1));
}

std::string parse_denoise_args(int nparams, const GimpParam* params, edgewise::DenoiseSettings& denoise) {
  return read_denoise_call(edgewise::builtin_registry(), call_values(nparams, params), denoise);
}

edgewise::DenoiseSettings load_denoise_values(std::vector<std::string>& problems) {
  edgewise::DenoiseSettings denoise = edgewise::default_denoise();
  const std::string text = stored_text(kDenoiseProcedure);
  if (!text.empty()) problems = edgewise::read_denoise(text, denoise);
  return denoise;
}

void store_denoise_values(const edgewise::DenoiseSettings& denoise) {
  const std::string text = edgewise::format_denoise(denoise);
  gimp_set_data(kDenoiseProcedure, text.c_str(), guint32(text.size() + 1));
}

}  // namespace edgewise_plugin
