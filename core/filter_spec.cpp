#include "filter_spec.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "filter_registry.h"

namespace edgewise {

namespace {

std::string allowed_tokens(const ParamInfo& info) {
  std::string list;
  for (size_t i = 0; i < info.tokens.size(); ++i) {
    if (i) list += (i + 1 == info.tokens.size()) ? " or " : ", ";
    list += info.tokens[i];
  }
  return list;
}

std::string check_value(const ParamInfo& info, double value) {
  if (value == kNoiseAuto && info.takes_noise_auto()) return "";
  const bool finite = std::isfinite(value);
  const bool integral = finite && value == std::floor(value);
  // Real parameters are compared as the floats they are stored as in the
  // typed structs: 1e-4 kept in a float is just below the double 1e-4 and
  // must still be accepted.
  const bool below = info.is_integer() ? value < info.hard_min : float(value) < float(info.hard_min);
  const bool above = info.is_integer() ? value > info.hard_max : float(value) > float(info.hard_max);
  if (!finite || below || above || (info.is_integer() && !integral)) return range_message(info, value);
  return "";
}

// The stored form: reals as floats, since the typed structs hold floats.
double stored(const ParamInfo& info, double value) { return info.is_integer() ? value : double(float(value)); }

}  // namespace

FilterSpec::FilterSpec() : FilterSpec(builtin_registry().default_filter()) {}

FilterSpec::FilterSpec(const FilterInfo& filter) : filter_(&filter) {
  for (const ParamInfo* info : filter.params()) values_.push_back(stored(*info, info->default_value));
}

int FilterSpec::index_of(const std::string& flag) const {
  const std::vector<const ParamInfo*> params = filter_->params();
  for (size_t i = 0; i < params.size(); ++i)
    if (flag == params[i]->cli_flag) return int(i);
  return -1;
}

double FilterSpec::get(const std::string& flag) const {
  const int index = index_of(flag);
  return index < 0 ? std::numeric_limits<double>::quiet_NaN() : values_[size_t(index)];
}

std::string set_param(FilterSpec& spec, const std::string& cli_flag, double value) {
  const int index = spec.index_of(cli_flag);
  if (index < 0) return "unknown parameter " + cli_flag + " of the " + spec.filter().name + " filter";
  const ParamInfo& info = *spec.filter().params()[size_t(index)];
  std::string error = check_value(info, value);
  if (error.empty()) spec.values_[size_t(index)] = stored(info, value);
  return error;
}

std::string set_param(FilterSpec& spec, const std::string& cli_flag, const std::string& text) {
  const ParamInfo* info = spec.filter().find_param(cli_flag);
  if (!info) return "unknown parameter " + cli_flag + " of the " + spec.filter().name + " filter";
  if (info->is_enum()) {
    for (size_t i = 0; i < info->tokens.size(); ++i)
      if (text == info->tokens[i]) return set_param(spec, cli_flag, double(i));
    return "invalid " + cli_flag + " '" + text + "': expected " + allowed_tokens(*info);
  }
  if (text == "auto" && info->takes_noise_auto()) return set_param(spec, cli_flag, kNoiseAuto);
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0')
    return "invalid " + cli_flag + " '" + text + "': " + (info->takes_noise_auto() ? "expected a number or auto" : "not a number");
  return set_param(spec, cli_flag, value);
}

double get_param(const FilterSpec& spec, const std::string& cli_flag) { return spec.get(cli_flag); }

std::string validate(const FilterSpec& spec) {
  const std::vector<const ParamInfo*> params = spec.filter().params();
  for (size_t i = 0; i < params.size(); ++i) {
    std::string error = check_value(*params[i], spec.values()[i]);
    if (!error.empty()) return error;
  }
  return spec.filter().check ? spec.filter().check(spec) : "";
}

FilterSpec with_filter(const FilterSpec& spec, const FilterInfo& filter) {
  FilterSpec other(filter);
  for (const ParamInfo* info : filter.params()) {
    if (!spec.has(info->cli_flag)) continue;
    // A value chosen carries over; the old filter's mere default does not
    // where the new filter's differs (sigma-s: 3 for the bilateral, 100 for
    // nlm, whose spatial term is meant to be nearly flat).
    const double value = spec.get(info->cli_flag);
    const ParamInfo* old_info = spec.filter().find_param(info->cli_flag);
    if (old_info && value == old_info->default_value && info->default_value != old_info->default_value) continue;
    set_param(other, info->cli_flag, value);
  }
  return other;
}

std::string value_text(const ParamInfo& info, double value) {
  if (info.is_enum()) return info.tokens.at(size_t(value));
  if (value == kNoiseAuto && info.takes_noise_auto()) return "auto";
  if (info.is_integer()) return std::to_string(long(value));
  // Shortest text that reads back as the same float, so that saved values
  // never drift ("0.002", not "0.00200000009").
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, double(float(value)));
    if (std::strtof(text, nullptr) == float(value)) break;
  }
  return text;
}

double RequiredParams::get(const char* flag) const {
  if (!spec.has(flag))
    throw std::invalid_argument(std::string("the ") + spec.filter().name + " filter has no parameter " + flag);
  return spec.get(flag);
}

void throw_if_error(const std::string& error) {
  if (!error.empty()) throw std::invalid_argument(error);
}

}  // namespace edgewise
