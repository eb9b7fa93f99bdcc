// What the user asked for: a filter of the registry and a value for each of
// its parameters, independent of any front end or backend. Values are set
// and read by the parameter's flag and checked against its .def entry.
#pragma once

#include <string>
#include <vector>

#include "params.h"

namespace edgewise {

struct FilterInfo;

class FilterSpec {
 public:
  // The built-in registry's first filter (bilateral) with its defaults.
  FilterSpec();
  // `filter` with its defaults; the spec refers to it, so it must outlive the spec.
  explicit FilterSpec(const FilterInfo& filter);

  const FilterInfo& filter() const { return *filter_; }
  bool has(const std::string& flag) const { return index_of(flag) >= 0; }
  // The value of a parameter (a choice's index); NaN when the filter has no such parameter.
  double get(const std::string& flag) const;
  // Values in the order of filter().params().
  const std::vector<double>& values() const { return values_; }

 private:
  friend std::string set_param(FilterSpec& spec, const std::string& cli_flag, double value);
  int index_of(const std::string& flag) const;

  const FilterInfo* filter_;
  std::vector<double> values_;
};

// Sets a parameter from a number (PDB, dialog; a choice takes its index) or
// from its text ("lab", "2.5"). Returns "" on success, otherwise one message
// naming the flag, the value and what is allowed; the spec is unchanged then.
std::string set_param(FilterSpec& spec, const std::string& cli_flag, double value);
std::string set_param(FilterSpec& spec, const std::string& cli_flag, const std::string& text);
double get_param(const FilterSpec& spec, const std::string& cli_flag);

// The one validator: every value in its range, then the filter's own
// constraints between values. "" when valid, else one message.
std::string validate(const FilterSpec& spec);

// The same settings for another filter: parameters both filters have keep
// their value (unless it is the old filter's default and the new filter's
// differs), the others take the new filter's defaults.
FilterSpec with_filter(const FilterSpec& spec, const FilterInfo& filter);

// The text form of a value as the CLI and the settings text write it: a
// choice's spelling, an integer, or the shortest decimal that reads back to
// the same float.
std::string value_text(const ParamInfo& info, double value);

// The source a filter's generated readers take (EW_DEF_READ in param_def.h):
// they ask for every flag of their list, and a spec of another filter that
// lacks one is refused with std::invalid_argument naming filter and flag.
struct RequiredParams {
  const FilterSpec& spec;
  double get(const char* flag) const;
};

// Throws std::invalid_argument with `error` unless it is "" (the generated
// writers' and the typed constructors' check of set_param and validate).
void throw_if_error(const std::string& error);

}  // namespace edgewise
