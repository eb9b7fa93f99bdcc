// What the user asked for, independent of any front end or backend.
// Fields and defaults come from params.def so that every front end agrees.
#pragma once

#include <string>
#include <vector>

namespace edgewise {

enum class FilterKind { bilateral = 0, adaptive = 1 };
enum class ColorMode { per_channel = 0, rgb = 1, lab = 2 };
enum class RangeKernel { gaussian = 0, tukey = 1, lorentz = 2, huber = 3 };

struct FilterSpec {
#define EW_ENUM_PARAM(etype, field, flag, label, def, help, ...) etype field = etype::def;
#define EW_NUM_PARAM(type, field, flag, label, unit, def, hmin, hmax, smin, smax, help) \
  type field = static_cast<type>(def);
#include "params.def"
#define EW_NUM_PARAM(type, field, flag, label, unit, def, hmin, hmax, smin, smax, help) \
  type field = static_cast<type>(def);
#include "adaptive_params.def"
};

// Describes one parameter of params.def for front ends that build options,
// help text or widgets from the list instead of repeating it.
struct ParamInfo {
  const char* field;
  const char* cli_flag;
  std::string mnemonic_label;  // "Range si_gma": '_' marks the dialog's access key
  const char* unit;  // empty for enums
  const char* help;
  bool is_enum;
  bool is_integer;
  double default_value;  // numeric parameters
  double hard_min, hard_max, slider_min, slider_max;
  const char* default_token;        // enum parameters
  std::vector<const char*> tokens;  // enum spellings, index = PDB value
  std::string label;                // "Range sigma": for help texts and messages
};

// The bilateral filter's parameters (params.def), in declaration order.
const std::vector<ParamInfo>& param_table();
// The adaptive filter's additional parameters (adaptive_params.def).
const std::vector<ParamInfo>& adaptive_param_table();
// Searches both tables.
const ParamInfo* find_param(const std::string& cli_flag);

// Sets a parameter from its textual form ("lab", "2.5"). Returns an empty
// string on success, otherwise the message validate() would give.
std::string set_param(FilterSpec& spec, const std::string& cli_flag, const std::string& text);
// Sets a parameter from a number (PDB, dialog): enums take their index.
std::string set_param(FilterSpec& spec, const std::string& cli_flag, double value);
double get_param(const FilterSpec& spec, const std::string& cli_flag);

// The one validator. Returns "" when the spec is valid, otherwise one
// message naming the parameter, the value and the allowed range.
std::string validate(const FilterSpec& spec);

const char* to_string(ColorMode mode);
const char* to_string(RangeKernel kernel);

}  // namespace edgewise
