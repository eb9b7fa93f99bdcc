#include "pdb_params.h"

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
    : arguments_(pdb_arguments(filter, backends, version)), help_(pdb_help(filter, backends, version)) {
  for (const PdbArgument& argument : arguments_)
    defs_.push_back({gimp_type(argument.type), const_cast<gchar*>(argument.name.c_str()),
                     const_cast<gchar*>(argument.description.c_str())});
}

std::string parse_args(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version,
                       int nparams, const GimpParam* params, edgewise::Settings& settings) {
  std::vector<double> values;
  for (int i = kFixedArgs; i < nparams; ++i)
    values.push_back(params[i].type == GIMP_PDB_FLOAT ? params[i].data.d_float : params[i].data.d_int32);
  return read_call(filter, backends, values, settings, version);
}

edgewise::Settings load_last_values(const edgewise::FilterInfo& filter, std::vector<std::string>& problems) {
  edgewise::Settings settings = edgewise::default_settings(filter);
  const gint size = gimp_get_data_size(filter.pdb_procedure);
  if (size <= 0) return settings;  // the first run of the session
  std::string text(size_t(size), '\0');
  gimp_get_data(filter.pdb_procedure, &text[0]);
  text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
  problems = edgewise::read_arguments(text, settings);
  // Stored for this procedure: whatever filter the text names, it is this one.
  if (&settings.spec.filter() != &filter) settings = edgewise::choose_filter(settings, filter);
  return settings;
}

void store_last_values(const edgewise::FilterInfo& filter, const edgewise::Settings& settings) {
  const std::string text = edgewise::format_arguments(settings);
  gimp_set_data(filter.pdb_procedure, text.c_str(), guint32(text.size() + 1));
}

}  // namespace edgewise_plugin
