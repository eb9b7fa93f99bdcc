#include "clipped_noise.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace edgewise {

namespace {

constexpr double kHigh = 255.0;
constexpr double kNearLimit = 6.0;  // sigmas from a limit within which clipping is modelled
constexpr double kPi = 3.14159265358979323846;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * kPi); }

// Newton within a bracket: the clipped mean grows monotonically with mu.
Unclipped solve(double mean, double sigma, const ClipLimits& limits) {
  double lower = -8 * sigma, upper = kHigh + 8 * sigma, mu = mean;
  ClippedMoments moments{};
  for (int step = 0; step < 60; ++step) {
    moments = clipped_moments(mu, sigma, limits);
    const double error = moments.mean - mean;
    if (std::abs(error) < 1e-9 * sigma) break;
    (error > 0 ? upper : lower) = mu;
    const double next = moments.slope > 1e-12 ? mu - error / moments.slope : (lower + upper) / 2;
    mu = next > lower && next < upper ? next : (lower + upper) / 2;
  }
  return {mu, moments.variance / (sigma * sigma)};
}

// Near one limit only, mu's distance from it and the share depend on the
// mean's distance from it in sigmas alone: tabulated once, since the
// estimator asks for every block anew at each level it tries.
struct OneLimitTable {
  static constexpr double kStep = 1.0 / 64;
  std::vector<double> distance, share;  // by the mean's distance / kStep

  OneLimitTable() {
    for (int i = 0; i * kStep <= kNearLimit + kStep; ++i) {
      const Unclipped exact = solve(std::max(i * kStep, 1e-9), 1.0, ClipLimits{true, false});
      distance.push_back(exact.mu);
      share.push_back(exact.share);
    }
  }
};

}  // namespace

ClippedMoments clipped_moments(double mu, double sigma, const ClipLimits& limits) {
  // a, b: the limits in sigmas from mu; a limit not reached is far away.
  const double a = limits.low ? -mu / sigma : -40.0, b = limits.high ? (kHigh - mu) / sigma : 40.0;
  const double above = 1.0 - normal_cdf(b), inside = normal_cdf(b) - normal_cdf(a);
  const double pa = normal_pdf(a), pb = normal_pdf(b);
  // E[clamp(x)] and E[clamp(x)^2]: the limits' probability masses plus the
  // normal's first two moments over (a, b).
  const double mean = kHigh * above + mu * inside + sigma * (pa - pb);
  const double square = kHigh * kHigh * above + (mu * mu + sigma * sigma) * inside + 2 * mu * sigma * (pa - pb) +
                        sigma * sigma * (a * pa - b * pb);
  return {mean, std::max(0.0, square - mean * mean), inside};
}

Unclipped unclip(double mean, double sigma, const ClipLimits& limits) {
  const bool near_low = limits.low && mean < kNearLimit * sigma;
  const bool near_high = limits.high && mean > kHigh - kNearLimit * sigma;
  if (!near_low && !near_high) return {mean, 1.0};
  if ((limits.low && mean <= 0.0) || (limits.high && mean >= kHigh) || sigma <= 0.0) return {mean, 0.0};
  if (near_low && near_high) return solve(mean, sigma, limits);
  static const OneLimitTable table;
  const double position = (near_low ? mean : kHigh - mean) / sigma / OneLimitTable::kStep;
  const size_t index = std::min(size_t(position), table.distance.size() - 2);
  const double t = position - double(index);
  const double distance = table.distance[index] + t * (table.distance[index + 1] - table.distance[index]);
  const double share = table.share[index] + t * (table.share[index + 1] - table.share[index]);
  return {near_low ? sigma * distance : kHigh - sigma * distance, share};
}

}  // namespace edgewise
