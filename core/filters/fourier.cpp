// The Fourier bilateral filter's parameter table, planner and registry row.
#include "fourier.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "fourier_design.h"

namespace edgewise {

namespace {

const ParamGroup& fourier_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "fourier_params.def"
                                      .build();
  return group;
}

// D_min and D_floor (fourier.h). D_min bounds the amplification of the
// series' error (1 / D_min); the photos of tests/data lose nothing to it at
// 1e-3 (docs/fourier.md). D_floor is above the float rounding of D in
// windows that are almost all transparent.
constexpr double kMinDenominator = 1e-3;
constexpr double kDenominatorFloor = 1e-5;

// The samples' range in working units: code values 0..255, or the L*a*b*
// that R'G'B' 0..1 reaches.
void channel_range(bool lab, int channel, double& low, double& high) {
  if (lab) {
    low = lab_range().low[channel];
    high = lab_range().high[channel];
  } else {
    low = 0.0;
    high = 255.0;
  }
}

// The designs are pure functions of their arguments and cost a few
// milliseconds: the dialog's preview plans the same spec again and again.
RangeSeries cached_series(RangeKernel kernel, double sigma_r, double length, int terms) {
  using Key = std::tuple<int, double, double, int>;
  static std::mutex mutex;
  static std::map<Key, RangeSeries> cache;
  const Key key{int(kernel), sigma_r, length, terms};
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(key);
    if (found != cache.end()) return found->second;
  }
  RangeSeries series = design_range_series(kernel, sigma_r, length, terms);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 256) cache.clear();
  cache.emplace(key, series);
  return series;
}

// Each colour channel's series, all with the same N: the asked-for one, or
// the largest of the channels' automatic ones (each channel then takes its
// best period for that N).
std::vector<RangeSeries> channel_series(const FourierParameters& f, bool lab, int channels) {
  std::vector<RangeSeries> series;
  int terms = f.terms;
  for (int c = 0; c < channels; ++c) {
    double low, high;
    channel_range(lab, c, low, high);
    series.push_back(cached_series(f.kernel, double(f.sigma_r), high - low, f.terms));
    terms = std::max(terms, series.back().terms);
  }
  for (int c = 0; c < channels; ++c)
    if (series[size_t(c)].terms != terms) {
      double low, high;
      channel_range(lab, c, low, high);
      series[size_t(c)] = cached_series(f.kernel, double(f.sigma_r), high - low, terms);
    }
  return series;
}

std::string check_fourier(const FilterSpec& spec) {
  if (fourier_parameters(spec).mode == ColorMode::rgb)
    return "invalid mode rgb for the fourier filter: its series weighs one channel at a time, so it offers "
           "per-channel or lab (rgb's joint distance is the bilateral filter's)";
  return "";
}

// Rows a pixel's output depends on: the window, or at reduced resolution
// the cells of the blurs that reach the two cell rows around the pixel
// (at most radius + 1 cells away, their centres within s/2 of it).
int coarse_reach(const CoarseGrid& grid) { return (grid.radius + 1) * grid.step + grid.step / 2; }

int fourier_reach(const FilterSpec& spec) {
  const double sigma_s = double(fourier_parameters(spec).sigma_s);
  const CoarseGrid grid = design_coarse_grid(sigma_s);
  return grid.step > 1 ? coarse_reach(grid) : design_spatial_gaussian(sigma_s).radius;
}

// The reduced resolution's cells start at the origin of what is filtered.
int fourier_region_grid(const FilterSpec& spec) {
  return design_coarse_grid(double(fourier_parameters(spec).sigma_s)).step;
}

// The auto rule, fitted with bench/quality/auto_quality at the default
// sigma-s 10 (docs/quality.md): a wide window wants a narrower range kernel
// than the bilateral filter's small one.
constexpr double kSigmaRPerNoise = 1.5;

double fourier_noise_value(const FilterSpec& spec, const ParamInfo&, const NoiseEstimate& noise) {
  return kSigmaRPerNoise * auto_noise_sigma(spec, noise);  // sigma-r, its one auto parameter
}

double fourier_auto_value(const FilterSpec& spec, const ParamInfo& param) {
  if (std::string(param.cli_flag) == "terms") return fourier_terms(spec);
  return spec.get(param.cli_flag);
}

void fill_spatial(FourierPlan& plan, const SpatialGaussian& spatial) {
  FourierParams& p = plan.params;
  p.recursive = spatial.recursive;
  p.radius = spatial.radius;
  if (!spatial.recursive)
    for (double tap : spatial.taps) plan.taps.push_back(float(tap));
  for (int i = 0; i < 2 && spatial.recursive; ++i) {
    const std::complex<double> z = spatial.pole[i], leaving = std::pow(z, spatial.radius + 1);
    const std::complex<double> steady = (1.0 - leaving) / (1.0 - z);
    p.pole_re[i] = float(z.real());
    p.pole_im[i] = float(z.imag());
    p.residue_re[i] = float(spatial.residue[i].real());
    p.residue_im[i] = float(spatial.residue[i].imag());
    p.leaving_re[i] = float(leaving.real());
    p.leaving_im[i] = float(leaving.imag());
    p.steady_re[i] = float(steady.real());
    p.steady_im[i] = float(steady.imag());
  }
  p.centre = float(spatial.centre);
  plan.spatial_error = spatial.max_error;
}

void fill_coarse(FourierParams& p, const CoarseGrid& grid) {
  const int s = grid.step;
  p.coarse_step = s;
  p.coarse_radius = grid.radius;
  for (size_t n = 0; n < grid.taps.size(); ++n) p.coarse_tap[n] = float(grid.taps[n]);
  // Pixel q s + m sits at (q s + m + 1/2) / s - 1/2 cells: between cell q - 1
  // and q where 2m + 1 < s, else between q and q + 1.
  for (int m = 0; m < s && s > 1; ++m) {
    const double position = (2.0 * m + 1.0 - s) / (2.0 * s);
    p.coarse_shift[m] = position < 0.0 ? -1 : 0;
    p.coarse_weight[m] = float(position < 0.0 ? position + 1.0 : position);
  }
}

std::unique_ptr<Plan> plan_fourier(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) {
  if (!request.extra_outputs.empty())
    throw std::invalid_argument("the fourier filter makes no " + request.extra_outputs.front() + " output");
  throw_if_error(check_fourier(spec));
  const FourierParameters f = fourier_parameters(spec);
  auto plan = std::make_unique<FourierPlan>();
  plan->family = "fourier";
  const SpatialGaussian spatial = design_spatial_gaussian(double(f.sigma_s));
  const CoarseGrid grid = design_coarse_grid(double(f.sigma_s));
  plan->reach = grid.step > 1 ? coarse_reach(grid) : spatial.radius;
  plan->pad = 0;  // the kernels clamp columns themselves
  fill_spatial(*plan, spatial);
  fill_coarse(plan->params, grid);

  FourierParams& p = plan->params;
  p.color_channels = color_channels(shape);
  p.has_alpha = has_alpha(shape);
  p.lab = f.mode == ColorMode::lab && p.color_channels == 3;
  p.unit = p.lab ? 1.0f : 255.0f;
  p.inverse_unit = 1.0f / p.unit;
  const std::vector<RangeSeries> series = channel_series(f, p.lab, p.color_channels);
  p.terms = series.front().terms;
  for (int c = 0; c < p.color_channels; ++c) {
    const RangeSeries& s = series[size_t(c)];
    double low, high;
    channel_range(p.lab, c, low, high);
    FourierChannel& channel = p.channel[c];
    channel.low = float(low);
    channel.high = float(high);
    channel.middle = float(0.5 * (low + high));
    channel.half_range = float(0.5 * (high - low));
    channel.turns_per_unit = float(1.0 / s.period);
    for (int k = 0; k <= p.terms; ++k) {
      plan->cosine.push_back(float(s.cosine[size_t(k)]));
      plan->sine.push_back(float(s.sine[size_t(k)]));
    }
    plan->period[c] = s.period;
    plan->series_error[c] = s.error;
  }
  p.min_denominator = float(kMinDenominator);
  p.denominator_floor = float(kDenominatorFloor);
  return plan;
}

}  // namespace

#define EW_IO_LIST "fourier_params.def"
#define EW_IO_TYPE FourierParameters
#define EW_IO_READER fourier_parameters
#define EW_IO_WRITER fourier_spec
#define EW_IO_FILTER fourier_filter()
#include "param_io.h"

int fourier_terms(const FilterSpec& spec) {
  const FourierParameters f = fourier_parameters(spec);
  if (f.terms > 0) return f.terms;
  if (f.sigma_r == float(kNoiseAuto)) return 0;  // chosen with sigma-r, from the image's noise
  return channel_series(f, f.mode == ColorMode::lab, 3).front().terms;
}

const FilterInfo& fourier_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "fourier";
    row.title = "Edgewise Fourier Bilateral";
    row.summary =
        "the bilateral filter with its range kernel as a Fourier series: time per pixel flat in sigma-s, within "
        "50 dB of the exact filter; at its defaults (sigma-s 10) an edge-preserving smoothing filter for large "
        "spatial scales, not a denoiser (for noise: pyramid or nlbayes)";
    row.pdb_procedure = "plug-in-edgewise-fourier";
    row.pdb_blurb = "Edge-preserving denoising (bilateral filter by Fourier series, any spatial sigma at one cost)";
    row.menu_label = "Edgewise _Fourier Bilateral...";
    row.groups = {&fourier_group()};
    row.reach = fourier_reach;
    row.region_grid = fourier_region_grid;
    row.auto_value = fourier_auto_value;
    row.check = check_fourier;
    row.noise_value = fourier_noise_value;
    row.denoise.method = "Smooth areas";
    row.denoise.good_for = "heavy noise in large smooth areas (skies, walls); the softest; fast at any smoothness";
    row.denoise.controls = {{"sigma-s", "Smoo_thness",
                             "how far the smoothing reaches, in pixels: more gives smoother skies and softer "
                             "detail, at no extra cost"}};
    row.typed_defaults = [] { return fourier_spec(FourierParameters{}); };
    row.plan = plan_fourier;
    return row;
  }();
  return info;
}

}  // namespace edgewise
