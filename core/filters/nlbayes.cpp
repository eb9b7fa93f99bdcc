// The collaborative denoiser's parameter table, noise table, planner and
// registry row.
#include "nlbayes.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "clipped_noise.h"
#include "nlbayes_math.h"

namespace edgewise {

namespace {

const ParamGroup& nlbayes_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "nlbayes_params.def"
                                      .build();
  return group;
}

// Luma intensities (code values) the noise table is sampled at: dense near
// 0 and 255, where clipping changes the noise within a few code values.
constexpr float kKnots[] = {0,   1,   2,   3,   4,   6,   8,   11,  16,  23,  32,  45,  64,  91, 128,
                            164, 191, 210, 223, 232, 239, 244, 247, 249, 251, 252, 253, 254, 255};
constexpr int kKnotCount = int(sizeof kKnots / sizeof kKnots[0]);
static_assert(kKnotCount <= kNlbNoiseKnots, "the table holds every knot");

// A clipped group's variance never quite reaches 0 (a group of samples all
// at a limit is flat anyway): the share of sigma^2 kept at least.
constexpr double kMinClippedShare = 0.02;

}  // namespace

// The one function that says what the noise is. Per RGB channel, the
// variance at luma intensity L is sigma_c(mu)^2 times the share clipping
// at 0 and 255 leaves of it (core/clipped_noise.h: mu the intensity whose
// clipped mean is L; assumed for every channel at once, the grey-world
// approximation the luma bins make); white noise independent between R, G
// and B is white in each opponent channel, with
// Var(Y) = (vR + vG + vB) / 3, Var(C1) = (vR + vB) / 2, Var(C2) = (vR + 4 vG + vB) / 6,
// and each 2 x 2 mean of a scale divides it by 4. Issue 26's multiscale
// noise model replaces this function: it gives each opponent channel's
// sigma(I) and autocovariance per scale.
NlbNoiseTable nlbayes_noise_table(const NoiseEstimate* estimate, double sigma, int channels, int scales) {
  NlbNoiseTable table{};
  table.knots = kKnotCount;
  table.white = true;
  const ClipLimits both{true, true};
  for (int k = 0; k < kKnotCount; ++k) {
    const double level = kKnots[k];
    double rgb[3] = {0.0, 0.0, 0.0};
    for (int c = 0; c < channels; ++c) {
      double channel_sigma = sigma;
      const bool measured = estimate && size_t(c) < estimate->channels.size() && estimate->channels[size_t(c)].valid;
      if (measured) channel_sigma = std::max(estimate->channels[size_t(c)].sigma_at(level), kNoiseFloor);
      if (!(channel_sigma > 0.0)) {
        rgb[c] = 0.0;
        continue;
      }
      const Unclipped unclipped = unclip(level, channel_sigma, both);
      if (measured) channel_sigma = std::max(estimate->channels[size_t(c)].sigma_at(unclipped.mu), kNoiseFloor);
      rgb[c] = std::max(unclipped.share, kMinClippedShare) * channel_sigma * channel_sigma;
    }
    double opponent[3] = {rgb[0], 0.0, 0.0};
    if (channels == 3) {
      opponent[0] = (rgb[0] + rgb[1] + rgb[2]) / 3.0;
      opponent[1] = (rgb[0] + rgb[2]) / 2.0;
      opponent[2] = (rgb[0] + 4.0 * rgb[1] + rgb[2]) / 6.0;
    }
    for (int scale = 0; scale < kNlbMaxScales; ++scale)
      for (int c = 0; c < 3; ++c) {
        NlbNoiseChannel& noise = table.channel[scale][c];
        noise.intensity[k] = kKnots[k];
        noise.variance[k] = scale < scales && c < channels ? float(opponent[c] / std::pow(4.0, scale)) : 0.0f;
      }
  }
  for (int scale = 0; scale < kNlbMaxScales; ++scale)
    for (int c = 0; c < 3; ++c) {
      NlbNoiseChannel& noise = table.channel[scale][c];
      std::fill(std::begin(noise.autocovariance), std::end(noise.autocovariance), 0.0f);
      noise.autocovariance[(kNlbMaxPatch - 1) * kNlbCovarianceSide + kNlbMaxPatch - 1] = 1.0f;
    }
  return table;
}

namespace {

// The auto rules. The IPOL implementation chooses patch sizes, group sizes
// and betas by noise sigma (its parameter table: 3 to 7 px, groups of
// 3 p^2 in colour); on bench/quality's photos at sigma 5-50 (docs/quality.md,
// true sigma against BM3D's) this filter does best, and fastest, with 4 x 4
// patches in step 1 at every sigma (colour: +0.21 dB mean over IPOL's 3-7
// px choice's +0.13 with p2 3; grey: +0.04 over -0.02), 3 x 3 in colour's
// step 2 and IPOL's 5 x 5 in grey's; IPOL's betas and grey step-2 groups.
// Flat thresholds (gamma), measured the same way: grey 1.1; colour 0.8 on
// luma and 1.0 on chroma (IPOL: 1.05 on all channels together; per
// channel with 0.8 everywhere: -0.13 dB mean). References every other
// pixel (half the patch from 6 px on): every pixel in step 2 gained 0.01
// dB for four times the groups; every 3rd pixel loses 0.05 dB for 2.2
// times the speed, every 4th 0.22 dB for 3.9 (the faster preset).
NlbStep first_step(double sigma, int channels, int patch) {
  NlbStep step;
  step.patch = patch > 0 ? patch : 4;
  step.group = (channels == 1 ? 2 : 3) * step.patch * step.patch;
  step.beta = channels == 1 ? (sigma < 15 ? 1.1f : sigma < 70 ? 1.0f : 0.9f) : 1.0f;
  return step;
}

NlbStep second_step(double sigma, int channels, int patch) {
  NlbStep step;
  if (channels == 1) {
    step.patch = patch > 0 ? patch : 5;
    step.group = sigma < 20 ? 15 : sigma < 40 ? 25 : 30;
    step.beta = sigma < 15 ? 1.1f : sigma < 35 ? 1.0f : 0.9f;
  } else {
    step.patch = patch > 0 ? patch : 3;
    step.group = 3 * step.patch * step.patch;
    step.beta = sigma < 50 ? 1.2f : 1.0f;
  }
  // IPOL's tau: patches closer than 4 code values per sample join the group.
  step.tau = 16.0f;
  return step;
}

}  // namespace

NlbParams nlbayes_params(const NlBayesParameters& n, double sigma, int channels) {
  NlbParams p;
  p.channels = channels;
  p.scales = n.scales;
  p.strength = n.strength;
  p.first = first_step(sigma, channels, n.patch_size);
  p.second = second_step(sigma, channels, n.patch_size);
  if (channels == 1)
    p.flat_gamma_luma = 1.1f;
  else {
    p.flat_gamma_luma = 0.8f;
    p.flat_gamma_chroma = 1.0f;
  }
  for (NlbStep* step : {&p.first, &p.second}) {
    if (n.group_size > 0) step->group = n.group_size;
    step->search_radius = n.search_radius;
    step->step = n.reference_step > 0 ? n.reference_step : std::max(2, step->patch / 2);
  }
  p.first.group_max = p.first.group;
  p.second.group_max = 2 * p.second.group;
  return p;
}

int nlbayes_reach(const NlbParams& params) {
  const int one_scale = nlb_step_reach(params.first) + nlb_step_reach(params.second);
  // The coarsest scale needs one_scale of its rows; a finer one its own
  // denoising's rows and the 2 x 2 means and bilinear taps around them
  // (nlbayes.h), or the coarser result's rows, twice as far.
  int reach = one_scale;
  for (int scale = params.scales - 2; scale >= 0; --scale) reach = std::max(one_scale + 2, 2 * reach + 3);
  return reach;
}

namespace {

std::unique_ptr<Plan> plan_nlbayes(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  if (!request.extra_outputs.empty())
    throw std::invalid_argument("the nlbayes filter makes no " + request.extra_outputs.front() + " output");
  const NlBayesParameters n = nlbayes_parameters(spec);
  auto plan = std::make_unique<NlbPlan>();
  plan->family = "nlbayes";
  const int channels = color_channels(shape);
  plan->params = nlbayes_params(n, n.sigma_n, channels);
  plan->params.has_alpha = has_alpha(shape);
  const NoiseEstimate* estimate = request.noise_auto("sigma-n") ? request.noise : nullptr;
  plan->noise = nlbayes_noise_table(estimate, n.sigma_n, channels, n.scales);
  plan->reach = nlbayes_reach(plan->params);
  plan->pad = 0;  // patches lie inside the image
  return plan;
}

// Upper bound before the noise is known: the largest patches the auto rules choose.
int nlbayes_filter_reach(const FilterSpec& spec) {
  const NlBayesParameters n = nlbayes_parameters(spec);
  const double sigma = n.sigma_n >= 0.0f ? double(n.sigma_n) : 100.0;
  return std::max(nlbayes_reach(nlbayes_params(n, sigma, 1)), nlbayes_reach(nlbayes_params(n, sigma, 3)));
}

// Reference patches lie on a grid from the image's origin (every step
// pixels of the scale they are taken on), their sums are gathered a few
// grid rows at a time (kNlbSumGridRows) and each coarser scale halves the
// one above from its origin: a part filtered alone starts on the grid all
// of them share, so that its pixels are the same sums in the same order.
int nlbayes_region_grid(const FilterSpec& spec) {
  const NlBayesParameters n = nlbayes_parameters(spec);
  int grid = 1;
  for (int channels : {1, 3}) {
    const NlbParams p = nlbayes_params(n, 10.0, channels);
    grid = std::lcm(grid, std::lcm(p.first.step, p.second.step));
  }
  return (grid * kNlbSumGridRows) << (n.scales - 1);
}

double nlbayes_noise_value(const FilterSpec& spec, const ParamInfo&, const NoiseEstimate& noise) {
  return auto_noise_sigma(spec, noise);
}

}  // namespace

#define EW_IO_LIST "nlbayes_params.def"
#define EW_IO_TYPE NlBayesParameters
#define EW_IO_READER nlbayes_parameters
#define EW_IO_WRITER nlbayes_spec
#define EW_IO_FILTER nlbayes_filter()
#include "param_io.h"

const FilterInfo& nlbayes_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "nlbayes";
    row.title = "Edgewise Non-local Bayes";
    row.summary =
        "collaborative patch denoising (Non-Local Bayes): groups of similar patches, each estimated from its group's "
        "mean and covariance";
    row.pdb_procedure = "plug-in-edgewise-nlbayes";
    row.pdb_blurb = "Denoising (Non-Local Bayes: groups of similar patches estimated together)";
    row.menu_label = "Edgewise Non-local Ba_yes...";
    row.groups = {&nlbayes_group()};
    row.reach = nlbayes_filter_reach;
    row.region_grid = nlbayes_region_grid;
    row.noise_value = nlbayes_noise_value;
    row.plan = plan_nlbayes;
    return row;
  }();
  return info;
}

}  // namespace edgewise
