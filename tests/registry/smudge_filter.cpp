#include "smudge_filter.h"

#include <stdexcept>

namespace edgewise_test {

namespace {

const edgewise::ParamGroup& smudge_group() {
  static const edgewise::ParamGroup group = edgewise::ParamGroupBuilder()
#define EW_DEF_TABLE
#include "smudge_params.def"
                                                .build();
  return group;
}

std::unique_ptr<edgewise::Plan> plan_smudge(const edgewise::FilterSpec& spec, const edgewise::ImageShape& shape,
                                            const edgewise::PlanRequest& request) {
  return edgewise::plan_bilateral_family(smudge_as_bilateral(spec), nullptr, shape, request);
}

int smudge_reach(const edgewise::FilterSpec& spec) {
  const edgewise::BilateralParameters p = smudge_as_bilateral(spec);
  return p.iterations * edgewise::effective_radius(p);
}

double smudge_auto(const edgewise::FilterSpec& spec, const edgewise::ParamInfo& param) {
  if (std::string(param.cli_flag) == "reach") return 4;
  return edgewise::bilateral_filter().auto_value(spec, param);
}

int mask_channels(const edgewise::FilterSpec&, const edgewise::ImageShape&) { return 1; }

}  // namespace

SmudgeParameters smudge_parameters(const edgewise::FilterSpec& spec) {
  SmudgeParameters p;
#define EW_DEF_TARGET p
#define EW_DEF_SOURCE spec
#define EW_DEF_READ
#include "smudge_params.def"
#undef EW_DEF_TARGET
#undef EW_DEF_SOURCE
  return p;
}

edgewise::BilateralParameters smudge_as_bilateral(const edgewise::FilterSpec& spec) {
  edgewise::BilateralParameters p = edgewise::bilateral_parameters(spec);
  if (p.sigma_r != float(edgewise::kNoiseAuto)) p.sigma_r *= 0.5f + smudge_parameters(spec).strength;
  return p;
}

const edgewise::FilterInfo& smudge_filter() {
  static const edgewise::FilterInfo info = [] {
    edgewise::FilterInfo row;
    row.name = "smudge";
    row.title = "Edgewise Smudge";
    row.summary = "a made-up filter";
    row.pdb_procedure = "plug-in-edgewise-smudge";
    row.pdb_blurb = "A made-up filter";
    row.menu_label = "Edgewise _Smudge...";
    row.groups = {&smudge_group(), edgewise::bilateral_filter().groups.at(0)};
    row.outputs = {{"mask", "where the smudge took effect", mask_channels}};
    row.reach = smudge_reach;
    row.auto_value = smudge_auto;
    row.noise_value = edgewise::bilateral_filter().noise_value;
    row.plan = plan_smudge;
    return row;
  }();
  return info;
}

const edgewise::Registry& smudge_registry() {
  static const edgewise::Registry registry({&smudge_filter(), &edgewise::bilateral_filter()});
  return registry;
}

}  // namespace edgewise_test
