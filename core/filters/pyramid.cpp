// The multiresolution bilateral filter's parameter table, noise gains,
// band rows, planner and registry row.
#include "pyramid.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace edgewise {

namespace {

const ParamGroup& pyramid_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "pyramid_params.def"
                                      .build();
  return group;
}

int radius_of(const PyramidParameters& p) {
  if (p.radius > 0) return p.radius;
  return static_cast<int>(std::ceil(2.0 * static_cast<double>(p.sigma_s)));
}

// The 1-D impulse response of G_k on the image's samples, indexed by the
// offset from the sample's position 2^k i, centre at index `centre`.
using Response = std::vector<double>;

const double kBinomial[5] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};

Response next_gaussian(const Response& h, int k) {
  Response next(h.size(), 0.0);
  const int step = 1 << k;
  for (int u = 0; u < int(h.size()); ++u)
    for (int t = -2; t <= 2; ++t) {
      const int from = u - step * t;
      if (from >= 0 && from < int(h.size())) next[size_t(u)] += kBinomial[t + 2] * h[size_t(from)];
    }
  return next;
}

// EXPAND(G_{k+1}) at level-k phase p (0 even, 1 odd), relative to 2^k p:
// sum_j 2 w(p - 2j) G_{k+1}[j], G_{k+1}[j] at 2^(k+1) j.
Response expanded(const Response& coarse, int k, int phase) {
  Response out(coarse.size(), 0.0);
  const int step = 1 << k;
  for (int j = -1; j <= 1; ++j) {
    const int tap = phase - 2 * j;
    if (tap < -2 || tap > 2) continue;
    const double weight = 2.0 * kBinomial[tap + 2];
    const int shift = step * phase - 2 * step * j;  // offset u reads coarse at u + shift
    for (int u = 0; u < int(out.size()); ++u) {
      const int from = u + shift;
      if (from >= 0 && from < int(coarse.size())) out[size_t(u)] += weight * coarse[size_t(from)];
    }
  }
  return out;
}

}  // namespace

#define EW_IO_LIST "pyramid_params.def"
#define EW_IO_TYPE PyramidParameters
#define EW_IO_READER pyramid_parameters
#define EW_IO_WRITER pyramid_spec
#define EW_IO_FILTER pyramid_filter()
#include "param_io.h"

int pyramid_levels(int levels, int width, int height) {
  if (levels > 0) return levels;
  int side = std::min(width, height), chosen = 1;
  while (chosen < kPyramidAutoMaxLevels && pyramid_next_size(side) >= kPyramidAutoCoarsest) {
    side = pyramid_next_size(side);
    ++chosen;
  }
  return chosen;
}

// The binomial REDUCE and EXPAND are separable, so level k's response to
// the image is, per phase (p, q) of its row and column,
//   a(u) a(v) - b_p(u) b_q(v),
// with a the 1-D response of G_k and b_p that of EXPAND(G_{k+1}) at phase
// p; its squared norm, the variance white noise of variance 1 has there, is
//   |a|^4 - 2 (a.b_p)(a.b_q) + |b_p|^2 |b_q|^2,
// averaged over the four phases. The residual G_{levels-1} has |a|^4.
std::vector<double> pyramid_noise_gains(int levels) { return pyramid_noise_gains(levels, NoiseSpectrum{}); }

std::vector<double> pyramid_gaussian_gains(int levels) { return pyramid_gaussian_gains(levels, NoiseSpectrum{}); }

// Per spectrum part (separable: each 2-D quantity a product of two 1-D
// ones, `dot` the part's bilinear form), the variance of each level's
// response, mixed by the parts' shares.
std::vector<double> pyramid_noise_gains(int levels, const NoiseSpectrum& spectrum) {
  const int centre = 4 << std::max(levels, 1);
  std::vector<double> variances(size_t(std::max(levels, 0)), 0.0);
  for (int part = 0; part < kSpectrumParts; ++part) {
    const double share = spectrum.shares[size_t(part)];
    if (share <= 0) continue;
    auto dot = [part](const Response& u, const Response& v) { return part_bilinear(part, u, v); };
    Response g(size_t(2 * centre + 1), 0.0);
    g[size_t(centre)] = 1.0;
    for (int k = 0; k < levels; ++k) {
      const double aa = dot(g, g);
      if (k == levels - 1) {
        variances[size_t(k)] += share * aa * aa;
        break;
      }
      const Response coarse = next_gaussian(g, k);
      const Response b[2] = {expanded(coarse, k, 0), expanded(coarse, k, 1)};
      double variance = 0.0;
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q)
          variance += aa * aa - 2.0 * dot(g, b[p]) * dot(g, b[q]) + dot(b[p], b[p]) * dot(b[q], b[q]);
      variances[size_t(k)] += share * variance / 4.0;
      g = coarse;
    }
  }
  for (double& v : variances) v = std::sqrt(v);
  return variances;
}

std::vector<double> pyramid_gaussian_gains(int levels, const NoiseSpectrum& spectrum) {
  std::vector<double> gains;
  for (int k = 1; k <= levels; ++k) gains.push_back(pyramid_noise_gains(k, spectrum).back());
  return gains;
}

std::vector<double> pyramid_level_sigma_r(double sigma_r, int levels, double strength, PyramidGuide guide,
                                          double coarse_strength) {
  std::vector<double> sigmas =
      guide == PyramidGuide::gaussian ? pyramid_gaussian_gains(levels) : pyramid_noise_gains(levels);
  for (size_t k = 0; k < sigmas.size(); ++k)
    sigmas[k] = sigma_r * sigmas[k] * (strength * (k > 0 ? coarse_strength : 1.0));
  return sigmas;
}

// From bench/quality (docs/quality.md, "Multiresolution bilateral"): the
// grid's best sigma-r is 3 x the noise sigma on white noise and 2 x on
// correlated noise; 2.5 x between. auto_quality (docs/quality.md,
// "Automatic parameters"): at the default sigma-s 1.5 within 0.43 dB of the
// grid-best on white and Poisson-Gaussian noise. In code values; Delta E in
// lab mode, where core converts the sigma.
double pyramid_sigma_r_for_noise(double noise_sigma) { return 2.5 * noise_sigma; }

PyramidBandRows pyramid_band_rows(PyramidRange output_rows, int levels, int radius, const std::vector<int>& heights) {
  PyramidBandRows rows;
  const size_t n = size_t(levels);
  rows.gaussian.assign(n, {0, -1});
  rows.laplacian.assign(n, {0, -1});
  rows.result.assign(n, {0, -1});
  rows.result[0] = output_rows;
  for (int k = 0; k < levels; ++k) {
    rows.laplacian[size_t(k)] = pyramid_grow(rows.result[size_t(k)], radius);
    if (k + 1 < levels) rows.result[size_t(k) + 1] = pyramid_expand_source(rows.result[size_t(k)]);
  }
  for (int k = levels - 1; k >= 0; --k) {
    PyramidRange need = rows.laplacian[size_t(k)];
    if (k >= 1) need = pyramid_hull(need, pyramid_expand_source(rows.laplacian[size_t(k) - 1]));
    if (k + 1 < levels) need = pyramid_hull(need, pyramid_reduce_source(rows.gaussian[size_t(k) + 1]));
    rows.gaussian[size_t(k)] = need;
  }
  for (int k = 0; k < levels; ++k) {
    const int h = heights[size_t(k)];
    rows.gaussian[size_t(k)] = pyramid_clip(rows.gaussian[size_t(k)], h);
    rows.laplacian[size_t(k)] = pyramid_clip(rows.laplacian[size_t(k)], h);
    rows.result[size_t(k)] = pyramid_clip(rows.result[size_t(k)], h);
  }
  return rows;
}

int pyramid_reach(int levels, int radius) {
  const int base = 1 << 24;
  std::vector<int> heights;
  for (int k = 0, h = 1 << 26; k < levels; ++k, h = pyramid_next_size(h)) heights.push_back(h);
  int reach = 0;
  for (int y = base; y < base + (2 << levels); ++y) {
    const PyramidRange g = pyramid_band_rows({y, y}, levels, radius, heights).gaussian[0];
    reach = std::max({reach, y - g.first, g.last - y});
  }
  return reach;
}

namespace {

int pyramid_reach_of(const FilterSpec& spec) {
  const PyramidParameters p = pyramid_parameters(spec);
  return pyramid_reach(p.levels > 0 ? p.levels : kPyramidAutoMaxLevels, radius_of(p));
}

// Level k's pixels are 2^k pixels of what is filtered, from its origin.
int pyramid_region_grid(const FilterSpec& spec) {
  const int levels = pyramid_parameters(spec).levels;
  return 1 << ((levels > 0 ? levels : kPyramidAutoMaxLevels) - 1);
}

// The automatic level count follows the image's size: a region takes the
// whole image's.
FilterSpec pyramid_for_image(const FilterSpec& spec, const ImageShape& image) {
  FilterSpec fixed = spec;
  const PyramidParameters p = pyramid_parameters(spec);
  throw_if_error(set_param(fixed, "levels", double(pyramid_levels(p.levels, image.width, image.height))));
  return fixed;
}

// The automatic sigma-r (FilterInfo::noise_value), in Delta E in lab mode.
double pyramid_noise_value(const FilterSpec& spec, const ParamInfo&, const NoiseEstimate& noise) {
  return pyramid_sigma_r_for_noise(auto_noise_sigma(spec, noise));
}

double pyramid_auto_value(const FilterSpec& spec, const ParamInfo& param) {
  if (std::string(param.cli_flag) == "radius") return radius_of(pyramid_parameters(spec));
  return spec.get(param.cli_flag);  // levels: the image decides
}

PyramidPass level_pass(const PyramidParameters& p, const ImageShape& shape, int radius, double sigma_r, int first_plane,
                       int planes) {
  BilateralParameters b;
  b.mode = p.mode;
  b.working_space = WorkingSpace::perceptual;
  b.sigma_s = p.sigma_s;
  b.radius = radius;
  b.sigma_r = float(sigma_r);
  b.kernel = p.kernel;
  b.iterations = 1;
  PyramidPass pass;
  const std::unique_ptr<Plan> plan = plan_bilateral_family(b, nullptr, shape, {});
  pass.bilateral = static_cast<const BilateralPlan&>(*plan);
  pass.first_plane = first_plane;
  pass.planes = planes;
  return pass;
}

// The noise each level's passes filter, per level, for an automatic
// sigma-r: from the measured noise of the channels the pass sees and their
// spectra (all colour channels; lab mode: the luma channel for L*, the two
// chroma channels for a*b*), so correlated and colour noise get their own
// strength on every level. In the spec's units (Delta E in lab mode, as
// kLabPerCode converts). White noise gives the white-noise gains times its
// sigma: the rule the filter had before it read spectra.
struct LevelNoise {
  std::vector<double> all, luma, chroma;
};

std::vector<double> level_noise(const std::vector<const ChannelNoise*>& channels, int levels, bool gaussian,
                                double unit) {
  std::vector<double> variance(size_t(levels), 0.0);
  int used = 0;
  for (const ChannelNoise* channel : channels) {
    if (!channel->valid) continue;
    const std::vector<double> gains = gaussian ? pyramid_gaussian_gains(levels, channel->spectrum)
                                               : pyramid_noise_gains(levels, channel->spectrum);
    for (int k = 0; k < levels; ++k) variance[size_t(k)] += channel->sigma * channel->sigma * gains[size_t(k)] * gains[size_t(k)];
    ++used;
  }
  for (double& v : variance) v = unit * std::sqrt(v / std::max(used, 1));
  return variance;
}

// Delta E per code value of the opponent channels' noise near mid-grey
// (babl's Lab as skimage computes it, noise of 10 code values at grey 60,
// 128 and 190): L* follows Y alone, 0.21-0.26; a*b* follow the chroma
// channels, 0.46-0.53 (C1) and 0.80-0.92 (C2), 0.70 their root mean
// square. The joint rule's kLabPerCode (0.52) is white noise's whole Delta E.
constexpr double kLabLumaPerCode = 0.23;
constexpr double kLabChromaPerCode = 0.70;

LevelNoise measured_level_noise(const NoiseEstimate& noise, int levels, bool gaussian, bool lab) {
  LevelNoise result;
  std::vector<const ChannelNoise*> all;
  for (const ChannelNoise& c : noise.channels) all.push_back(&c);
  result.all = level_noise(all, levels, gaussian, lab ? kLabPerCode : 1.0);
  if (lab && noise.opponent.size() == 3) {
    result.luma = level_noise({&noise.opponent[0]}, levels, gaussian, kLabLumaPerCode);
    result.chroma = level_noise({&noise.opponent[1], &noise.opponent[2]}, levels, gaussian, kLabChromaPerCode);
  } else {
    result.luma = result.chroma = result.all;
  }
  return result;
}

std::unique_ptr<Plan> plan_pyramid(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  if (!request.extra_outputs.empty())
    throw std::invalid_argument("the pyramid filter makes no " + request.extra_outputs.front() + " output");
  const PyramidParameters p = pyramid_parameters(spec);
  auto plan = std::make_unique<PyramidPlan>();
  plan->family = "pyramid";
  plan->pad = 0;  // the kernels pad each level themselves
  plan->levels = pyramid_levels(p.levels, shape.width, shape.height);
  plan->radius = radius_of(p);
  plan->color_channels = color_channels(shape);
  plan->has_alpha = has_alpha(shape);
  plan->lab = p.mode == ColorMode::lab && plan->color_channels == 3;
  for (int k = 0, w = shape.width, h = shape.height; k < plan->levels;
       ++k, w = pyramid_next_size(w), h = pyramid_next_size(h)) {
    plan->widths.push_back(w);
    plan->heights.push_back(h);
  }
  plan->reach = pyramid_reach(plan->levels, plan->radius);
  plan->gaussian_weights = p.guide == PyramidGuide::gaussian;
  plan->gains = plan->gaussian_weights ? pyramid_gaussian_gains(plan->levels) : pyramid_noise_gains(plan->levels);

  const int colours = plan->color_channels;
  // An automatic sigma-r follows the measured noise of every level: the
  // resolved value over the noise its rule started from is the rule's
  // multiple, applied to each level's own noise.
  std::vector<double> all_sigma, luma_sigma, chroma_sigma;
  for (int k = 0; k < plan->levels; ++k) all_sigma.push_back(double(p.sigma_r) * plan->gains[size_t(k)]);
  luma_sigma = chroma_sigma = all_sigma;
  if (request.noise_auto("sigma-r")) {
    const double reference = auto_noise_sigma(spec, *request.noise);
    const double multiple = double(p.sigma_r) / reference;
    const LevelNoise measured =
        measured_level_noise(*request.noise, plan->levels, plan->gaussian_weights, p.mode == ColorMode::lab);
    for (int k = 0; k < plan->levels; ++k) {
      // A level whose channels show no noise keeps the white-noise rule.
      auto pick = [&](const std::vector<double>& level) {
        return level[size_t(k)] > 0 ? multiple * level[size_t(k)] : all_sigma[size_t(k)];
      };
      const double all = pick(measured.all), luma = pick(measured.luma), chroma = pick(measured.chroma);
      all_sigma[size_t(k)] = all;
      luma_sigma[size_t(k)] = plan->lab ? luma : all;
      chroma_sigma[size_t(k)] = plan->lab ? chroma : all;
    }
  }
  // One level: sigma-r * 1 * strength, the float the bilateral filter gets.
  const bool grey_lab = p.mode == ColorMode::lab && colours == 1;
  for (int k = 0; k < plan->levels; ++k) {
    ImageShape level_shape = shape;
    level_shape.width = plan->widths[size_t(k)];
    level_shape.height = plan->heights[size_t(k)];
    const double level_strength = double(p.strength) * (k > 0 ? double(p.coarse_strength) : 1.0);
    const double strength = level_strength * (grey_lab ? double(p.luma_strength) : 1.0);
    const double luma = level_strength * double(p.luma_strength);
    const double chroma = level_strength * double(p.chroma_strength);
    const double base = all_sigma[size_t(k)];
    const double luma_sigma_r = luma_sigma[size_t(k)] * luma, chroma_sigma_r = chroma_sigma[size_t(k)] * chroma;
    std::vector<PyramidPass> passes;
    if (!plan->lab) {
      if (strength > 0) passes.push_back(level_pass(p, level_shape, plan->radius, base * strength, 0, colours));
    } else if (luma_sigma_r == chroma_sigma_r) {
      if (luma > 0) passes.push_back(level_pass(p, level_shape, plan->radius, luma_sigma_r, 0, 3));
    } else {
      if (luma > 0) passes.push_back(level_pass(p, level_shape, plan->radius, luma_sigma_r, 0, 1));
      if (chroma > 0) passes.push_back(level_pass(p, level_shape, plan->radius, chroma_sigma_r, 1, 2));
    }
    plan->passes.push_back(std::move(passes));
  }
  return plan;
}

}  // namespace

const FilterInfo& pyramid_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "pyramid";
    row.title = "Edgewise Multiresolution Bilateral";
    row.summary =
        "the bilateral filter on every level of a Laplacian pyramid: correlated noise and colour blotches, "
        "luminance and colour strengths apart in lab mode";
    row.pdb_procedure = "plug-in-edgewise-pyramid";
    row.pdb_blurb = "Edge-preserving denoising (multiresolution bilateral filter on a Laplacian pyramid)";
    row.menu_label = "Edgewise _Multiresolution Bilateral...";
    row.groups = {&pyramid_group()};
    row.reach = pyramid_reach_of;
    row.region_grid = pyramid_region_grid;
    row.for_image = pyramid_for_image;
    row.auto_value = pyramid_auto_value;
    row.auto_follows = "sigma-r: each level's own measured noise, per channel";
    row.typed_defaults = [] { return pyramid_spec(PyramidParameters{}); };
    row.plan = plan_pyramid;
    row.noise_value = pyramid_noise_value;
    row.denoise.method = "Multiscale";
    row.denoise.good_for = "colour blotches and coarse grain from phones and camera JPEGs; fast";
    row.denoise.separates = true;
    row.denoise.suits = kCorrelatedNoise | kColourNoise;
    row.denoise.rank = 2;
    row.denoise.controls = {{"coarse-strength", "Coarse _grain",
                             "how hard grain and blotches wider than a pixel are smoothed, against the finest grain "
                             "(1 = alike; more for phone and JPEG noise)"}};
    return row;
  }();
  return info;
}

}  // namespace edgewise
