#include "op_properties.h"

#include <cctype>
#include <map>
#include <stdexcept>

namespace edgewise_gegl {

namespace {

using edgewise::ParamInfo;

// The registered GEnum of each choice flag ("mode"), and of the backend
// choice. Their value tables must outlive the types, which GObject keeps
// to the process's end: the module stays loaded (-z nodelete), and these
// are made once and never destroyed (no static destructor runs under the
// host program's exit).
std::map<std::string, GType>& enum_types() {
  static auto* types = new std::map<std::string, GType>;
  return *types;
}
constexpr const char* kBackendKey = " backend";  // no flag has a space

GType register_enum(GTypeModule* module, const std::string& key, const std::string& words,
                    const std::vector<std::string>& tokens) {
  static auto* tables = new std::map<std::string, std::vector<GEnumValue>>;
  std::vector<GEnumValue>& table = (*tables)[key];
  if (table.empty()) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      // Name and nick are the spelling the CLI takes ("per-channel"), so
      // `gegl ... -- edgewise:bilateral mode=per-channel` reads as the CLI does.
      gchar* token = g_strdup(tokens[i].c_str());
      table.push_back({gint(i), token, token});
    }
    table.push_back({0, nullptr, nullptr});
  }
  const std::string name = type_name("Edgewise", words);
  const GType type = g_type_module_register_enum(module, name.c_str(), table.data());
  if (!type) throw std::runtime_error("GObject refused the enum type " + name);
  enum_types()[key] = type;
  return type;
}

GType enum_type(const std::string& key) {
  const auto found = enum_types().find(key);
  if (found == enum_types().end()) throw std::logic_error("no enum type registered for " + key);
  return found->second;
}

constexpr auto kFlags = GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT | GEGL_PARAM_PAD_INPUT);

std::string nick(const ParamInfo& param) {
  std::string plain;
  for (char c : param.mnemonic_label)
    if (c != '_') plain += c;
  return plain;
}

// The help, then the valid values: "... Range 0.001 to 100000 code values
// (0-255 scale at any bit depth; Delta E in lab mode); -1 = auto: 3 x the
// image's noise sigma ...".
std::string description(const ParamInfo& param) {
  std::string text = param.help;
  if (!text.empty()) text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
  if (param.is_enum()) return text + ".";
  text += ". Range " + edgewise::number_text(param.hard_min) + " to " + edgewise::number_text(param.hard_max);
  if (param.unit[0]) text += std::string(" ") + param.unit;
  std::string notes;
  auto note = [&notes](const std::string& words) { notes += (notes.empty() ? "" : "; ") + words; };
  if (param.unit_note[0]) note(param.unit_note);
  if (param.auto_meaning[0]) note(std::string("0 = auto: ") + param.auto_meaning);
  if (!notes.empty()) text += " (" + notes + ")";
  if (param.takes_noise_auto())
    text += std::string("; -1 (any negative value) = auto, from the noise measured on the whole input: ") +
            param.noise_auto;
  return text + ".";
}

}  // namespace

std::string type_name(const char* prefix, const std::string& words) {
  std::string name = prefix;
  bool start = true;
  for (char c : words) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      start = true;
      continue;
    }
    name += start ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    start = false;
  }
  return name;
}

void register_enum_types(GTypeModule* module, const edgewise::Registry& registry,
                         const edgewise::BackendList& backends) {
  for (const edgewise::FilterInfo* filter : registry.filters())
    for (const ParamInfo* param : filter->params())
      if (param->is_enum()) register_enum(module, param->cli_flag, param->cli_flag, param->tokens);
  register_enum(module, kBackendKey, "backend", edgewise::backend_choices(backends));
}

GParamSpec* param_property(const ParamInfo& param) {
  const std::string label = nick(param), blurb = description(param);
  GParamSpec* spec = nullptr;
  if (param.is_enum()) {
    spec = g_param_spec_enum(param.cli_flag, label.c_str(), blurb.c_str(), enum_type(param.cli_flag),
                             gint(param.default_value), kFlags);
  } else if (param.is_integer()) {
    spec = gegl_param_spec_int(param.cli_flag, label.c_str(), blurb.c_str(), gint(param.hard_min), gint(param.hard_max),
                               gint(param.default_value), gint(param.slider_min), gint(param.slider_max), 1.0, kFlags);
  } else {
    // Auto (-1) is the default of a parameter that takes it, and the
    // slider's left end, so that a slider can go back to it.
    const bool automatic = param.takes_noise_auto();
    spec = gegl_param_spec_double(
        param.cli_flag, label.c_str(), blurb.c_str(), automatic ? edgewise::kNoiseAuto : param.hard_min, param.hard_max,
        param.default_value, automatic ? edgewise::kNoiseAuto : param.slider_min, param.slider_max, 1.0, kFlags);
  }
  if (param.preview == edgewise::PreviewScaling::length)
    gegl_param_spec_set_property_key(spec, "unit", "pixel-distance");
  return spec;
}

GParamSpec* backend_property(const edgewise::BackendList& backends) {
  std::string choices;
  for (const std::string& choice : edgewise::backend_choices(backends))
    choices += (choices.empty() ? "" : ", ") + choice;
  const std::string blurb = "Where the filter runs (" + choices +
                            "): auto uses a usable GPU and the CPU otherwise, and reruns on the CPU when the GPU "
                            "fails; a backend named that cannot run leaves the input unchanged, with a warning.";
  return g_param_spec_enum("backend", "Backend", blurb.c_str(), enum_type(kBackendKey), 0, kFlags);
}

double spec_number(const ParamInfo& param, const GValue* value) {
  if (param.is_enum()) return g_value_get_enum(value);
  if (param.is_integer()) return g_value_get_int(value);
  const double number = g_value_get_double(value);
  return param.takes_noise_auto() && number < 0 ? edgewise::kNoiseAuto : number;
}

void set_gvalue(const ParamInfo& param, double number, GValue* value) {
  if (param.is_enum())
    g_value_set_enum(value, gint(number));
  else if (param.is_integer())
    g_value_set_int(value, gint(number));
  else
    g_value_set_double(value, number);
}

}  // namespace edgewise_gegl
