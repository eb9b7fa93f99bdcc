#include "param_activity.h"

#include "filter_registry.h"

namespace edgewise {

namespace {

// The token a choice holds in `spec`, or "" when the filter has no such choice.
std::string token_of(const FilterSpec& spec, const char* flag) {
  const ParamInfo* choice = spec.filter().find_param(flag);
  if (!choice || !choice->is_enum()) return "";
  const double index = spec.get(flag);
  return index >= 0 && index < double(choice->tokens.size()) ? choice->tokens[size_t(index)] : "";
}

std::string label_of(const FilterSpec& spec, const char* flag) {
  const ParamInfo* info = spec.filter().find_param(flag);
  return info ? info->label : flag;
}

}  // namespace

std::string inactive_reason(const FilterSpec& spec, const ParamInfo& param, int colour_channels) {
  if (param.colour_only && colour_channels < 3) return "a grey image has no colour for it to act on";
  if (param.acts_flag[0] && token_of(spec, param.acts_flag) != param.acts_token)
    return "acts only when " + label_of(spec, param.acts_flag) + " is " + param.acts_token;
  if (param.idle_flag[0] && colour_channels >= 3 && token_of(spec, param.idle_flag) == param.idle_token)
    return "no effect when " + label_of(spec, param.idle_flag) + " is " + param.idle_token;
  if (param.acts_if_on[0]) {
    const ParamInfo* switch_param = spec.filter().find_param(param.acts_if_on);
    if (switch_param && switch_param->is_off(spec.get(param.acts_if_on)))
      return "no effect while " + switch_param->label + " is off";
  }
  return "";
}

std::string check_activity(const FilterInfo& filter) {
  for (const ParamInfo* info : filter.params()) {
    const std::string name = std::string("filter ") + filter.name + ": --" + info->cli_flag + " ";
    for (const char* flag : {info->acts_flag, info->idle_flag}) {
      if (!flag[0]) continue;
      const ParamInfo* choice = filter.find_param(flag);
      const char* token = flag == info->acts_flag ? info->acts_token : info->idle_token;
      if (!choice || !choice->is_enum()) return name + "depends on --" + flag + ", which is not one of its choices";
      bool known = false;
      for (const std::string& spelling : choice->tokens) known = known || spelling == token;
      if (!known) return name + "depends on --" + flag + " being " + token + ", which is not one of its choices";
    }
    if (info->acts_if_on[0]) {
      const ParamInfo* switch_param = filter.find_param(info->acts_if_on);
      if (!switch_param || !switch_param->has_off)
        return name + "depends on --" + info->acts_if_on + " being on, which has no off value";
    }
  }
  return "";
}

}  // namespace edgewise
