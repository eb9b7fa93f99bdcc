#include "pdb_layout.h"

#include <algorithm>

namespace edgewise_plugin {

namespace {

// "Spatial sigma: standard deviation of the spatial Gaussian; 0.1 to 100 px,
// default 3", or for choices the list "{0 gaussian, 1 tukey, ...}".
std::string describe(const edgewise::ParamInfo& info) {
  std::string text = info.label + ": " + info.help;
  if (info.is_enum()) {
    text += " {";
    for (size_t i = 0; i < info.tokens.size(); ++i) text += (i ? ", " : "") + std::to_string(i) + " " + info.tokens[i];
    text += "} (default " + info.default_token + ")";
  } else {
    text += "; " + info.range_text() + ", default " + edgewise::number_text(info.default_value);
    if (info.default_value == edgewise::kNoiseAuto && info.takes_noise_auto()) text += " (auto)";
  }
  return text;
}

std::string describe_backend(const edgewise::BackendList& backends) {
  const std::vector<std::string> choices = edgewise::backend_choices(backends);
  std::string text = "Backend {";
  for (size_t i = 0; i < choices.size(); ++i) text += (i ? ", " : "") + std::to_string(i) + " " + choices[i];
  return text +
         "}: auto uses every usable backend and reruns on the CPU when one fails; naming a backend fails "
         "when it is not usable";
}

PdbArgument argument_of(const edgewise::ParamInfo& info) {
  return {info.is_integer() ? PdbType::int32 : PdbType::real, info.cli_flag, describe(info), &info, false};
}

}  // namespace

int pdb_versions(const edgewise::FilterInfo& filter) {
  int versions = 1;
  for (const edgewise::ParamInfo* info : filter.params())
    if (info->pdb) versions = std::max(versions, info->pdb_version);
  return versions;
}

std::string procedure_name(const edgewise::FilterInfo& filter, int version) {
  return version <= 1 ? std::string(filter.pdb_procedure) : filter.pdb_procedure + std::to_string(version);
}

bool find_procedure(const edgewise::Registry& registry, const std::string& name, const edgewise::FilterInfo*& filter,
                    int& version) {
  for (const edgewise::FilterInfo* candidate : registry.filters())
    for (int v = 1; v <= pdb_versions(*candidate); ++v)
      if (name == procedure_name(*candidate, v)) {
        filter = candidate;
        version = v;
        return true;
      }
  return false;
}

std::vector<const edgewise::ParamInfo*> newer_params(const edgewise::FilterInfo& filter, int version) {
  std::vector<const edgewise::ParamInfo*> newer;
  for (const edgewise::ParamInfo* info : filter.params())
    if (info->pdb && info->pdb_version > version) newer.push_back(info);
  return newer;
}

void keep_to_version(edgewise::Settings& settings, int version) {
  for (const edgewise::ParamInfo* info : newer_params(settings.spec.filter(), version))
    edgewise::set_param(settings.spec, info->cli_flag, info->default_value);
}

std::vector<PdbArgument> pdb_arguments(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends,
                                       int version) {
  std::vector<PdbArgument> arguments = {
      {PdbType::int32, "run-mode",
       "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }", nullptr, false},
      {PdbType::image, "image", "Input image", nullptr, false},
      {PdbType::drawable, "drawable", "Input drawable", nullptr, false}};
  for (size_t g = 0; g < filter.groups.size(); ++g) {
    for (const edgewise::ParamInfo& info : filter.groups[g]->params)
      if (info.pdb && info.pdb_version == 1) arguments.push_back(argument_of(info));
    // The backend follows the first group: the layout the procedures were
    // published with, which scripts depend on.
    if (g == 0) arguments.push_back({PdbType::int32, "backend", describe_backend(backends), nullptr, true});
  }
  // Each later version appends its own parameters, in declaration order.
  for (int v = 2; v <= version; ++v)
    for (const edgewise::ParamInfo* info : filter.params())
      if (info->pdb && info->pdb_version == v) arguments.push_back(argument_of(*info));
  return arguments;
}

std::string pdb_help(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends, int version) {
  std::string help = std::string("Edge-preserving denoising with ") + filter.summary +
                     ", on the selection (or the whole drawable), at the image's own precision. Pixels reach the "
                     "filter as R'G'B' floats (sRGB-encoded, the code values 8- and 16-bit images store) whatever the "
                     "image's precision: GEGL converts linear images to them and back.";
  const std::vector<const edgewise::ParamInfo*> newer = newer_params(filter, version);
  if (!newer.empty()) {
    help += " This procedure runs with";
    for (size_t i = 0; i < newer.size(); ++i)
      help += std::string(i ? "," : "") + " " + newer[i]->cli_flag + " " +
              edgewise::value_text(*newer[i], newer[i]->default_value);
    help += "; " + procedure_name(filter, pdb_versions(filter)) + " takes the same arguments followed by " +
            (newer.size() == 1 ? "that one." : "those.");
  }
  help += " Arguments:\n";
  const std::vector<PdbArgument> arguments = pdb_arguments(filter, backends, version);
  for (size_t i = kFixedArgs; i < arguments.size(); ++i) help += arguments[i].description + ".\n";
  return help;
}

std::string read_call(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends,
                      const std::vector<double>& values, edgewise::Settings& settings, int version) {
  const std::vector<PdbArgument> arguments = pdb_arguments(filter, backends, version);
  const size_t expected = arguments.size() - kFixedArgs;
  if (values.size() != expected)
    return "expected " + std::to_string(arguments.size()) + " arguments, got " +
           std::to_string(values.size() + kFixedArgs);
  edgewise::Settings read = edgewise::default_settings(filter);
  for (size_t i = 0; i < expected; ++i) {
    const PdbArgument& argument = arguments[i + kFixedArgs];
    if (argument.backend) {
      const std::vector<std::string> choices = edgewise::backend_choices(backends);
      const double value = values[i];
      if (!(value >= 0 && value < double(choices.size())) || value != double(int(value))) {
        std::string list;
        for (size_t c = 0; c < choices.size(); ++c)
          list += (c == 0 ? "" : c + 1 == choices.size() ? " or " : ", ") + std::to_string(c) + " (" + choices[c] + ")";
        return "invalid backend " + edgewise::number_text(value) + ": expected " + list;
      }
      read.backend = choices[size_t(value)];
      continue;
    }
    const std::string error = edgewise::set_param(read.spec, argument.name, values[i]);
    if (!error.empty()) return error;
  }
  // set_param checks each value alone; this checks them together.
  const std::string error = edgewise::validate(read.spec);
  if (!error.empty()) return error;
  settings = read;
  return "";
}

std::string check_run_mode(int run_mode) {
  if (run_mode >= 0 && run_mode <= 2) return "";
  return "invalid run-mode " + std::to_string(run_mode) +
         ": expected RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) or RUN-WITH-LAST-VALS (2)";
}

std::string progress_text(const edgewise::Settings& settings) {
  std::string choices;
  for (const edgewise::ParamInfo* info : settings.spec.filter().params())
    if (info->is_enum())
      choices += (choices.empty() ? "" : ", ") + edgewise::value_text(*info, settings.spec.get(info->cli_flag));
  return std::string(settings.spec.filter().title) + (choices.empty() ? "" : " (" + choices + ")");
}

}  // namespace edgewise_plugin
