// The non-local-means bilateral filter's parameter table, planner and
// registry row.
#include "nlm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace edgewise {

namespace {

constexpr double kLog2e = 1.4426950408889634074;

const ParamGroup& nlm_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "nlm_params.def"
                                      .build();
  return group;
}

// The largest sigma-r turns the range term off (R = 1), as the issue's
// formula asks; any smaller value is the bilateral's range kernel.
bool range_term_on(const NlmParameters& n) {
  for (const ParamInfo& info : nlm_group().params)
    if (std::string(info.cli_flag) == "sigma-r") return double(n.sigma_r) < info.hard_max;
  return true;
}

// The noise profile from the estimate h and sigma-n were resolved from: a
// channel without a measured noise level function keeps ratio 1 (the
// image's sigma), and an estimate without one leaves the profile off.
void set_noise_profile(NlmParams& p, const NoiseEstimate& noise) {
  if (!noise.valid() || noise.channels.size() != size_t(p.color_channels)) return;
  const double sigma = auto_noise_sigma(noise);
  const double knot_step = 255.0 / (kNlmNoiseKnots - 1);
  p.noise_profile = true;
  p.noise_knot_scale = static_cast<float>(1.0 / knot_step);
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < kNlmNoiseKnots; ++k) {
      double ratio = 1.0;
      if (c < p.color_channels && noise.channels[size_t(c)].valid) {
        const double local = std::max(noise.channels[size_t(c)].sigma_at(k * knot_step), kNoiseFloor);
        ratio = (local * local) / (sigma * sigma);
      }
      p.noise_ratio[c][k] = static_cast<float>(ratio);
    }
}

NlmParams make_params(const NlmParameters& n, const ImageShape& shape, const PlanRequest& request) {
  NlmParams p{};
  p.search_radius = n.search_radius;
  p.patch_radius = n.patch_radius;
  p.color_channels = color_channels(shape);
  p.has_alpha = has_alpha(shape);
  p.lab = n.mode == ColorMode::lab && p.color_channels == 3;
  p.joint = n.mode != ColorMode::per_channel || p.color_channels == 1;
  p.kernel = n.kernel;
  p.patch_term = n.h > 0.0f;
  p.range_term = range_term_on(n);
  p.unit = p.lab ? 1.0f : 255.0f;
  p.inverse_unit = 1.0f / p.unit;
  const int side = 2 * n.patch_radius + 1;
  p.patch_norm = static_cast<float>(1.0 / (double(side * side) * (p.joint ? p.color_channels : 1)));
  p.patch_mean_norm = static_cast<float>(1.0 / double(side * side));
  p.noise_floor = static_cast<float>(2.0 * double(n.sigma_n) * double(n.sigma_n));
  p.patch_log2_coefficient = p.patch_term ? static_cast<float>(kLog2e / (double(n.h) * double(n.h))) : 0.0f;
  p.spatial_log2_coefficient = static_cast<float>(kLog2e / (2.0 * double(n.sigma_s) * double(n.sigma_s)));
  const double sigma_r2 = double(n.sigma_r) * double(n.sigma_r);
  p.range_coefficient =
      static_cast<float>(n.kernel == RangeKernel::gaussian ? kLog2e / (2.0 * sigma_r2) : 1.0 / sigma_r2);
  // Both scaled alike, so one number per pixel (the distance's scale)
  // carries the profile; with either explicit, h keeps its meaning.
  if (p.patch_term && !p.lab && request.noise_auto("h") && request.noise_auto("sigma-n"))
    set_noise_profile(p, *request.noise);
  return p;
}

std::unique_ptr<Plan> plan_nlm(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  if (!request.extra_outputs.empty())
    throw std::invalid_argument("the nlm filter makes no " + request.extra_outputs.front() + " output");
  const NlmParameters n = nlm_parameters(spec);
  auto plan = std::make_unique<NlmPlan>();
  plan->family = "nlm";
  plan->params = make_params(n, shape, request);
  plan->reach = n.search_radius + n.patch_radius;
  plan->pad = plan->reach;
  return plan;
}

int nlm_reach(const FilterSpec& spec) {
  const NlmParameters n = nlm_parameters(spec);
  return n.search_radius + n.patch_radius;
}

// The auto rules, fitted with bench/quality/auto_quality (docs/quality.md):
// h 0.75 sigma, applied per pixel through the noise profile (largest
// shortfall to the grid-best 0.26 dB; 0.85, the best single value for the
// image before the profile, leaves 0.47 per pixel).
constexpr double kHPerNoise = 0.75;

double nlm_noise_value(const FilterSpec& spec, const ParamInfo& param, const NoiseEstimate& noise) {
  const double sigma = auto_noise_sigma(spec, noise);
  const std::string flag = param.cli_flag;
  if (flag == "h") return kHPerNoise * sigma;
  if (flag == "sigma-n") return sigma;
  return param.hard_max;  // sigma-r: the range term off, as in classic NLM
}

std::string check_nlm(const FilterSpec& spec) {
  const NlmParameters n = nlm_parameters(spec);
  if (n.h > 0.0f && n.h < 0.1f)
    return "invalid h " + value_text(*spec.filter().find_param("h"), n.h) +
           ": allowed are 0 (patch term off) and 0.1 to 1000";
  return "";
}

}  // namespace

#define EW_IO_LIST "nlm_params.def"
#define EW_IO_TYPE NlmParameters
#define EW_IO_READER nlm_parameters
#define EW_IO_WRITER nlm_spec
#define EW_IO_FILTER nlm_filter()
#include "param_io.h"

const FilterInfo& nlm_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "nlm";
    row.title = "Edgewise Non-local Means";
    row.summary = "non-local means with the bilateral's spatial and range terms: patches, not pixels, are compared";
    row.pdb_procedure = "plug-in-edgewise-nlm";
    row.pdb_blurb = "Edge-preserving denoising (non-local means bilateral filter)";
    row.menu_label = "Edgewise _Non-local Means...";
    row.groups = {&nlm_group()};
    row.reach = nlm_reach;
    row.check = check_nlm;
    row.noise_value = nlm_noise_value;
    row.auto_follows = "h and sigma-n, both at auto: the noise level function per pixel (not in lab mode)";
    row.typed_defaults = [] { return nlm_spec(NlmParameters{}); };
    row.plan = plan_nlm;
    row.denoise.method = "Non-local means";
    row.denoise.good_for = "fine, even grain (high ISO, film scans); keeps texture; slower than the fast ones";
    row.denoise.suits = kFineNoise;
    row.denoise.rank = 3;
    row.denoise.controls = {{"search-radius", "Smoo_thness",
                             "how far, in pixels, it looks for similar patches to average: further removes more "
                             "noise and takes longer"}};
    return row;
  }();
  return info;
}

}  // namespace edgewise
