// The noise spectrum's parts, their exact readings and the fit
// (noise_spectrum.h).
#include "noise_spectrum.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace edgewise {

namespace {

// A part's 1-D autocorrelation, normalised to 1 at 0: the sampled Gaussian
// of its blur (unit sum) correlated with itself; index k + centre.
struct PartCorrelation {
  int centre = 0;
  std::vector<double> values;
  double at(int k) const {
    const int i = k + centre;
    return i < 0 || i >= int(values.size()) ? 0.0 : values[size_t(i)];
  }
};

PartCorrelation correlation_of(double blur) {
  if (blur <= 0) return {0, {1.0}};
  const int radius = int(std::ceil(4 * blur));
  std::vector<double> g(size_t(2 * radius + 1));
  double sum = 0;
  for (int i = -radius; i <= radius; ++i) sum += g[size_t(i + radius)] = std::exp(-0.5 * i * i / (blur * blur));
  for (double& v : g) v /= sum;
  PartCorrelation c{2 * radius, std::vector<double>(size_t(4 * radius + 1), 0.0)};
  for (int k = -2 * radius; k <= 2 * radius; ++k)
    for (int n = 0; n < int(g.size()); ++n) {
      const int m = n + k;
      if (m >= 0 && m < int(g.size())) c.values[size_t(k + 2 * radius)] += g[size_t(n)] * g[size_t(m)];
    }
  const double zero = c.values[size_t(c.centre)];
  for (double& v : c.values) v /= zero;
  return c;
}

const std::array<PartCorrelation, kSpectrumParts>& parts() {
  static const std::array<PartCorrelation, kSpectrumParts> table = [] {
    std::array<PartCorrelation, kSpectrumParts> t;
    for (int j = 0; j < kSpectrumParts; ++j) t[size_t(j)] = correlation_of(kSpectrumBlurs[j]);
    return t;
  }();
  return table;
}

// sum_{m,n} h(m) h(n) c(m - n): the variance of the 1-D filter's output
// for noise of that autocorrelation.
double quadratic(const std::vector<double>& h, const PartCorrelation& c) {
  double sum = 0;
  for (size_t m = 0; m < h.size(); ++m)
    for (size_t n = 0; n < h.size(); ++n) sum += h[m] * h[n] * c.at(int(m) - int(n));
  return sum;
}

// Immerkaer's kernel at scale s in one axis: the average of 2^s samples,
// then [1 -2 1] with taps 2^s apart. Its square in 2-D sums to 36 / 4^s.
std::vector<double> reading_taps(int scale) {
  const int step = 1 << scale;
  std::vector<double> taps(size_t(3 * step), 0.0);
  const double kernel[3] = {1, -2, 1};
  for (int t = 0; t < 3; ++t)
    for (int i = 0; i < step; ++i) taps[size_t(t * step + i)] += kernel[t] / step;
  return taps;
}

const std::array<std::array<double, kSpectrumScales>, kSpectrumParts>& part_readings() {
  static const auto table = [] {
    std::array<std::array<double, kSpectrumScales>, kSpectrumParts> t{};
    for (int j = 0; j < kSpectrumParts; ++j)
      for (int s = 0; s < kSpectrumScales; ++s) {
        const double q = quadratic(reading_taps(s), parts()[size_t(j)]);
        t[size_t(j)][size_t(s)] = q * q / 36.0;
      }
    return t;
  }();
  return table;
}

// Least squares on the columns in `use` (normal equations; a handful of
// unknowns): the solution, 0 elsewhere.
std::vector<double> least_squares(const std::vector<std::vector<double>>& a, const std::vector<double>& b,
                                  const std::vector<bool>& use) {
  const size_t n = use.size();
  std::vector<size_t> columns;
  for (size_t j = 0; j < n; ++j)
    if (use[j]) columns.push_back(j);
  const size_t k = columns.size();
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0.0));
  for (size_t r = 0; r < k; ++r) {
    for (size_t c = 0; c < k; ++c)
      for (size_t e = 0; e < a.size(); ++e) m[r][c] += a[e][columns[r]] * a[e][columns[c]];
    for (size_t e = 0; e < a.size(); ++e) m[r][k] += a[e][columns[r]] * b[e];
  }
  for (size_t p = 0; p < k; ++p) {  // Gaussian elimination, partial pivoting
    size_t pivot = p;
    for (size_t r = p + 1; r < k; ++r)
      if (std::abs(m[r][p]) > std::abs(m[pivot][p])) pivot = r;
    std::swap(m[p], m[pivot]);
    if (std::abs(m[p][p]) < 1e-300) continue;
    for (size_t r = 0; r < k; ++r) {
      if (r == p) continue;
      const double f = m[r][p] / m[p][p];
      for (size_t c = p; c <= k; ++c) m[r][c] -= f * m[p][c];
    }
  }
  std::vector<double> x(n, 0.0);
  for (size_t r = 0; r < k; ++r) x[columns[r]] = std::abs(m[r][r]) < 1e-300 ? 0.0 : m[r][k] / m[r][r];
  return x;
}

// Lawson & Hanson's active-set method ("Solving Least Squares Problems",
// 1974, chapter 23): min |a x - b| subject to x >= 0.
std::vector<double> non_negative_least_squares(const std::vector<std::vector<double>>& a,
                                               const std::vector<double>& b) {
  const size_t n = a.empty() ? 0 : a[0].size();
  std::vector<double> x(n, 0.0);
  std::vector<bool> passive(n, false);
  auto gradient = [&] {
    std::vector<double> w(n, 0.0);
    for (size_t e = 0; e < a.size(); ++e) {
      double residual = b[e];
      for (size_t j = 0; j < n; ++j) residual -= a[e][j] * x[j];
      for (size_t j = 0; j < n; ++j) w[j] += a[e][j] * residual;
    }
    return w;
  };
  constexpr double kTolerance = 1e-12;
  for (int outer = 0; outer < int(3 * n) + 3; ++outer) {
    const std::vector<double> w = gradient();
    size_t best = n;
    for (size_t j = 0; j < n; ++j)
      if (!passive[j] && w[j] > kTolerance && (best == n || w[j] > w[best])) best = j;
    if (best == n) break;
    passive[best] = true;
    for (int inner = 0; inner < int(3 * n) + 3; ++inner) {
      const std::vector<double> z = least_squares(a, b, passive);
      bool feasible = true;
      double alpha = 1.0;
      for (size_t j = 0; j < n; ++j)
        if (passive[j] && z[j] <= 0) {
          feasible = false;
          alpha = std::min(alpha, x[j] / (x[j] - z[j]));
        }
      if (feasible) {
        x = z;
        break;
      }
      for (size_t j = 0; j < n; ++j) {
        x[j] += alpha * (z[j] - x[j]);
        if (passive[j] && x[j] <= kTolerance) passive[j] = false, x[j] = 0;
      }
    }
  }
  return x;
}

}  // namespace

double part_bilinear(int part, const std::vector<double>& u, const std::vector<double>& v) {
  if (part < 0 || part >= kSpectrumParts) throw std::out_of_range("part_bilinear: part out of range");
  const PartCorrelation& c = parts()[size_t(part)];
  double sum = 0;
  for (size_t m = 0; m < u.size(); ++m) {
    if (u[m] == 0) continue;
    for (size_t n = 0; n < v.size(); ++n) sum += u[m] * v[n] * c.at(int(m) - int(n));
  }
  return sum;
}

double spectrum_part_reading(int part, int scale) {
  if (part < 0 || part >= kSpectrumParts || scale < 0 || scale >= kSpectrumScales)
    throw std::out_of_range("spectrum_part_reading: part or scale out of range");
  return part_readings()[size_t(part)][size_t(scale)];
}

double NoiseSpectrum::autocorrelation(int dx, int dy) const {
  double sum = 0;
  for (int j = 0; j < kSpectrumParts; ++j) sum += shares[size_t(j)] * parts()[size_t(j)].at(dx) * parts()[size_t(j)].at(dy);
  return sum;
}

double NoiseSpectrum::variance_through(const std::vector<double>& across, const std::vector<double>& down) const {
  double sum = 0;
  for (int j = 0; j < kSpectrumParts; ++j)
    sum += shares[size_t(j)] * quadratic(across, parts()[size_t(j)]) * quadratic(down, parts()[size_t(j)]);
  return sum;
}

double NoiseSpectrum::variance_through(const std::vector<double>& taps) const { return variance_through(taps, taps); }

double NoiseSpectrum::reading(int scale) const {
  double sum = 0;
  for (int j = 0; j < kSpectrumParts; ++j) sum += shares[size_t(j)] * spectrum_part_reading(j, scale);
  return sum;
}

std::array<double, kSpectrumParts> fit_parts(const std::vector<SpectrumEquation>& equations) {
  std::vector<std::vector<double>> a;
  std::vector<double> b;
  for (const SpectrumEquation& e : equations) {
    if (!(e.measured > 0)) continue;
    std::vector<double> row(e.per_part.begin(), e.per_part.end());
    for (double& value : row) value *= e.weight / e.measured;
    a.push_back(row);
    b.push_back(e.weight);
  }
  std::array<double, kSpectrumParts> variances{};
  if (a.empty()) return variances;
  const std::vector<double> x = non_negative_least_squares(a, b);
  for (int j = 0; j < kSpectrumParts; ++j) variances[size_t(j)] = x[size_t(j)];
  return variances;
}

NoiseSpectrum spectrum_of(const std::array<double, kSpectrumParts>& variances) {
  double total = 0;
  for (double v : variances) total += v;
  NoiseSpectrum spectrum;
  if (!(total > 0)) return spectrum;
  for (int j = 0; j < kSpectrumParts; ++j) spectrum.shares[size_t(j)] = variances[size_t(j)] / total;
  return spectrum;
}

double part_covariance(int part, int scale, int dx, int dy) {
  // Any scale: the filters that denoise coarser scales than the estimator
  // reads ask for them (nlbayes' scales).
  if (part < 0 || part >= kSpectrumParts || scale < 0 || scale > 8)
    throw std::out_of_range("part_covariance: part or scale out of range");
  const PartCorrelation& c = parts()[size_t(part)];
  const int step = 1 << scale;
  auto axis = [&](int lag) {
    double sum = 0;
    for (int k = 0; k < step; ++k)
      for (int l = 0; l < step; ++l) sum += c.at(step * lag + l - k);
    return sum / double(step * step);
  };
  return axis(dx) * axis(dy);
}

}  // namespace edgewise
