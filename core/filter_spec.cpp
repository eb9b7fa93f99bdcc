#include "filter_spec.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <type_traits>

namespace edgewise {

// The label without its mnemonic marker.
static std::string strip_mnemonic(const std::string& label) {
  std::string plain;
  for (char c : label)
    if (c != '_') plain += c;
  return plain;
}

const std::vector<ParamInfo>& param_table() {
  static const std::vector<ParamInfo> table = [] {
    std::vector<ParamInfo> rows = {
#define EW_ENUM_PARAM(etype, field, flag, label, def, help, ...)                 \
  ParamInfo{#field, flag, label, "", help, true, true,                           \
            static_cast<double>(etype::def), 0, 0, 0, 0, nullptr, {__VA_ARGS__}, ""},
#define EW_NUM_PARAM(type, field, flag, label, unit, def, hmin, hmax, smin, smax, help) \
  ParamInfo{#field, flag, label, unit, help, false, std::is_integral<type>::value,        \
            static_cast<double>(def), hmin, hmax, smin, smax, nullptr, {}, ""},
#include "params.def"
    };
    for (auto& info : rows) {
      info.label = strip_mnemonic(info.mnemonic_label);
      // An enum's range is its list of spellings.
      if (!info.is_enum) continue;
      info.default_token = info.tokens[static_cast<size_t>(info.default_value)];
      info.hard_max = info.slider_max = static_cast<double>(info.tokens.size() - 1);
    }
    return rows;
  }();
  return table;
}

const std::vector<ParamInfo>& adaptive_param_table() {
  static const std::vector<ParamInfo> table = [] {
    std::vector<ParamInfo> rows = {
#define EW_NUM_PARAM(type, field, flag, label, unit, def, hmin, hmax, smin, smax, help) \
  ParamInfo{#field, flag, label, unit, help, false, std::is_integral<type>::value,        \
            static_cast<double>(def), hmin, hmax, smin, smax, nullptr, {}, ""},
#include "adaptive_params.def"
    };
    for (auto& info : rows) info.label = strip_mnemonic(info.mnemonic_label);
    return rows;
  }();
  return table;
}

const ParamInfo* find_param(const std::string& cli_flag) {
  for (const auto* table : {&param_table(), &adaptive_param_table()})
    for (const auto& info : *table)
      if (cli_flag == info.cli_flag) return &info;
  return nullptr;
}

double get_param(const FilterSpec& spec, const std::string& cli_flag) {
#define EW_ENUM_PARAM(etype, field, flag, ...) \
  if (cli_flag == flag) return static_cast<double>(static_cast<int>(spec.field));
#define EW_NUM_PARAM(type, field, flag, ...) \
  if (cli_flag == flag) return static_cast<double>(spec.field);
#include "params.def"
#define EW_NUM_PARAM(type, field, flag, ...) \
  if (cli_flag == flag) return static_cast<double>(spec.field);
#include "adaptive_params.def"
  return std::numeric_limits<double>::quiet_NaN();
}

static std::string allowed_tokens(const ParamInfo& info) {
  std::string list;
  for (size_t i = 0; i < info.tokens.size(); ++i) {
    if (i) list += (i + 1 == info.tokens.size()) ? " or " : ", ";
    list += info.tokens[i];
  }
  return list;
}

static std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Message for a value outside a parameter's hard range, shared by every
// front end so the user always reads the same words.
static std::string range_message(const ParamInfo& info, double value) {
  std::ostringstream out;
  out << "invalid " << info.cli_flag << " " << format_number(value) << ": ";
  if (info.is_enum)
    out << "expected " << allowed_tokens(info) << " (0.." << info.hard_max << ")";
  else
    out << "allowed range is " << format_number(info.hard_min) << " to "
        << format_number(info.hard_max) << (info.is_integer ? " (an integer)" : "")
        << (info.unit[0] ? std::string(" ") + info.unit : std::string());
  return out.str();
}

static std::string check_value(const ParamInfo& info, double value) {
  const bool finite = std::isfinite(value);
  const bool integral = finite && value == std::floor(value);
  // Float fields are compared as the floats they are stored as: 1e-4 kept
  // in a float is just below the double 1e-4, and must still be accepted.
  const bool below = info.is_integer ? value < info.hard_min : float(value) < float(info.hard_min);
  const bool above = info.is_integer ? value > info.hard_max : float(value) > float(info.hard_max);
  if (!finite || below || above || (info.is_integer && !integral)) return range_message(info, value);
  return "";
}

std::string set_param(FilterSpec& spec, const std::string& cli_flag, double value) {
  const ParamInfo* info = find_param(cli_flag);
  if (!info) return "unknown parameter " + cli_flag;
  std::string error = check_value(*info, value);
  if (!error.empty()) return error;
#define EW_ENUM_PARAM(etype, field, flag, ...) \
  if (cli_flag == flag) spec.field = static_cast<etype>(static_cast<int>(value));
#define EW_NUM_PARAM(type, field, flag, ...) \
  if (cli_flag == flag) spec.field = static_cast<type>(value);
#include "params.def"
#define EW_NUM_PARAM(type, field, flag, ...) \
  if (cli_flag == flag) spec.field = static_cast<type>(value);
#include "adaptive_params.def"
  return "";
}

std::string set_param(FilterSpec& spec, const std::string& cli_flag, const std::string& text) {
  const ParamInfo* info = find_param(cli_flag);
  if (!info) return "unknown parameter " + cli_flag;
  if (info->is_enum) {
    for (size_t i = 0; i < info->tokens.size(); ++i)
      if (text == info->tokens[i]) return set_param(spec, cli_flag, static_cast<double>(i));
    return "invalid " + cli_flag + " '" + text + "': expected " + allowed_tokens(*info);
  }
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0')
    return "invalid " + cli_flag + " '" + text + "': not a number";
  return set_param(spec, cli_flag, value);
}

std::string validate(const FilterSpec& spec) {
  for (const auto* table : {&param_table(), &adaptive_param_table()})
    for (const auto& info : *table) {
      std::string error = check_value(info, get_param(spec, info.cli_flag));
      if (!error.empty()) return error;
    }
  if (spec.adapt_min > spec.adapt_max)
    return "invalid adapt-min " + format_number(spec.adapt_min) + ": must not exceed adapt-max " +
           format_number(spec.adapt_max);
  return "";
}

const char* to_string(ColorMode mode) {
  return find_param("mode")->tokens.at(static_cast<size_t>(mode));
}

const char* to_string(RangeKernel kernel) {
  return find_param("kernel")->tokens.at(static_cast<size_t>(kernel));
}

}  // namespace edgewise
