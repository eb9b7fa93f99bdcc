#include "control_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "param_activity.h"

namespace edgewise_dialog {

namespace {

// Decimals shown for a number: enough to move along its slider range in
// about a thousand steps.
int digits_for(const edgewise::ParamInfo& info) {
  if (info.is_integer()) return 0;
  if (info.slider_max <= 0.2) return 4;
  if (info.slider_max <= 2) return 3;
  if (info.slider_max <= 20) return 2;
  return 1;
}

ControlRow make_row(const edgewise::ParamInfo& info) {
  ControlRow row;
  row.param = &info;
  row.label = info.mnemonic_label;
  row.choice = info.is_enum();
  row.choices = info.tokens;
  row.slider_min = info.slider_min;
  row.slider_max = info.slider_max;
  row.hard_min = info.hard_min;
  row.hard_max = info.hard_max;
  row.digits = digits_for(info);
  row.step = std::pow(10.0, 1 - row.digits) / (info.is_integer() ? 10 : 1);
  row.automatic = info.auto_meaning[0] != '\0';
  row.noise_auto = info.takes_noise_auto();
  row.off = info.has_off;
  row.tooltip = info.help;
  if (!info.is_enum()) row.tooltip += ".\nAllowed: " + info.range_text();
  if (info.has_off) row.tooltip += std::string("\nOff: ") + info.off_meaning + ".";
  return row;
}

}  // namespace

DialogLayout describe_dialog(const edgewise::Registry& registry, const edgewise::BackendList& backends,
                             const edgewise::FilterInfo* locked, const std::vector<std::string>& hidden) {
  DialogLayout layout;
  if (!locked && registry.filters().size() > 1) layout.filters = registry.filters();
  for (const edgewise::ParamGroup* group : registry.groups()) {
    ControlBlock block;
    block.frame = group->dialog_frame;
    block.filters = registry.users(*group);
    if (locked && std::find(block.filters.begin(), block.filters.end(), locked) == block.filters.end()) continue;
    for (const edgewise::ParamInfo& info : group->params)
      if (std::find(hidden.begin(), hidden.end(), info.cli_flag) == hidden.end()) block.rows.push_back(make_row(info));
    layout.blocks.push_back(std::move(block));
  }
  layout.backends.push_back({"auto", "Auto", true, false, "every usable backend, the CPU last"});
  for (const auto& provider : backends) {
    BackendEntry entry;
    entry.choice = provider->id();
    entry.label = provider->label();
    entry.usable = provider->usable(entry.description);
    entry.fallback = provider->is_fallback();
    layout.backends.push_back(std::move(entry));
  }
  return layout;
}

std::string unit_text(const ControlRow& row, const edgewise::Settings& settings) {
  return edgewise::short_unit(settings.spec, *row.param);
}

double row_value(const ControlRow& row, const edgewise::Settings& settings) {
  const char* flag = row.param->cli_flag;
  if (settings.spec.has(flag)) return settings.spec.get(flag);
  const auto kept = settings.others.find(flag);
  if (kept == settings.others.end()) return row.param->default_value;
  if (row.choice) {
    const auto at = std::find(row.choices.begin(), row.choices.end(), kept->second);
    return at == row.choices.end() ? row.param->default_value : double(at - row.choices.begin());
  }
  if (row.noise_auto && kept->second == "auto") return edgewise::kNoiseAuto;
  return std::strtod(kept->second.c_str(), nullptr);
}

void set_row_value(const ControlRow& row, double value, edgewise::Settings& settings) {
  const char* flag = row.param->cli_flag;
  if (settings.spec.has(flag)) {
    edgewise::set_param(settings.spec, flag, value);
    return;
  }
  settings.others[flag] = edgewise::value_text(*row.param, value);
}

RowState row_state(const ControlRow& row, const edgewise::Settings& settings, const edgewise::NoiseEstimate* noise,
                   const edgewise::ImageShape& image) {
  RowState state;
  const double value = row_value(row, settings);
  state.shown = value;
  const edgewise::FilterSpec& spec = settings.spec;
  const bool own = spec.filter().find_param(row.param->cli_flag) == row.param;
  if (!own) return state;  // another filter's row: hidden, as it stands
  // What the filter will run with: auto values resolved for the image.
  edgewise::FilterSpec resolved = spec;
  if (spec.filter().for_image && image.width > 0) resolved = spec.filter().for_image(resolved, image);
  if (noise && edgewise::needs_noise(resolved)) resolved = edgewise::resolve_noise(resolved, *noise);
  const double effective = edgewise::effective_value(resolved, *row.param);
  state.automatic = (row.automatic && value == 0) || (row.noise_auto && value == edgewise::kNoiseAuto);
  if (state.automatic && (row.automatic || noise)) state.shown = effective;
  state.off = row.param->is_off(row.automatic || row.noise_auto ? effective : value);
  state.why = edgewise::inactive_reason(resolved, *row.param, image.channels >= 3 ? 3 : 1);
  state.acts = state.why.empty();
  return state;
}

ControlRow denoise_control_row(const edgewise::FilterInfo& filter, const edgewise::DenoiseControl& control) {
  ControlRow row = make_row(*filter.find_param(control.flag));
  row.label = control.label;
  row.tooltip = std::string(control.help) + ".\nAllowed: " + row.param->range_text() + " (" + row.param->label +
                " of the " + filter.name + " filter).";
  return row;
}

std::string backend_line(const std::vector<BackendEntry>& backends, const std::string& choice) {
  const BackendEntry* runs = nullptr;
  for (const BackendEntry& entry : backends) {
    if (entry.choice == "auto") continue;
    if (choice == entry.choice) {
      if (!entry.usable) return entry.label + " cannot run here: " + entry.description + ". Choose Auto or the CPU.";
      runs = &entry;
      break;
    }
    // Auto: the first usable backend that is not the fallback, else the fallback.
    if (choice == "auto" && entry.usable && (!runs || (runs->fallback && !entry.fallback))) runs = &entry;
  }
  if (!runs) return "";
  // The CPU's description starts with its threads ("2 threads, avx2"); a
  // GPU's is the device.
  if (runs->fallback) return "Runs on " + runs->label + " (" + runs->description.substr(0, runs->description.find(',')) + ")";
  return "Runs on GPU: " + runs->description;
}

}  // namespace edgewise_dialog
