#include "settings.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine.h"

namespace edgewise_dialog {

namespace {

// Shortest decimal text that reads back as the same float, so that saving
// and loading last values never drifts ("0.002", not "0.00200000009").
std::string shortest(float value) {
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, double(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  return text;
}

std::string value_text(const edgewise::ParamInfo& info, double value) {
  if (info.is_enum) return info.tokens.at(size_t(value));
  if (info.is_integer) return std::to_string(long(value));
  return shortest(float(value));
}

}  // namespace

const char* to_string(edgewise::BackendChoice backend) {
  switch (backend) {
    case edgewise::BackendChoice::cpu:
      return "cpu";
    case edgewise::BackendChoice::cuda:
      return "cuda";
    default:
      return "auto";
  }
}

std::vector<std::pair<std::string, std::string>> to_arguments(const Settings& settings) {
  std::vector<std::pair<std::string, std::string>> arguments;
  for (const auto* table : {&edgewise::param_table(), &edgewise::adaptive_param_table()})
    for (const auto& info : *table)
      arguments.emplace_back(info.cli_flag, value_text(info, edgewise::get_param(settings.spec, info.cli_flag)));
  arguments.emplace_back("backend", to_string(settings.backend));
  return arguments;
}

std::string format_arguments(const Settings& settings) {
  std::string text;
  for (const auto& [flag, value] : to_arguments(settings)) text += (text.empty() ? "--" : " --") + flag + " " + value;
  return text;
}

std::string apply_argument(Settings& settings, const std::string& flag, const std::string& value) {
  if (flag != "backend") return edgewise::set_param(settings.spec, flag, value);
  std::string error;
  settings.backend = edgewise::parse_backend(value, error);
  return error;
}

std::string parse_arguments(const std::string& text, Settings& settings) {
  Settings parsed = settings;
  std::istringstream words(text);
  std::string flag, value;
  while (words >> flag) {
    if (flag.rfind("--", 0) != 0) return "expected an option, got '" + flag + "'";
    if (!(words >> value)) return "option " + flag + " needs a value";
    const std::string error = apply_argument(parsed, flag.substr(2), value);
    if (!error.empty()) return error;
  }
  const std::string error = edgewise::validate(parsed.spec);
  if (!error.empty()) return error;
  settings = parsed;
  return "";
}

}  // namespace edgewise_dialog
