// The collaborative denoiser's parameter table, noise table, planner and
// registry row.
#include "nlbayes.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "clipped_noise.h"
#include "nlbayes_math.h"
#include "nlbayes_schedule.h"

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

// Below this normalised autocovariance at every offset the noise is
// treated as white: the diagonal path, which is faster.
constexpr double kWhiteCorrelation = 1e-3;

}  // namespace

// The one function that says what the noise is, from the noise model
// (core/noise_estimate.h) where sigma-n is auto:
//   - Variance per intensity: each opponent channel's own measured noise
//     level function (the whole noise, every frequency), at the group's luma
//     L. Near 0 and 255 clipping shrinks the noise (core/clipped_noise.h:
//     mu the intensity whose clipped mean is L, assumed for every channel at
//     once, the grey-world approximation the luma bins make); the measured
//     opponent levels come from unclipped blocks only, so they are scaled by
//     the share clipping leaves of the R, G and B noise mixed as the channel
//     mixes them: Var(Y) = (vR + vG + vB) / 3, Var(C1) = (vR + vB) / 2,
//     Var(C2) = (vR + 4 vG + vB) / 6 for noise independent between R, G
//     and B, which is also the variance where a channel has no measure of
//     its own (grey images read their one channel directly).
//   - Spatial correlation: each channel's fitted spectrum (a mixture of
//     white noise and Gaussian-blurred parts, core/noise_spectrum.h) gives
//     the covariance of its 2^s x 2^s means, which is what scale s of this
//     filter denoises (its 2 x 2 means of the scale above): the variance at
//     scale s and the normalised autocovariance within a patch, so that
//     demosaiced and JPEG'd noise keeps more of its variance on coarse
//     scales than white noise's 4^-s, as the Noise Clinic measures per scale.
// A number for sigma (or no estimate) is white noise of that sigma in every
// channel.
namespace {

const ChannelNoise* measured_channel(const std::vector<ChannelNoise>& set, int c) {
  return size_t(c) < set.size() && set[size_t(c)].valid ? &set[size_t(c)] : nullptr;
}

// The share of the variance clipping leaves at luma `level`, and the
// variance without clipping, of the R, G and B noise mixed with weights w.
struct RgbVariance {
  double clipped = 0, unclipped = 0;
};

RgbVariance rgb_variance(const NoiseEstimate* estimate, double sigma, int channels, double level, const double* w) {
  RgbVariance result;
  const ClipLimits both{true, true};
  for (int c = 0; c < channels; ++c) {
    const ChannelNoise* measured = estimate ? measured_channel(estimate->channels, c) : nullptr;
    double channel_sigma = measured ? std::max(measured->sigma_at(level), kNoiseFloor) : sigma;
    if (!(channel_sigma > 0.0)) continue;
    const Unclipped unclipped = unclip(level, channel_sigma, both);
    if (measured) channel_sigma = std::max(measured->sigma_at(unclipped.mu), kNoiseFloor);
    const double variance = channel_sigma * channel_sigma;
    result.clipped += w[c] * std::max(unclipped.share, kMinClippedShare) * variance;
    result.unclipped += w[c] * variance;
  }
  return result;
}

// Channel c's covariance of 2^scale x 2^scale means at offset (dx, dy),
// per unit of its finest-scale variance.
double scale_covariance(const NoiseSpectrum& spectrum, int scale, int dx, int dy) {
  double sum = 0.0;
  for (int j = 0; j < kSpectrumParts; ++j)
    if (spectrum.shares[size_t(j)] > 0.0) sum += spectrum.shares[size_t(j)] * part_covariance(j, scale, dx, dy);
  return sum;
}

}  // namespace

NlbNoiseTable nlbayes_noise_table(const NoiseEstimate* estimate, double sigma, int channels, int scales) {
  NlbNoiseTable table{};
  table.knots = kKnotCount;
  table.white = true;
  // Opponent mixing weights of R, G and B variances (grey: its channel).
  const double weights[3][3] = {{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.5, 0.0, 0.5}, {1.0 / 6, 4.0 / 6, 1.0 / 6}};
  const double grey_weight[3] = {1.0, 0.0, 0.0};
  for (int c = 0; c < 3; ++c) {
    const double* w = channels == 3 ? weights[c] : grey_weight;
    // The channel's own measure: an opponent channel, or the grey channel.
    const ChannelNoise* own = nullptr;
    if (estimate && c < channels) own = channels == 3 ? measured_channel(estimate->opponent, c) : measured_channel(estimate->channels, 0);
    const NoiseSpectrum spectrum = own ? own->spectrum : NoiseSpectrum{};
    float fine[kNlbNoiseKnots] = {};
    if (c < channels)
      for (int k = 0; k < kKnotCount; ++k) {
        const double level = kKnots[k];
        const RgbVariance rgb = rgb_variance(estimate, sigma, channels, level, w);
        double variance = rgb.clipped;
        if (own && channels == 3 && rgb.unclipped > 0.0) {
          const double measured = std::max(own->sigma_at(level), kNoiseFloor);
          variance = measured * measured * rgb.clipped / rgb.unclipped;
        }
        fine[k] = float(variance);
      }
    for (int scale = 0; scale < kNlbMaxScales; ++scale) {
      NlbNoiseChannel& noise = table.channel[scale][c];
      const bool used = scale < scales && c < channels;
      const double at_zero = scale_covariance(spectrum, scale, 0, 0);
      for (int k = 0; k < kKnotCount; ++k) {
        noise.intensity[k] = kKnots[k];
        noise.variance[k] = used ? float(fine[k] * at_zero) : 0.0f;
      }
      for (int dy = 1 - kNlbMaxPatch; dy < kNlbMaxPatch; ++dy)
        for (int dx = 1 - kNlbMaxPatch; dx < kNlbMaxPatch; ++dx) {
          const bool centre = dx == 0 && dy == 0;
          const float r = used ? float(scale_covariance(spectrum, scale, dx, dy) / at_zero) : centre ? 1.0f : 0.0f;
          noise.autocovariance[nlb_autocovariance_index(dx, dy)] = centre ? 1.0f : r;
          if (!centre && std::fabs(r) > kWhiteCorrelation) table.white = false;
        }
    }
  }
  return table;
}

double nlbayes_coarse_gain(const NoiseEstimate& estimate, int channels, int scale) {
  const std::vector<ChannelNoise>& planes = channels == 3 ? estimate.opponent : estimate.channels;
  double variance = 0.0, coarse = 0.0;
  for (int c = 0; c < (channels == 3 ? 3 : 1); ++c) {
    const ChannelNoise* channel = measured_channel(planes, c);
    if (!channel) continue;
    const double v = channel->sigma * channel->sigma;
    variance += v;
    coarse += v * scale_covariance(channel->spectrum, scale, 0, 0);
  }
  return variance > 0.0 ? coarse / variance * std::pow(4.0, scale) : 1.0;
}

// The Noise Clinic denoises every scale because its noise (JPEG'd, of
// unknown processing) is correlated at every one; here a coarser scale
// pays only where the noise keeps more on it than white noise does: the
// finest scale's patch covariance already models the correlation within
// a patch, and on white noise a second scale moves PSNR by -0.12 to +0.15
// dB (+0.02 on average; bench/quality/nlbayes_scales) for 1.27 times the
// time. White noise measures 1 at every scale (the model takes a
// finest scale that looks white as white, noise_estimate.h), so it always
// gets one scale: the speed goals, measured on white noise, stay as they
// were. The thresholds: nlbayes.h.
int nlbayes_auto_scales(const NoiseEstimate* estimate, int channels) {
  if (!estimate) return 1;
  int scales = 1;
  double gain = 1.0;  // the current coarsest scale's
  while (scales < kNlbAutoMaxScales) {
    const double next = nlbayes_coarse_gain(*estimate, channels, scales);
    if (!(next > kNlbAutoScaleGain * gain)) break;
    gain = next;
    ++scales;
  }
  return scales;
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
// The patch sides, which decide the rows a step reads, follow the channels
// only, never sigma (nlbayes_geometry).
int first_patch(int patch) { return patch > 0 ? patch : 4; }
int second_patch(int channels, int patch) { return patch > 0 ? patch : channels == 1 ? 5 : 3; }

void first_step(double sigma, int channels, NlbStep& step) {
  step.group = (channels == 1 ? 2 : 3) * step.patch * step.patch;
  step.beta = channels == 1 ? (sigma < 15 ? 1.1f : sigma < 70 ? 1.0f : 0.9f) : 1.0f;
}

void second_step(double sigma, int channels, NlbStep& step) {
  if (channels == 1) {
    step.group = sigma < 20 ? 15 : sigma < 40 ? 25 : 30;
    step.beta = sigma < 15 ? 1.1f : sigma < 35 ? 1.0f : 0.9f;
  } else {
    step.group = 3 * step.patch * step.patch;
    step.beta = sigma < 50 ? 1.2f : 1.0f;
  }
  // IPOL's tau: patches closer than 4 code values per sample join the group.
  step.tau = 16.0f;
}

}  // namespace

NlbParams nlbayes_geometry(const NlBayesParameters& n, int channels, int scales) {
  if (scales < 1 || scales > kNlbMaxScales)
    throw std::invalid_argument("nlbayes_params needs 1 to " + std::to_string(kNlbMaxScales) + " scales, not " +
                                std::to_string(scales));
  NlbParams p;
  p.channels = channels;
  p.scales = scales;
  p.first.patch = first_patch(n.patch_size);
  p.second.patch = second_patch(channels, n.patch_size);
  for (NlbStep* step : {&p.first, &p.second}) {
    step->search_radius = n.search_radius;
    step->step = n.reference_step > 0 ? n.reference_step : std::max(2, step->patch / 2);
  }
  return p;
}

NlbParams nlbayes_params(const NlBayesParameters& n, double sigma, int channels, int scales) {
  NlbParams p = nlbayes_geometry(n, channels, scales);
  p.strength = n.strength;
  first_step(sigma, channels, p.first);
  second_step(sigma, channels, p.second);
  if (channels == 1)
    p.flat_gamma_luma = 1.1f;
  else {
    p.flat_gamma_luma = 0.8f;
    p.flat_gamma_chroma = 1.0f;
  }
  if (n.group_size > 0) p.first.group = p.second.group = n.group_size;
  p.first.group_max = p.first.group;
  p.second.group_max = 2 * p.second.group;
  return p;
}

namespace {

std::unique_ptr<Plan> plan_nlbayes(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  if (!request.extra_outputs.empty())
    throw std::invalid_argument("the nlbayes filter makes no " + request.extra_outputs.front() + " output");
  const NlBayesParameters n = nlbayes_parameters(spec);
  auto plan = std::make_unique<NlbPlan>();
  plan->family = "nlbayes";
  const int channels = color_channels(shape);
  const NoiseEstimate* estimate = request.noise_auto("sigma-n") ? request.noise : nullptr;
  // The backends read the scales from here, never from the spec.
  const int scales = n.scales > 0 ? n.scales : nlbayes_auto_scales(estimate, channels);
  plan->params = nlbayes_params(n, n.sigma_n, channels, scales);
  plan->params.has_alpha = has_alpha(shape);
  plan->noise = nlbayes_noise_table(estimate, n.sigma_n, channels, scales);
  if (n.scales == 0 && estimate) plan->auto_choices = "scales " + std::to_string(scales);
  plan->reach = nlbayes_reach(plan->params);
  plan->pad = 0;  // patches lie inside the image
  return plan;
}

// The most scales a spec can run before the noise is known: --scales auto
// follows the noise only where sigma-n is auto too (a number is white noise:
// one scale). reach and region_grid take the spec before resolve_noise, as
// every front end hands it (core/region.h): after it sigma-n is a number,
// and this would say one scale where the plan, told sigma-n was auto, may
// choose two.
int nlbayes_scales_bound(const NlBayesParameters& n) {
  if (n.scales > 0) return n.scales;
  return n.sigma_n == float(kNoiseAuto) ? kNlbAutoMaxScales : 1;
}

// Before the noise is known (the spec as every front end hands it,
// core/region.h) the plan's rows are known but for two things: the image's
// channels, which the spec does not hold (grey's step 2 takes 5 x 5 patches
// where colour's takes 3 x 3), and the scales auto may choose
// (nlbayes_scales_bound). Sigma never changes them (nlbayes_geometry), so
// the bound is the reach of the plan that reads the most rows of those.
int nlbayes_filter_reach(const FilterSpec& spec) {
  const NlBayesParameters n = nlbayes_parameters(spec);
  const int scales = nlbayes_scales_bound(n);
  return std::max(nlbayes_reach(nlbayes_geometry(n, 1, scales)), nlbayes_reach(nlbayes_geometry(n, 3, scales)));
}

// A part filtered alone starts on a row and column where the schedule's
// grids (every scale's references, the CPU's slabs, the 2 x 2 blocks) all
// start (nlbayes_row_period), so that its pixels are the same sums in the
// same order; fewer scales than the bound (auto on white noise) repeat on a
// divisor of it.
int nlbayes_region_grid(const FilterSpec& spec) {
  const NlBayesParameters n = nlbayes_parameters(spec);
  const int scales = nlbayes_scales_bound(n);
  return std::lcm(nlbayes_row_period(nlbayes_geometry(n, 1, scales)),
                  nlbayes_row_period(nlbayes_geometry(n, 3, scales)));
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
    row.auto_follows = "sigma-n: the noise estimate per colour channel and intensity";
    row.typed_defaults = [] { return nlbayes_spec(NlBayesParameters{}); };
    row.plan = plan_nlbayes;
    // The best quality of the methods (docs/quality.md: at BM3D's level),
    // and the slowest: 9-11 s per 4 MP on 2 cores (bench/RESULTS.md), so it
    // is never recommended (rank 0 below every other method that suits the
    // noise): a photographer who takes the recommendation gets a preview
    // that follows the sliders and an OK that takes a second or two on the
    // CPU; this one is chosen by name. Its automatic noise reads each
    // opponent channel's own level, so Luminance and Colour act apart.
    row.denoise.method = "Best quality (slow)";
    row.denoise.good_for =
        "any noise, camera raw exports and JPEGs alike; keeps the most detail; seconds per megapixel, the preview "
        "takes a moment";
    row.denoise.separates = true;
    row.denoise.suits = kFineNoise | kCorrelatedNoise | kColourNoise;
    row.denoise.rank = 0;
    // With a GPU (24 MP in 0.6 s on an H200) it is recommended for fine,
    // even grain, where it is ahead of the learned filter (docs/quality.md:
    // white noise); 244 processor-seconds for 24 MP on the CPU.
    row.denoise.gpu_rank = 10;
    row.denoise.cpu_seconds_per_megapixel = 10.2;
    return row;
  }();
  return info;
}

}  // namespace edgewise
