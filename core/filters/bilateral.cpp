// The bilateral family's parameter tables, planner and registry rows.
#include "bilateral.h"

#include <cmath>
#include <stdexcept>

#include "bilateral_math.h"

namespace edgewise {

namespace {

constexpr double kLog2eDouble = 1.4426950408889634074;

const ParamGroup& bilateral_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "bilateral_params.def"
                                      .build();
  return group;
}

const ParamGroup& adaptive_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "adaptive_params.def"
                                      .build();
  return group;
}

int radius_of(const BilateralParameters& p) {
  if (p.radius > 0) return p.radius;
  return static_cast<int>(std::ceil(2.0 * static_cast<double>(p.sigma_s)));
}

BilateralParams make_params(const BilateralParameters& b, const AdaptiveParameters* a, const ImageShape& shape,
                            int radius) {
  BilateralParams p{};
  p.radius = radius;
  p.color_channels = color_channels(shape);
  p.has_alpha = has_alpha(shape);
  p.kernel = b.kernel;
  // Grey images have one channel: every mode collapses to it, measured in
  // code values like per-channel and rgb.
  p.lab = b.mode == ColorMode::lab && p.color_channels == 3;
  // Lab starts from linear light itself (color_lab.h): the working space
  // changes nothing there. Grey is decoded like each of R, G and B (babl's
  // Y' and Y share the sRGB curve).
  p.linear = b.working_space == WorkingSpace::linear && !p.lab;
  p.joint = b.mode != ColorMode::per_channel || p.color_channels == 1;
  p.spatial_log2_coefficient = static_cast<float>(kLog2eDouble / (2.0 * double(b.sigma_s) * double(b.sigma_s)));
  p.adaptive = a != nullptr;
  const AdaptiveParameters defaults;
  const AdaptiveParameters& adaptive = a ? *a : defaults;
  p.adapt_k = adaptive.adapt_k;
  p.adapt_eps = adaptive.adapt_eps;
  p.adapt_min = adaptive.adapt_min;
  p.adapt_max = adaptive.adapt_max;
  p.normalized_unit2 = p.lab ? 1e-4f : 1.0f;  // working units: 0..1 samples, or Delta E
  p.coefficient_factor = static_cast<float>(p.kernel == RangeKernel::gaussian ? 0.5 * kLog2eDouble : 1.0);
  // sigma_r is in 0-255 code values for per-channel/rgb whatever the sample
  // precision (of linear-light values in the linear working space), and in
  // Delta E for lab (Lab planes are in Delta E units); normalized, it is the
  // adaptive filter's unit.
  p.range_coefficient = range_coefficient_for(p, b.sigma_r / (p.lab ? 100.0f : 255.0f));
  p.scale = sqrtf(p.range_coefficient);
  p.inverse_scale = 1.0f / p.scale;
  return p;
}

}  // namespace

std::unique_ptr<Plan> plan_bilateral_family(const BilateralParameters& b, const AdaptiveParameters* adaptive,
                                            const ImageShape& shape, const PlanRequest& request) {
  auto plan = std::make_unique<BilateralPlan>();
  plan->family = "bilateral";
  plan->radius = radius_of(b);
  plan->passes = b.iterations;
  plan->pad = plan->radius;
  plan->reach = b.iterations * plan->radius;
  plan->scratch_bands = b.iterations > 1 ? 1 : 0;  // the next pass's input
  plan->params = make_params(b, adaptive, shape, plan->radius);

  const int r = plan->radius;
  const double inv_two_var = 1.0 / (2.0 * double(b.sigma_s) * double(b.sigma_s));
  const bool folded = b.kernel == RangeKernel::gaussian;
  plan->spatial_term.resize(size_t(plan->taps()));
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const double e = -double(dx * dx + dy * dy) * inv_two_var;
      plan->spatial_term[size_t((dy + r) * plan->window() + (dx + r))] =
          static_cast<float>(folded ? e * kLog2eDouble : std::exp(e));
    }

  for (const std::string& output : request.extra_outputs) {
    // The family's one extra output, the adaptive filter's sigma map.
    if (!adaptive) throw std::invalid_argument("only the adaptive filter makes a " + output + " output");
    plan->sigma_output = true;
    plan->extra_outputs.push_back({output, plan->params.joint ? 1 : plan->params.color_channels});
  }
  return plan;
}

namespace {

std::unique_ptr<Plan> plan_bilateral(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  return plan_bilateral_family(bilateral_parameters(spec), nullptr, shape, request);
}

std::unique_ptr<Plan> plan_adaptive(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  const AdaptiveParameters adaptive = adaptive_parameters(spec);
  return plan_bilateral_family(bilateral_parameters(spec), &adaptive, shape, request);
}

int family_reach(const FilterSpec& spec) {
  const BilateralParameters p = bilateral_parameters(spec);
  return p.iterations * radius_of(p);
}

double family_auto_value(const FilterSpec& spec, const ParamInfo& param) {
  if (std::string(param.cli_flag) == "radius") return effective_radius(spec);
  return spec.get(param.cli_flag);
}

// The auto rules, fitted with bench/quality/auto_quality at the default
// sigma-s 1.5 (docs/quality.md, "Automatic parameters"): sigma-r a multiple
// of the noise, larger where one distance weighs three channels (rgb); the
// adaptive filter's floor and minimum in normalized units (code values /
// 255, Delta E / 100 in lab mode).
constexpr double kSigmaRPerNoiseRgb = 3.0;
constexpr double kSigmaRPerNoise = 2.5;  // per-channel
// Lab mode (its noise as a Delta E): the best multiple grows with the
// noise, 2 at a noise of 10 code values to 2.5-3 at 30 on the evaluation's
// photos, where one multiple left up to 0.79 dB (docs/quality.md).
constexpr double kLabSigmaRPerNoise = 1.75;
constexpr double kLabSigmaRGrowth = 0.025;  // per code value of noise
// The adaptive filter's rule: with k = 1.25 (its default), flat areas,
// whose weighted variance v of colour differences is about 6 sigma^2 in
// rgb mode (2 sigma^2 per channel), take sigma-r' = k sqrt(v) = 3 sigma of
// their own noise, as the plain filter's rule takes it for the whole
// image; sigma-r' stays between 2 and 4 sigma, so texture (large v) is not
// smoothed much more than the plain filter smooths it and quiet areas of
// signal-dependent noise are smoothed less. Measured against the plain
// filter at its defaults (bench/quality/auto_quality, docs/quality.md):
// -0.4 to +0.1 dB, best on signal-dependent and strong camera noise.
constexpr double kAdaptEpsPerNoise = 0.0;
constexpr double kAdaptMinPerNoise = 2.0;
constexpr double kAdaptMaxPerNoise = 4.0;

double family_noise_value(const FilterSpec& spec, const ParamInfo& param, const NoiseEstimate& noise) {
  const double sigma = auto_noise_sigma(spec, noise);
  const bool lab = bilateral_parameters(spec).mode == ColorMode::lab;
  const double normalized = sigma / (lab ? 100.0 : 255.0);
  const std::string flag = param.cli_flag;
  if (flag == "adapt-eps") return kAdaptEpsPerNoise * normalized;
  // Kept in order with an explicit partner (min <= max).
  const AdaptiveParameters* a = nullptr;
  AdaptiveParameters adaptive;
  if (spec.filter().find_param("adapt-max")) adaptive = adaptive_parameters(spec), a = &adaptive;
  if (flag == "adapt-min") {
    const double value = kAdaptMinPerNoise * normalized;
    return a && a->adapt_max != float(kNoiseAuto) ? std::min(value, double(a->adapt_max)) : value;
  }
  if (flag == "adapt-max") {
    const double value = kAdaptMaxPerNoise * normalized;
    return a && a->adapt_min != float(kNoiseAuto) ? std::max(value, double(a->adapt_min)) : value;
  }
  const bool rgb = bilateral_parameters(spec).mode == ColorMode::rgb;
  if (lab) return (kLabSigmaRPerNoise + kLabSigmaRGrowth * auto_noise_sigma(noise)) * sigma;  // sigma-r
  return (rgb ? kSigmaRPerNoiseRgb : kSigmaRPerNoise) * sigma;                                // sigma-r
}

std::string check_adaptive(const FilterSpec& spec) {
  const AdaptiveParameters a = adaptive_parameters(spec);
  if (a.adapt_min != float(kNoiseAuto) && a.adapt_max != float(kNoiseAuto) && a.adapt_min > a.adapt_max)
    return "invalid adapt-min " + value_text(*spec.filter().find_param("adapt-min"), a.adapt_min) +
           ": must not exceed adapt-max " + value_text(*spec.filter().find_param("adapt-max"), a.adapt_max);
  return "";
}

int sigma_channels(const FilterSpec& spec, const ImageShape& shape) {
  const bool per_channel = bilateral_parameters(spec).mode == ColorMode::per_channel;
  return per_channel && color_channels(shape) == 3 ? 3 : 1;
}

}  // namespace

#define EW_IO_LIST "bilateral_params.def"
#define EW_IO_TYPE BilateralParameters
#define EW_IO_READER bilateral_parameters
#define EW_IO_WRITER bilateral_spec
#define EW_IO_FILTER bilateral_filter()
#include "param_io.h"

#define EW_IO_LIST "adaptive_params.def"
#define EW_IO_TYPE AdaptiveParameters
#define EW_IO_READER adaptive_parameters
#include "param_io.h"

#define EW_DEF_WRITE_ONE(flag, value) throw_if_error(set_param(spec, flag, double(value)))

FilterSpec adaptive_spec(const BilateralParameters& bilateral, const AdaptiveParameters& adaptive) {
  FilterSpec spec(adaptive_filter());
#define EW_DEF_SOURCE bilateral
#define EW_DEF_WRITE
#include "bilateral_params.def"
#undef EW_DEF_SOURCE
#define EW_DEF_SOURCE adaptive
#define EW_DEF_WRITE
#include "adaptive_params.def"
#undef EW_DEF_SOURCE
  throw_if_error(validate(spec));
  return spec;
}

#undef EW_DEF_WRITE_ONE

const char* to_string(ColorMode mode) {
  return bilateral_group().params[0].tokens.at(static_cast<size_t>(mode)).c_str();
}

namespace {

const char* token_of(const char* flag, int index) {
  for (const ParamInfo& info : bilateral_group().params)
    if (std::string(info.cli_flag) == flag) return info.tokens.at(static_cast<size_t>(index)).c_str();
  return "";
}

}  // namespace

const char* to_string(WorkingSpace space) { return token_of("working-space", static_cast<int>(space)); }

const char* to_string(RangeKernel kernel) { return token_of("kernel", static_cast<int>(kernel)); }

int effective_radius(const BilateralParameters& parameters) { return radius_of(parameters); }
int effective_radius(const FilterSpec& spec) { return radius_of(bilateral_parameters(spec)); }

const FilterInfo& bilateral_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "bilateral";
    row.title = "Edgewise Bilateral";
    row.summary = "the exact bilateral filter";
    row.pdb_procedure = "plug-in-edgewise-bilateral";
    row.pdb_blurb = "Edge-preserving denoising (bilateral filter)";
    row.menu_label = "Edgewise _Bilateral...";
    row.groups = {&bilateral_group()};
    row.reach = family_reach;
    row.auto_value = family_auto_value;
    row.noise_value = family_noise_value;
    row.typed_defaults = [] { return bilateral_spec(BilateralParameters{}); };
    row.plan = plan_bilateral;
    row.denoise.method = "Edge-aware";
    row.denoise.good_for = "light, fine grain in well-lit photos; keeps edges crisp; the fastest";
    row.denoise.suits = kFineNoise;
    row.denoise.rank = 1;
    row.denoise.controls = {{"sigma-s", "Smoo_thness",
                             "how far the smoothing reaches, in pixels: more smooths coarser grain and softens fine "
                             "texture"}};
    return row;
  }();
  return info;
}

const FilterInfo& adaptive_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "adaptive";
    row.title = "Edgewise Adaptive";
    row.summary = "the variance-adaptive bilateral filter: sigma-r follows the local bilateral-weighted deviation";
    row.pdb_procedure = "plug-in-edgewise-adaptive";
    row.pdb_blurb = "Edge-preserving denoising (variance-adaptive bilateral filter)";
    row.menu_label = "Edgewise _Adaptive...";
    row.groups = {&bilateral_group(), &adaptive_group()};
    row.outputs = {{"sigma",
                    "each pixel's sigma-r' as a grey image (RGB in per-channel mode), scaled so that adapt-max is "
                    "white",
                    sigma_channels}};
    row.reach = family_reach;
    row.auto_value = family_auto_value;
    row.noise_value = family_noise_value;
    row.check = check_adaptive;
    row.typed_defaults = [] { return adaptive_spec(BilateralParameters{}, AdaptiveParameters{}); };
    row.plan = plan_adaptive;
    return row;
  }();
  return info;
}

}  // namespace edgewise
