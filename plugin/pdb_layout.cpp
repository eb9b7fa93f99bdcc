#include "pdb_layout.h"

#include <sstream>

namespace edgewise_plugin {

namespace {

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// "Spatial sigma: standard deviation of the spatial Gaussian, in px (0.1 to
// 100, default 3)", or for choices the list "{0 gaussian, 1 tukey, ...}".
std::string describe(const edgewise::ParamInfo& info) {
  std::string text = info.label + ": " + info.help;
  if (info.is_enum()) {
    text += " {";
    for (size_t i = 0; i < info.tokens.size(); ++i) text += (i ? ", " : "") + std::to_string(i) + " " + info.tokens[i];
    text += "} (default " + info.default_token + ")";
  } else {
    const std::string unit = info.unit_text();
    if (!unit.empty()) text += ", in " + unit;
    text +=
        " (" + number(info.hard_min) + " to " + number(info.hard_max) + ", default " + number(info.default_value) + ")";
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

}  // namespace

std::vector<PdbArgument> pdb_arguments(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends) {
  std::vector<PdbArgument> arguments = {
      {PdbType::int32, "run-mode",
       "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }", nullptr, false},
      {PdbType::image, "image", "Input image", nullptr, false},
      {PdbType::drawable, "drawable", "Input drawable", nullptr, false}};
  for (size_t g = 0; g < filter.groups.size(); ++g) {
    for (const edgewise::ParamInfo& info : filter.groups[g]->params) {
      if (!info.pdb) continue;
      arguments.push_back(
          {info.is_integer() ? PdbType::int32 : PdbType::real, info.cli_flag, describe(info), &info, false});
    }
    // The backend follows the first group: the layout the procedures were
    // published with, which scripts depend on.
    if (g == 0) arguments.push_back({PdbType::int32, "backend", describe_backend(backends), nullptr, true});
  }
  return arguments;
}

std::string pdb_help(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends) {
  std::string help = std::string("Edge-preserving denoising with ") + filter.summary +
                     ", on the selection (or the whole drawable), at the image's own precision. Arguments:\n";
  const std::vector<PdbArgument> arguments = pdb_arguments(filter, backends);
  for (size_t i = kFixedArgs; i < arguments.size(); ++i) help += arguments[i].description + ".\n";
  return help;
}

std::string read_call(const edgewise::FilterInfo& filter, const edgewise::BackendList& backends,
                      const std::vector<double>& values, edgewise::Settings& settings) {
  const std::vector<PdbArgument> arguments = pdb_arguments(filter, backends);
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
        return "invalid backend " + number(value) + ": expected " + list;
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

}  // namespace edgewise_plugin
