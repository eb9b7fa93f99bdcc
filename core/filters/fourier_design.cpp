// The Fourier bilateral filter's host-side design in double precision: the
// range kernel's series (fourier_design.h says what and why) and the
// spatial Gaussian's recursion.
#include "fourier_design.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "color_lab.h"
#include "fourier.h"

namespace edgewise {

namespace {

constexpr double kPi = 3.14159265358979323846;

// ---- the range kernel's series ----

// x R(x) and R(x) of the function the series stands for at x >= 0.
struct Target {
  double even, odd;
};

// A smooth step from 0 at t <= 0 to 1 at t >= 1 with every derivative zero
// at both ends (so the continuation below adds no corner the series would
// have to pay for).
double smooth_step(double t) {
  if (t <= 0.0) return 0.0;
  if (t >= 1.0) return 1.0;
  const double a = std::exp(-1.0 / t), b = std::exp(-1.0 / (1.0 - t));
  return a / (a + b);
}

// The kernel on [0, length], continued over [length, length + margin]: R
// flattens to R(length), x R(x) falls to zero, smoothly. The even and odd
// periodic extensions with period 2 (length + margin) are then as smooth
// as the kernel itself.
Target continued(RangeKernel kernel, double sigma_r, double length, double margin, double x) {
  if (x <= length) {
    const double r = range_kernel_value(kernel, x, sigma_r);
    return {r, x * r};
  }
  const double keep = 1.0 - smooth_step((x - length) / margin);
  const double r = range_kernel_value(kernel, x, sigma_r), at_end = range_kernel_value(kernel, length, sigma_r);
  return {at_end + (r - at_end) * keep, x * r * keep};
}

// Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n).
struct GaussLegendre {
  static constexpr int kPoints = 8;
  std::array<double, kPoints> node{}, weight{};
  GaussLegendre() {
    for (int i = 0; i < kPoints; ++i) {
      double x = std::cos(kPi * (i + 0.75) / (kPoints + 0.5)), derivative = 1.0;
      for (int iteration = 0; iteration < 100; ++iteration) {
        double p0 = 1.0, p1 = x;
        for (int n = 2; n <= kPoints; ++n) {
          const double p2 = ((2.0 * n - 1.0) * x * p1 - (n - 1.0) * p0) / n;
          p0 = p1;
          p1 = p2;
        }
        derivative = kPoints * (x * p1 - p0) / (x * x - 1.0);
        const double step = p1 / derivative;
        x -= step;
        if (std::fabs(step) < 1e-16) break;
      }
      node[size_t(i)] = x;
      weight[size_t(i)] = 2.0 / ((1.0 - x * x) * derivative * derivative);
    }
  }
};

// Fourier coefficients of the continued kernel, k = 0..kMaxSeriesTerms, by
// composite Gauss-Legendre quadrature over [0, T/2], split at the kernel's
// corner (sigma_r, for tukey and huber) and at the continuation's start.
RangeSeries project(RangeKernel kernel, double sigma_r, double length, double margin) {
  static const GaussLegendre rule;
  const int count = kMaxSeriesTerms + 1;
  RangeSeries series;
  series.period = 2.0 * (length + margin);
  const double half = length + margin, omega = 2.0 * kPi / series.period;
  series.cosine.assign(size_t(count), 0.0);
  series.sine.assign(size_t(count), 0.0);
  std::vector<double> breaks{0.0, length, half};
  if (sigma_r < length) breaks.push_back(sigma_r);
  std::sort(breaks.begin(), breaks.end());
  // Panels no wider than an eighth of the highest harmonic's period.
  const double widest = series.period / (8.0 * kMaxSeriesTerms);
  for (size_t b = 0; b + 1 < breaks.size(); ++b) {
    const double from = breaks[b], to = breaks[b + 1];
    if (to <= from) continue;
    const int panels = std::max(1, int(std::ceil((to - from) / widest)));
    const double width = (to - from) / panels;
    for (int panel = 0; panel < panels; ++panel)
      for (int i = 0; i < GaussLegendre::kPoints; ++i) {
        const double x = from + width * (panel + 0.5 * (rule.node[size_t(i)] + 1.0));
        const double w = 0.5 * width * rule.weight[size_t(i)];
        const Target f = continued(kernel, sigma_r, length, margin, x);
        const double c1 = std::cos(omega * x), s1 = std::sin(omega * x);
        double c = 1.0, s = 0.0;
        for (int k = 0; k < count; ++k) {
          series.cosine[size_t(k)] += w * f.even * c;
          series.sine[size_t(k)] += w * f.odd * s;
          const double next = c * c1 - s * s1;
          s = s * c1 + c * s1;
          c = next;
        }
      }
  }
  // Even f: a_0 = (2/T) int_0^{T/2} f, a_k = (4/T) int_0^{T/2} f cos; odd g: b_k = (4/T) int_0^{T/2} g sin.
  series.cosine[0] *= 2.0 / series.period;
  for (int k = 1; k < count; ++k) {
    series.cosine[size_t(k)] *= 4.0 / series.period;
    series.sine[size_t(k)] *= 4.0 / series.period;
  }
  series.sine[0] = 0.0;
  return series;
}

// The periodised Gaussian's coefficients: a_k = (2 - [k = 0]) s sqrt(2 pi) /
// T exp(-(w k s)^2 / 2), and b_k = s^2 w k a_k since x R(x) = -s^2 R'(x).
RangeSeries gaussian_series(double sigma_r, double period, int terms) {
  RangeSeries series;
  series.terms = terms;
  series.period = period;
  const double omega = 2.0 * kPi / period, base = sigma_r * std::sqrt(2.0 * kPi) / period;
  series.cosine.resize(size_t(terms) + 1);
  series.sine.resize(size_t(terms) + 1);
  for (int k = 0; k <= terms; ++k) {
    const double frequency = omega * k;
    const double a = (k == 0 ? 1.0 : 2.0) * base * std::exp(-0.5 * frequency * frequency * sigma_r * sigma_r);
    series.cosine[size_t(k)] = a;
    series.sine[size_t(k)] = sigma_r * sigma_r * frequency * a;
  }
  return series;
}

// Points |x| <= length where the error is measured: a fine uniform grid
// and the kernel's corner.
std::vector<double> error_points(double sigma_r, double length, int terms, double period) {
  const int count = std::max(512, int(std::ceil(16.0 * terms * length / period)) + 1);
  std::vector<double> points;
  points.reserve(size_t(count) + 2);
  for (int i = 0; i <= count; ++i) points.push_back(length * i / count);
  if (sigma_r < length) points.push_back(sigma_r);
  return points;
}

// Error of the first n terms for every n = 1..max_terms (index n), in one walk.
std::vector<double> errors_by_terms(RangeKernel kernel, double sigma_r, double length, const RangeSeries& series,
                                    int max_terms) {
  std::vector<double> worst(size_t(max_terms) + 1, 0.0);
  const double omega = 2.0 * kPi / series.period;
  for (double x : error_points(sigma_r, length, max_terms, series.period)) {
    const double r = range_kernel_value(kernel, x, sigma_r);
    const double c1 = std::cos(omega * x), s1 = std::sin(omega * x);
    double c = c1, s = s1, even = series.cosine[0], odd = 0.0;
    for (int k = 1; k <= max_terms; ++k) {
      even += series.cosine[size_t(k)] * c;
      odd += series.sine[size_t(k)] * s;
      const double e = std::max(std::fabs(even - r), std::fabs(odd - x * r) / length);
      worst[size_t(k)] = std::max(worst[size_t(k)], e);
      const double next = c * c1 - s * s1;
      s = s * c1 + c * s1;
      c = next;
    }
  }
  worst[0] = std::numeric_limits<double>::infinity();
  return worst;
}

RangeSeries truncated(RangeSeries series, int terms, double error) {
  series.terms = terms;
  series.error = error;
  series.cosine.resize(size_t(terms) + 1);
  series.sine.resize(size_t(terms) + 1);
  return series;
}

double gaussian_error(double sigma_r, double length, double period, int terms) {
  return errors_by_terms(RangeKernel::gaussian, sigma_r, length, gaussian_series(sigma_r, period, terms),
                         terms)[size_t(terms)];
}

// The period where aliasing (the neighbouring copy at T - length) and
// truncation (the first term left out) have equal exponents:
// (T - L) / s = 2 pi (N + 1) s / T.
double balanced_period(double sigma_r, double length, int terms) {
  return 0.5 * (length + std::sqrt(length * length + 8.0 * kPi * (terms + 1) * sigma_r * sigma_r));
}

// The period minimising the error for N terms: golden-section search around
// the balanced one.
RangeSeries best_gaussian(double sigma_r, double length, int terms) {
  const double centre = balanced_period(sigma_r, length, terms);
  double a = 0.8 * centre, b = 1.25 * centre;
  const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = gaussian_error(sigma_r, length, c, terms), fd = gaussian_error(sigma_r, length, d, terms);
  for (int i = 0; i < 24; ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - ratio * (b - a);
      fc = gaussian_error(sigma_r, length, c, terms);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + ratio * (b - a);
      fd = gaussian_error(sigma_r, length, d, terms);
    }
  }
  const double period = fc < fd ? c : d;
  RangeSeries series = gaussian_series(sigma_r, period, terms);
  series.error = std::min(fc, fd);
  return series;
}

RangeSeries design_gaussian(double sigma_r, double length, int terms) {
  const double target = series_target_error(RangeKernel::gaussian);
  if (terms > 0) return best_gaussian(sigma_r, length, terms);
  // The balanced period's error falls with N; the refined period may save a term or two.
  int n = 1;
  while (n < kMaxSeriesTerms && gaussian_error(sigma_r, length, balanced_period(sigma_r, length, n), n) > target) ++n;
  RangeSeries best = best_gaussian(sigma_r, length, n);
  while (n > 1) {
    RangeSeries fewer = best_gaussian(sigma_r, length, n - 1);
    if (fewer.error > target) break;
    best = fewer;
    --n;
  }
  return best;
}

RangeSeries design_projected(RangeKernel kernel, double sigma_r, double length, int terms) {
  const double target = series_target_error(kernel);
  // Margins as shares of the range: a narrow one keeps the period short
  // (fewer terms for the same resolution), a wide one keeps the
  // continuation smooth; the best depends on the kernel and sigma_r.
  const double shares[] = {0.1, 0.2, 0.3, 0.45, 0.65, 0.9};
  RangeSeries best;
  double best_error = std::numeric_limits<double>::infinity();
  int best_terms = kMaxSeriesTerms + 1;
  for (double share : shares) {
    const RangeSeries full = project(kernel, sigma_r, length, share * length);
    const std::vector<double> errors = errors_by_terms(kernel, sigma_r, length, full, kMaxSeriesTerms);
    int n = terms;
    if (n == 0) {
      n = 1;
      while (n < kMaxSeriesTerms && errors[size_t(n)] > target) ++n;
    }
    const double error = errors[size_t(n)];
    if (n < best_terms || (n == best_terms && error < best_error)) {
      best = truncated(full, n, error);
      best_terms = n;
      best_error = error;
    }
  }
  return best;
}

// ---- the spatial Gaussian ----

// Poles of the fit of Re(c1 e^{p1 x}) + Re(c2 e^{p2 x}) to exp(-x^2 / 2) for
// x >= 0 (least squares on [0, 12] by Levenberg-Marquardt in double; max
// error 5.9e-4 of the peak). Deriche's published values are within 0.2%.
constexpr double kDecay[2] = {1.7845253905, 1.7242177766};
constexpr double kFrequency[2] = {0.6319047675, 1.9972190616};

// Solves the 4x4 system a x = b (Gaussian elimination, partial pivoting).
std::array<double, 4> solve4(std::array<double, 16> a, std::array<double, 4> b) {
  for (int i = 0; i < 4; ++i) {
    int pivot = i;
    for (int r = i + 1; r < 4; ++r)
      if (std::fabs(a[size_t(r * 4 + i)]) > std::fabs(a[size_t(pivot * 4 + i)])) pivot = r;
    for (int c = 0; c < 4; ++c) std::swap(a[size_t(i * 4 + c)], a[size_t(pivot * 4 + c)]);
    std::swap(b[size_t(i)], b[size_t(pivot)]);
    for (int r = i + 1; r < 4; ++r) {
      const double f = a[size_t(r * 4 + i)] / a[size_t(i * 4 + i)];
      for (int c = i; c < 4; ++c) a[size_t(r * 4 + c)] -= f * a[size_t(i * 4 + c)];
      b[size_t(r)] -= f * b[size_t(i)];
    }
  }
  std::array<double, 4> x{};
  for (int i = 3; i >= 0; --i) {
    double s = b[size_t(i)];
    for (int c = i + 1; c < 4; ++c) s -= a[size_t(i * 4 + c)] * x[size_t(c)];
    x[size_t(i)] = s / a[size_t(i * 4 + i)];
  }
  return x;
}

}  // namespace

double series_target_error(RangeKernel kernel) {
  switch (kernel) {
    case RangeKernel::tukey:
      return 3e-3;
    case RangeKernel::lorentz:
      return 5e-3;
    case RangeKernel::huber:
      return 2e-2;
    default:
      return 3e-3;
  }
}

double range_kernel_value(RangeKernel kernel, double x, double sigma_r) {
  const double q = (x / sigma_r) * (x / sigma_r);
  switch (kernel) {
    case RangeKernel::tukey: {
      const double t = std::max(1.0 - q, 0.0);
      return 0.5 * t * t;
    }
    case RangeKernel::lorentz:
      return 2.0 / (2.0 + q);
    case RangeKernel::huber:
      return std::min(1.0, 1.0 / std::sqrt(q));
    default:
      return std::exp(-0.5 * q);
  }
}

RangeSeries design_range_series(RangeKernel kernel, double sigma_r, double length, int terms) {
  terms = std::clamp(terms, 0, kMaxSeriesTerms);
  if (kernel == RangeKernel::gaussian) return design_gaussian(sigma_r, length, terms);
  return design_projected(kernel, sigma_r, length, terms);
}

double SpatialGaussian::impulse(int n) const {
  n = std::abs(n);
  if (n > radius) return 0.0;
  if (!recursive) return taps[size_t(n)];
  double h = 0.0;
  for (int i = 0; i < 2; ++i) h += (residue[i] * std::pow(pole[i], n)).real();
  return h;
}

SpatialGaussian design_spatial_gaussian(double sigma_s) {
  SpatialGaussian design;
  const int r = int(std::ceil(4.0 * sigma_s));
  design.radius = r;
  design.taps.resize(size_t(r) + 1);
  double total = 0.0;
  for (int n = 0; n <= r; ++n) {
    design.taps[size_t(n)] = std::exp(-double(n) * n / (2.0 * sigma_s * sigma_s));
    total += (n == 0 ? 1.0 : 2.0) * design.taps[size_t(n)];
  }
  for (double& g : design.taps) g /= total;
  if (r <= kDirectRadius) return design;

  design.recursive = true;
  for (int i = 0; i < 2; ++i) design.pole[i] = std::exp(std::complex<double>(-kDecay[i], kFrequency[i]) / sigma_s);
  // Residues: least squares against the window over n = 0..r (n > 0
  // counted twice, as h is symmetric), unknowns Re and Im of both
  // (h[n] = Re(c) Re(z^n) - Im(c) Im(z^n)).
  std::array<double, 16> normal{};
  std::array<double, 4> right{};
  for (int n = 0; n <= r; ++n) {
    const double weight = n == 0 ? 1.0 : 2.0;
    double basis[4];
    for (int i = 0; i < 2; ++i) {
      const std::complex<double> power = std::pow(design.pole[i], n);
      basis[2 * i] = power.real();
      basis[2 * i + 1] = -power.imag();
    }
    for (int row = 0; row < 4; ++row) {
      right[size_t(row)] += weight * basis[row] * design.taps[size_t(n)];
      for (int c = 0; c < 4; ++c) normal[size_t(row * 4 + c)] += weight * basis[row] * basis[c];
    }
  }
  const std::array<double, 4> fit = solve4(normal, right);
  for (int i = 0; i < 2; ++i) design.residue[i] = {fit[size_t(2 * i)], fit[size_t(2 * i + 1)]};
  // Normalise over the window: sum_{|n| <= r} h[n] = 1.
  double sum = 0.0;
  for (int n = -r; n <= r; ++n) sum += design.impulse(n);
  for (auto& residue : design.residue) residue /= sum;
  design.centre = design.residue[0].real() + design.residue[1].real();
  for (int n = 0; n <= r; ++n)
    design.max_error = std::max(design.max_error, std::fabs(design.impulse(n) - design.taps[size_t(n)]));
  return design;
}

static_assert(kMaxCoarseStep == kFourierMaxCoarseStep && kMaxCoarseRadius == kFourierMaxCoarseRadius,
              "FourierParams' coarse tables are sized by these");

CoarseGrid design_coarse_grid(double sigma_s) {
  CoarseGrid grid;
  if (sigma_s < kCoarseFromSigma) return grid;
  grid.step = std::min(int(std::floor(sigma_s / 4.0)), kMaxCoarseStep);
  const double s = grid.step;
  grid.sigma = std::sqrt(sigma_s * sigma_s - (s * s - 1.0) / 12.0) / s;
  grid.radius = std::min(int(std::ceil(4.0 * grid.sigma)), kMaxCoarseRadius);
  grid.taps.resize(size_t(grid.radius) + 1);
  double total = 0.0;
  for (int n = 0; n <= grid.radius; ++n) {
    grid.taps[size_t(n)] = std::exp(-double(n) * n / (2.0 * grid.sigma * grid.sigma));
    total += (n == 0 ? 1.0 : 2.0) * grid.taps[size_t(n)];
  }
  for (double& g : grid.taps) g /= total;
  return grid;
}

const LabRange& lab_range() {
  static const LabRange range = [] {
    LabRange r;
    for (int c = 0; c < 3; ++c) {
      r.low[c] = std::numeric_limits<double>::infinity();
      r.high[c] = -r.low[c];
    }
    // The extremes lie on the RGB cube's surface: each face on a fine grid.
    const int steps = 64;
    for (int face = 0; face < 6; ++face)
      for (int i = 0; i <= steps; ++i)
        for (int j = 0; j <= steps; ++j) {
          float rgb[3];
          const int fixed = face / 2;
          rgb[fixed] = float(face % 2);
          rgb[(fixed + 1) % 3] = float(i) / steps;
          rgb[(fixed + 2) % 3] = float(j) / steps;
          float lab[3];
          rgb_to_lab(rgb[0], rgb[1], rgb[2], lab[0], lab[1], lab[2]);
          for (int c = 0; c < 3; ++c) {
            r.low[c] = std::min(r.low[c], double(lab[c]));
            r.high[c] = std::max(r.high[c], double(lab[c]));
          }
        }
    for (int c = 0; c < 3; ++c) {
      r.low[c] -= 0.5;
      r.high[c] += 0.5;
    }
    return r;
  }();
  return range;
}

}  // namespace edgewise
