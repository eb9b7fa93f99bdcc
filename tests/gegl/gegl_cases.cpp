// Prints the cases run_gegl_tool.sh runs through the gegl command and the
// CLI, generated from the registry so that a new filter is tested with no
// change here: per filter, its defaults (automatic values included) and a
// spec with every parameter moved off its default (the next choice that
// validates; numbers about 1.3 times their default, or a quarter of the
// slider's range from it; integers by at least 1), one line each:
//   FILTER <tab> CASE <tab> GEGL PROPERTIES <tab> CLI OPTIONS
// e.g. "bilateral	set	mode=per-channel sigma-s=1.95 ...	--mode per-channel --sigma-s 1.95 ...".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "filter_registry.h"

namespace {

using edgewise::FilterSpec;
using edgewise::ParamInfo;

// A value of `param` other than its default that keeps `spec` valid, or
// the default when none is found.
double moved(const FilterSpec& spec, const ParamInfo& param) {
  const double now = spec.get(param.cli_flag);
  std::vector<double> candidates;
  if (param.is_enum()) {
    for (size_t i = 0; i < param.tokens.size(); ++i) candidates.push_back(double(i));
  } else {
    const double base = now == edgewise::kNoiseAuto ? param.manual_default : now;
    double step = base != 0 ? 0.3 * std::fabs(base) : (param.slider_max - param.slider_min) / 4;
    if (param.is_integer()) step = std::max(1.0, std::round(step));
    for (const double value : {base + step, base - step}) {
      double clamped = std::clamp(value, std::max(param.hard_min, param.slider_min), param.slider_max);
      if (param.is_integer()) clamped = std::round(clamped);
      candidates.push_back(clamped);
    }
  }
  for (const double candidate : candidates) {
    if (candidate == now) continue;
    FilterSpec trial = spec;
    if (edgewise::set_param(trial, param.cli_flag, candidate).empty() && edgewise::validate(trial).empty())
      return candidate;
  }
  return now;
}

void print_case(const FilterSpec& spec, const char* name) {
  std::string gegl, cli;
  for (const ParamInfo* param : spec.filter().params()) {
    const double value = spec.get(param->cli_flag);
    if (value == FilterSpec(spec.filter()).get(param->cli_flag)) continue;
    const std::string text = edgewise::value_text(*param, value);
    gegl += std::string(gegl.empty() ? "" : " ") + param->cli_flag + "=" + text;
    cli += std::string(cli.empty() ? "" : " ") + "--" + param->cli_flag + " " + text;
  }
  std::printf("%s\t%s\t%s\t%s\n", spec.filter().name, name, gegl.c_str(), cli.c_str());
}

}  // namespace

int main() {
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    FilterSpec spec(*filter);
    print_case(spec, "defaults");
    for (const ParamInfo* param : filter->params()) edgewise::set_param(spec, param->cli_flag, moved(spec, *param));
    print_case(spec, "set");
  }
  return 0;
}
