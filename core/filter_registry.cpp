#include "filter_registry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "param_activity.h"

namespace edgewise {

std::vector<const ParamInfo*> FilterInfo::params() const {
  std::vector<const ParamInfo*> list;
  for (const ParamGroup* group : groups)
    for (const ParamInfo& info : group->params) list.push_back(&info);
  return list;
}

const ParamInfo* FilterInfo::find_param(const std::string& flag) const {
  for (const ParamGroup* group : groups)
    for (const ParamInfo& info : group->params)
      if (flag == info.cli_flag) return &info;
  return nullptr;
}

const FilterOutputInfo* FilterInfo::find_output(const std::string& output) const {
  for (const FilterOutputInfo& info : outputs)
    if (output == info.name) return &info;
  return nullptr;
}

namespace {

bool same_meaning(const ParamInfo& a, const ParamInfo& b) {
  return a.type == b.type && a.hard_min == b.hard_min && a.hard_max == b.hard_max && a.tokens == b.tokens &&
         std::string(a.unit) == b.unit;
}

}  // namespace

Registry::Registry(std::vector<const FilterInfo*> filters) : filters_(std::move(filters)) {
  if (filters_.empty()) throw std::logic_error("a filter registry needs at least one filter");
  for (const FilterInfo* filter : filters_)
    for (const ParamInfo* info : filter->params())
      if (info->takes_noise_auto() && !filter->noise_value)
        throw std::logic_error(std::string("filter ") + filter->name + " lets --" + info->cli_flag +
                               " be auto but has no noise rule");
  for (const FilterInfo* filter : filters_) {
    const std::string activity = check_activity(*filter);
    if (!activity.empty()) throw std::logic_error(activity);
    for (const DenoiseControl& control : filter->denoise.controls)
      if (!filter->find_param(control.flag) || !control.label[0] || !control.help[0] ||
          std::string(control.label).find('_') == std::string::npos)
        throw std::logic_error(std::string("filter ") + filter->name + "'s Denoise control --" + control.flag +
                               " is not one of its parameters, or lacks a label with an access key or help");
    if (filter->denoise.method[0] && !filter->denoise.good_for[0])
      throw std::logic_error(std::string("filter ") + filter->name + " is a Denoise method without a description");
  }
  // A flag means one thing in a registry: front ends keep one value per
  // flag across filters (the dialog, the settings text). Two groups may
  // declare it (the nlm filter's mode and sigmas) when they agree on its
  // kind, range and choices; defaults and help may differ.
  for (const FilterInfo* a : filters_)
    for (const FilterInfo* b : filters_)
      for (const ParamInfo* info : a->params()) {
        const ParamInfo* other = b->find_param(info->cli_flag);
        if (other && other != info && !same_meaning(*info, *other))
          throw std::logic_error(std::string("filters ") + a->name + " and " + b->name + " declare --" +
                                 info->cli_flag + " with different kinds, ranges or choices");
      }
}

const FilterInfo* Registry::find(const std::string& name) const {
  for (const FilterInfo* filter : filters_)
    if (name == filter->name) return filter;
  return nullptr;
}

std::vector<const ParamGroup*> Registry::groups() const {
  std::vector<const ParamGroup*> all;
  for (const FilterInfo* filter : filters_)
    for (const ParamGroup* group : filter->groups)
      if (std::find(all.begin(), all.end(), group) == all.end()) all.push_back(group);
  return all;
}

std::vector<const FilterInfo*> Registry::users(const ParamGroup& group) const {
  std::vector<const FilterInfo*> list;
  for (const FilterInfo* filter : filters_)
    if (std::find(filter->groups.begin(), filter->groups.end(), &group) != filter->groups.end()) list.push_back(filter);
  return list;
}

const ParamInfo* Registry::find_param(const std::string& flag) const {
  for (const FilterInfo* filter : filters_)
    if (const ParamInfo* info = filter->find_param(flag)) return info;
  return nullptr;
}

std::vector<const FilterOutputInfo*> Registry::outputs() const {
  std::vector<const FilterOutputInfo*> list;
  for (const FilterInfo* filter : filters_)
    for (const FilterOutputInfo& output : filter->outputs) {
      const bool seen = std::any_of(list.begin(), list.end(), [&](const FilterOutputInfo* known) {
        return std::string(known->name) == output.name;
      });
      if (!seen) list.push_back(&output);
    }
  return list;
}

std::vector<const FilterInfo*> Registry::producers(const std::string& output) const {
  std::vector<const FilterInfo*> list;
  for (const FilterInfo* filter : filters_)
    if (filter->find_output(output)) list.push_back(filter);
  return list;
}

FilterSpec scale_lengths(const FilterSpec& spec, double scale) {
  FilterSpec scaled = spec;
  for (const ParamInfo* info : spec.filter().params()) {
    if (info->preview != PreviewScaling::length) continue;
    const double value = spec.get(info->cli_flag);
    if (info->auto_meaning[0] && value == 0) continue;  // automatic stays automatic
    double next = value * scale;
    if (info->is_integer()) next = std::max(std::max(1.0, info->hard_min), double(std::lround(next)));
    set_param(scaled, info->cli_flag, std::clamp(next, info->hard_min, info->hard_max));
  }
  return scaled;
}

FilterSpec spec_at_scale(const FilterSpec& spec, double scale) {
  if (scale >= 1.0) return spec;
  return spec.filter().at_preview_scale ? spec.filter().at_preview_scale(spec, scale) : scale_lengths(spec, scale);
}

int filter_reach(const FilterSpec& spec) { return spec.filter().reach(spec); }

double effective_value(const FilterSpec& spec, const ParamInfo& param) {
  const double value = spec.get(param.cli_flag);
  if (param.auto_meaning[0] && value == 0 && spec.filter().auto_value) return spec.filter().auto_value(spec, param);
  return value;
}

bool needs_noise(const FilterSpec& spec) {
  for (const ParamInfo* info : spec.filter().params())
    if (info->takes_noise_auto() && spec.get(info->cli_flag) == kNoiseAuto) return true;
  return false;
}

std::vector<std::string> noise_auto_flags(const FilterSpec& spec) {
  std::vector<std::string> flags;
  for (const ParamInfo* info : spec.filter().params())
    if (info->takes_noise_auto() && spec.get(info->cli_flag) == kNoiseAuto) flags.push_back(info->cli_flag);
  return flags;
}

double auto_noise_sigma(const NoiseEstimate& noise) { return std::max(noise.sigma(), kNoiseFloor); }

double auto_noise_sigma(const FilterSpec& spec, const NoiseEstimate& noise) {
  const ParamInfo* mode = spec.filter().find_param("mode");
  const bool lab = mode && mode->is_enum() && mode->tokens.at(size_t(spec.get("mode"))) == "lab";
  return auto_noise_sigma(noise) * (lab ? kLabPerCode : 1.0);
}

FilterSpec resolve_noise(const FilterSpec& spec, const NoiseEstimate& noise) {
  FilterSpec resolved = spec;
  for (const ParamInfo* info : spec.filter().params()) {
    if (!info->takes_noise_auto() || spec.get(info->cli_flag) != kNoiseAuto) continue;
    const double value = spec.filter().noise_value(spec, *info, noise);
    throw_if_error(set_param(resolved, info->cli_flag, std::clamp(value, info->hard_min, info->hard_max)));
  }
  return resolved;
}

std::string resolved_text(const FilterSpec& spec, const FilterSpec& resolved) {
  std::string text;
  for (const ParamInfo* info : spec.filter().params())
    if (info->takes_noise_auto() && spec.get(info->cli_flag) == kNoiseAuto)
      text += (text.empty() ? "" : ", ") + std::string(info->cli_flag) + " " +
              value_text(*info, resolved.get(info->cli_flag));
  return text;
}

const char* short_unit(const FilterSpec& spec, const ParamInfo& param) {
  const ParamInfo* mode = spec.filter().find_param("mode");
  const bool lab = mode && mode->is_enum() && mode->tokens.at(size_t(spec.get("mode"))) == "lab";
  return param.short_unit_for(lab);
}

namespace {

void check_shape(const ImageShape& shape) {
  if (shape.width < 1 || shape.height < 1)
    throw std::invalid_argument("invalid image size " + std::to_string(shape.width) + "x" +
                                std::to_string(shape.height) + ": both sides must be at least 1");
  if (shape.channels < 1 || shape.channels > 4)
    throw std::invalid_argument("invalid channel count " + std::to_string(shape.channels) +
                                ": expected 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA)");
}

}  // namespace

std::unique_ptr<Plan> make_plan(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  const std::string error = validate(spec);
  if (!error.empty()) throw std::invalid_argument(error);
  if (needs_noise(spec))
    throw std::invalid_argument("the " + std::string(spec.filter().name) +
                                " filter's auto parameters need the image's noise estimate (resolve_noise) first");
  check_shape(shape);
  for (const std::string& output : request.extra_outputs)
    if (!spec.filter().find_output(output))
      throw std::invalid_argument("the " + std::string(spec.filter().name) + " filter has no " + output + " output");
  std::unique_ptr<Plan> plan = spec.filter().plan(spec, shape, request);
  plan->shape = shape;
  return plan;
}

BandCost Plan::band_cost() const {
  const size_t channels = size_t(shape.channels), width = size_t(shape.width), padded = size_t(padded_width());
  BandCost cost;
  // Padded bands hold rows + 2 * reach rows.
  const size_t bands = size_t(1 + scratch_bands);
  cost.fixed = bands * 2 * size_t(reach) * padded * channels;
  cost.per_row = bands * padded * channels + width * channels;
  for (const ExtraOutput& extra : extra_outputs) cost.per_row += width * size_t(extra.channels);
  return cost;
}

}  // namespace edgewise
