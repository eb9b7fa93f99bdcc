#include "nlbayes_reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace edgewise_reference {

namespace {

// One channel of one scale, row-major.
struct Plane {
  int width = 0, height = 0;
  std::vector<double> values;
  Plane() = default;
  Plane(int w, int h, double fill = 0.0) : width(w), height(h), values(size_t(w) * size_t(h), fill) {}
  double& at(int x, int y) { return values[size_t(y) * size_t(width) + size_t(x)]; }
  double at(int x, int y) const { return values[size_t(y) * size_t(width) + size_t(x)]; }
};

struct Level {
  std::vector<Plane> colour;   // opponent channels (one for grey), code values
  Plane alpha;                 // 0..1
  std::vector<char> unstable;  // per pixel
  std::vector<double> bound;   // per pixel: float rounding's reach (NlBayesResult::bound), code values
  int width() const { return alpha.width; }
  int height() const { return alpha.height; }
};

// A sum v of `samples` squares whose float terms are each within
// e = tie_absolute / 2 of the double ones is within 2 e sqrt(|v| samples)
// + samples e^2 of v (Cauchy-Schwarz), and tie_relative |v| covers the
// sum's own rounding. The last term is what is left where v is 0: patches
// equal in double (a saturated area's flat means, exactly 255 in double and
// a few ulps under it in float, seed 7087953511464174886 of
// MatchesReferenceAwkwardSizes) are at distance 0 in double and at up to
// 1.5e-8 in float, ordered by rounding there, not by raster index; without
// it the margin of two zero distances was 0 and that tie went unflagged.
// It is 1e-6 for a 4 x 4 patch, 5e-6 for 3 x 5 x 5 samples.
double margin(const NlBayesSettings& s, double value, double samples) {
  return s.tie_relative * std::fabs(value) + s.tie_absolute * std::sqrt(std::fabs(value) * samples) +
         0.25 * s.tie_absolute * s.tie_absolute * samples;
}

// Closer than rounding can tell apart: a decision float rounding may take
// either way. (Equal values too: a float computation gives equal values
// only where it computed them from equal floats in the same order, which
// the caller knows.)
bool near_tie(const NlBayesSettings& s, double a, double b, double samples) {
  return std::fabs(a - b) < margin(s, std::max(std::fabs(a), std::fabs(b)), samples);
}

double noise_variance(const NlBayesNoise& noise, double intensity) {
  const std::vector<double>& x = noise.intensities;
  if (intensity <= x.front()) return noise.variances.front();
  for (size_t i = 1; i < x.size(); ++i)
    if (intensity <= x[i])
      return noise.variances[i - 1] +
             (intensity - x[i - 1]) / (x[i] - x[i - 1]) * (noise.variances[i] - noise.variances[i - 1]);
  return noise.variances.back();
}

double autocovariance(const NlBayesNoise& noise, int dx, int dy) {
  if (noise.autocovariance.empty()) return dx == 0 && dy == 0 ? 1.0 : 0.0;
  const int span = noise.span;
  if (std::abs(dx) >= span || std::abs(dy) >= span) return 0.0;
  return noise.autocovariance[size_t(dy + span - 1) * size_t(2 * span - 1) + size_t(dx + span - 1)];
}

// Reference positions along an axis of `size` pixels for patches of `patch`:
// every `step`, and the last position.
std::vector<int> grid(int size, int patch, int step) {
  std::vector<int> positions;
  for (int p = 0; p <= size - patch; p += step) positions.push_back(p);
  if (positions.back() != size - patch) positions.push_back(size - patch);
  return positions;
}

// Solves (M + ridge I) X = B in place for every column of B (dim x count,
// column k at B[k * dim]) by Cholesky; ridge = 1e-5 x M's mean diagonal +
// 1e-3 x the noise covariance's mean diagonal + 1e-6.
// Returns the condition number of M + ridge I: its largest eigenvalue over
// its smallest, each by power iteration (on the matrix and on its inverse).
double solve(std::vector<double> M, int dim, std::vector<double>& B, int count, double noise_diagonal) {
  auto at = [&](std::vector<double>& matrix, int i, int j) -> double& {
    return matrix[size_t(i) * size_t(dim) + size_t(j)];
  };
  double trace = 0.0;
  for (int i = 0; i < dim; ++i) trace += at(M, i, i);
  const double ridge = 1e-5 * trace / dim + 1e-3 * noise_diagonal + 1e-6;
  for (int i = 0; i < dim; ++i) at(M, i, i) += ridge;
  std::vector<double> A = M;
  for (int j = 0; j < dim; ++j) {  // M = L L^T, L in the lower triangle
    double d = at(M, j, j);
    for (int k = 0; k < j; ++k) d -= at(M, j, k) * at(M, j, k);
    d = std::sqrt(std::max(d, ridge));
    at(M, j, j) = d;
    for (int i = j + 1; i < dim; ++i) {
      double v = at(M, i, j);
      for (int k = 0; k < j; ++k) v -= at(M, i, k) * at(M, j, k);
      at(M, i, j) = v / d;
    }
  }
  auto cholesky_solve = [&](double* b) {
    for (int i = 0; i < dim; ++i) {
      for (int k = 0; k < i; ++k) b[i] -= at(M, i, k) * b[k];
      b[i] /= at(M, i, i);
    }
    for (int i = dim - 1; i >= 0; --i) {
      for (int k = i + 1; k < dim; ++k) b[i] -= at(M, k, i) * b[k];
      b[i] /= at(M, i, i);
    }
  };
  for (int c = 0; c < count; ++c) cholesky_solve(B.data() + size_t(c) * size_t(dim));
  // Power iterations from a vector with every component.
  auto largest_eigenvalue = [&](bool inverse) {
    std::vector<double> v(static_cast<size_t>(dim)), w(static_cast<size_t>(dim));
    for (int i = 0; i < dim; ++i) v[size_t(i)] = 1.0 + 0.1 * i;
    double value = 0.0;
    for (int iteration = 0; iteration < 60; ++iteration) {
      double norm = 0.0;
      for (double x : v) norm += x * x;
      norm = std::sqrt(norm);
      for (double& x : v) x /= norm;
      if (inverse) {
        w = v;
        cholesky_solve(w.data());
      } else {
        for (int i = 0; i < dim; ++i) {
          w[size_t(i)] = 0.0;
          for (int j = 0; j < dim; ++j) w[size_t(i)] += at(A, i, j) * v[size_t(j)];
        }
      }
      value = 0.0;
      for (int i = 0; i < dim; ++i) value += v[size_t(i)] * w[size_t(i)];
      v = w;
    }
    return value;
  };
  return largest_eigenvalue(false) * largest_eigenvalue(true);
}

struct Candidate {
  double distance;
  int index;  // raster order within the search window
  int x, y;
};

// One step on one scale: step 1 when `basic` is null (groups from the noisy
// luma, each channel estimated alone), step 2 otherwise (groups from the
// basic estimate, all channels jointly).
// Step 1's candidates on the finest scale are ordered by distances of the
// noisy luma; two candidates whose patches are equal in every opponent
// channel there came from equal input samples, so a float implementation
// computes equal distances for them too and orders them by raster index as
// the reference does. Elsewhere (step 2's basic estimate, a coarser
// scale's means) the values are computed: equal in double says nothing
// about their floats. `input`: this is the finest scale.
Level run_step(const Level& noisy, const Level* basic, const std::vector<NlBayesNoise>& noise, const NlBayesSettings& s,
               const NlBayesStep& step, bool input) {
  const int width = noisy.width(), height = noisy.height(), channels = int(noisy.colour.size());
  const bool second = basic != nullptr;
  const int p = std::min({step.patch, width, height}), n = p * p;
  const double luma_scale = channels == 3 ? 1.0 / std::sqrt(3.0) : 1.0;
  std::vector<Plane> numerator(size_t(channels), Plane(width, height));
  Plane denominator(width, height);
  std::vector<char> unstable(size_t(width) * size_t(height), 0);
  Plane bound_sum(width, height);
  const Level& guide = second ? *basic : noisy;
  const int searched_channels = second ? channels : 1;

  for (int ry : grid(height, p, step.step))
    for (int rx : grid(width, p, step.step)) {
      const int x0 = std::max(0, rx - step.search_radius), x1 = std::min(width - p, rx + step.search_radius);
      const int y0 = std::max(0, ry - step.search_radius), y1 = std::min(height - p, ry + step.search_radius);
      bool group_unstable = false;
      double basic_bound = 0.0;  // the largest rounding error in the guide the group reads
      if (second)
        for (int y = y0; y < y1 + p; ++y)
          for (int x = x0; x < x1 + p; ++x) {
            group_unstable |= basic->unstable[size_t(y) * size_t(width) + size_t(x)] != 0;
            basic_bound = std::max(basic_bound, basic->bound[size_t(y) * size_t(width) + size_t(x)]);
          }
      std::vector<Candidate> others;
      int index = 0;
      for (int qy = y0; qy <= y1; ++qy)
        for (int qx = x0; qx <= x1; ++qx, ++index) {
          if (qx == rx && qy == ry) continue;
          double d = 0.0;
          for (int c = 0; c < searched_channels; ++c)
            for (int ty = 0; ty < p; ++ty)
              for (int tx = 0; tx < p; ++tx) {
                const double diff =
                    guide.colour[size_t(c)].at(rx + tx, ry + ty) - guide.colour[size_t(c)].at(qx + tx, qy + ty);
                d += diff * diff;
              }
          others.push_back({d, index, qx, qy});
        }
      std::sort(others.begin(), others.end(), [](const Candidate& a, const Candidate& b) {
        return a.distance < b.distance || (a.distance == b.distance && a.index < b.index);
      });
      const double samples = double(n * searched_channels);
      int chosen = std::min(step.group - 1, int(others.size()));
      if (second) {
        const double tau = step.tau * samples;
        int closer = 0;
        for (const Candidate& q : others) {
          closer += q.distance < tau ? 1 : 0;
          group_unstable |= near_tie(s, q.distance, tau, samples);
        }
        chosen = std::min(std::max(closer, step.group - 1), std::min(step.group_max - 1, int(others.size())));
      }
      // The group is the float run's too unless a member and a candidate
      // left out are a near tie: every such pair across the boundary, not
      // only the last member and the first left out. Where those two are
      // equal patches (ordered alike both sides), a third just past them
      // may still be a near tie of both (seed 13451700962378914929 of
      // MatchesReferenceCorrelatedNoise: patches of zeros at one distance,
      // one of samples near 0.001 code values 1.2e-4 further in double, at
      // the same distance in float, where it goes first by raster index).
      auto same_patch = [&](const Candidate& a, const Candidate& b) {
        bool same = input && !second;
        for (int c = 0; c < channels && same; ++c)
          for (int ty = 0; ty < p && same; ++ty)
            for (int tx = 0; tx < p && same; ++tx)
              same = noisy.colour[size_t(c)].at(a.x + tx, a.y + ty) == noisy.colour[size_t(c)].at(b.x + tx, b.y + ty);
        return same;
      };
      for (int in = 0; in < chosen && !group_unstable; ++in)
        for (size_t out = size_t(chosen); out < others.size() && !group_unstable; ++out)
          group_unstable = near_tie(s, others[size_t(in)].distance, others[out].distance, samples) &&
                           !same_patch(others[size_t(in)], others[out]);
      // The members in raster order, the reference among them.
      std::vector<Candidate> members(others.begin(), others.begin() + chosen);
      members.push_back({0.0, (ry - y0) * (x1 - x0 + 1) + (rx - x0), rx, ry});
      std::sort(members.begin(), members.end(),
                [](const Candidate& a, const Candidate& b) { return a.index < b.index; });
      const int count = int(members.size());

      std::vector<double> weight(static_cast<size_t>(count));
      double weight_sum = 0.0;
      for (int m = 0; m < count; ++m) {
        double a = 0.0;
        for (int ty = 0; ty < p; ++ty)
          for (int tx = 0; tx < p; ++tx) a += noisy.alpha.at(members[size_t(m)].x + tx, members[size_t(m)].y + ty);
        weight[size_t(m)] = a / n;
        weight_sum += weight[size_t(m)];
      }
      if (!(weight_sum > 0.0)) continue;

      // patch[c][m * n + t]: noisy (and basic) samples of member m, channel c.
      auto gather = [&](const Level& level) {
        std::vector<std::vector<double>> patches(size_t(channels), std::vector<double>(size_t(count) * size_t(n)));
        for (int c = 0; c < channels; ++c)
          for (int m = 0; m < count; ++m)
            for (int ty = 0; ty < p; ++ty)
              for (int tx = 0; tx < p; ++tx)
                patches[size_t(c)][size_t(m) * size_t(n) + size_t(ty * p + tx)] =
                    level.colour[size_t(c)].at(members[size_t(m)].x + tx, members[size_t(m)].y + ty);
        return patches;
      };
      const std::vector<std::vector<double>> noisy_patches = gather(noisy);
      const std::vector<std::vector<double>> guide_patches = second ? gather(*basic) : noisy_patches;

      // The group's intensity, from the guide's luma; the noise there.
      double luma = 0.0;
      for (int m = 0; m < count; ++m)
        for (int t = 0; t < n; ++t) luma += weight[size_t(m)] * guide_patches[0][size_t(m) * size_t(n) + size_t(t)];
      const double intensity = luma / (weight_sum * n) * luma_scale;
      std::vector<double> variance(static_cast<size_t>(channels));
      for (int c = 0; c < channels; ++c) variance[size_t(c)] = noise_variance(noise[size_t(c)], intensity);

      // Flat-area test per channel on the noisy group: a channel whose
      // variance noise alone explains takes its mean (the noisy group's in
      // step 1, the basic group's in step 2).
      std::vector<double> flat_mean(static_cast<size_t>(channels)), guide_mean(static_cast<size_t>(channels));
      std::vector<char> flat(static_cast<size_t>(channels), 0);
      bool all_flat = true;
      for (int c = 0; c < channels; ++c) {
        double sum = 0.0, guide_sum = 0.0;
        for (int m = 0; m < count; ++m)
          for (int t = 0; t < n; ++t) {
            sum += weight[size_t(m)] * noisy_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)];
            guide_sum += weight[size_t(m)] * guide_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)];
          }
        flat_mean[size_t(c)] = sum / (weight_sum * n);
        guide_mean[size_t(c)] = guide_sum / (weight_sum * n);
        double squares = 0.0;
        for (int m = 0; m < count; ++m)
          for (int t = 0; t < n; ++t) {
            const double d = noisy_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)] - flat_mean[size_t(c)];
            squares += weight[size_t(m)] * d * d;
          }
        const double group_variance = squares / (weight_sum * n);
        const double threshold = (c == 0 ? s.flat_gamma_luma : s.flat_gamma_chroma) * s.strength * variance[size_t(c)];
        // A zero threshold (no noise, or strength 0) is no tie: no variance,
        // float or double, is below it.
        group_unstable |= threshold > 0.0 && near_tie(s, group_variance, threshold, 1.0);
        flat[size_t(c)] = group_variance < threshold;
        all_flat = all_flat && flat[size_t(c)];
      }

      // estimate[c][m * n + t]
      std::vector<std::vector<double>> estimate = noisy_patches;
      // Per member, what float rounding may move its estimate by: the
      // solve's relative error (condition number x dimension x 2^-24)
      // times the correction it is applied to, and in step 2 a multiple of
      // the guide's own error (it moves means, covariance and selection).
      std::vector<double> member_bound(static_cast<size_t>(count), 4.0 * basic_bound);
      const double rounding = std::ldexp(1.0, -24);
      const double unbiased = count > 1 ? double(count) / double(count - 1) : 1.0;
      auto noise_covariance = [&](int c, int i, int j) {
        return s.strength * step.beta * variance[size_t(c)] *
               autocovariance(noise[size_t(c)], j % p - i % p, j / p - i / p);
      };
      if (!all_flat && !second) {
        if (count >= n)
          for (int c = 0; c < channels; ++c) {
            if (flat[size_t(c)]) continue;
            const std::vector<double>& P = noisy_patches[size_t(c)];
            std::vector<double> mean(size_t(n), 0.0), cov(size_t(n) * size_t(n), 0.0);
            for (int m = 0; m < count; ++m)
              for (int t = 0; t < n; ++t) mean[size_t(t)] += weight[size_t(m)] * P[size_t(m) * size_t(n) + size_t(t)];
            for (double& v : mean) v /= weight_sum;
            std::vector<double> centred(size_t(count) * size_t(n));
            for (int m = 0; m < count; ++m)
              for (int t = 0; t < n; ++t)
                centred[size_t(m) * size_t(n) + size_t(t)] = P[size_t(m) * size_t(n) + size_t(t)] - mean[size_t(t)];
            for (int i = 0; i < n; ++i)
              for (int j = 0; j < n; ++j) {
                double v = 0.0;
                for (int m = 0; m < count; ++m)
                  v += weight[size_t(m)] * centred[size_t(m) * size_t(n) + size_t(i)] *
                       centred[size_t(m) * size_t(n) + size_t(j)];
                cov[size_t(i) * size_t(n) + size_t(j)] = v / weight_sum * unbiased;
              }
            std::vector<double> solved = centred;
            const double condition = solve(cov, n, solved, count, noise_covariance(c, 0, 0));
            // Centring rounds each deviation by about its mean's magnitude x
            // 2^-24 whatever the deviation's own size: the solve amplifies
            // that absolute error as it does the correction's relative one.
            double centring = 0.0;
            for (const double v : mean) centring = std::max(centring, std::fabs(v));
            for (int m = 0; m < count; ++m)
              for (int i = 0; i < n; ++i) {
                double correction = 0.0;
                for (int j = 0; j < n; ++j)
                  correction += noise_covariance(c, i, j) * solved[size_t(m) * size_t(n) + size_t(j)];
                estimate[size_t(c)][size_t(m) * size_t(n) + size_t(i)] =
                    P[size_t(m) * size_t(n) + size_t(i)] - correction;
                member_bound[size_t(m)] = std::max(member_bound[size_t(m)],
                                                   condition * n * rounding * (std::fabs(correction) + centring));
              }
          }
      } else if (!all_flat) {
        const int dim = channels * n;
        std::vector<double> noisy_mean(size_t(dim), 0.0), basic_mean(size_t(dim), 0.0);
        for (int c = 0; c < channels; ++c)
          for (int m = 0; m < count; ++m)
            for (int t = 0; t < n; ++t) {
              noisy_mean[size_t(c * n + t)] +=
                  weight[size_t(m)] * noisy_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)];
              basic_mean[size_t(c * n + t)] +=
                  weight[size_t(m)] * guide_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)];
            }
        for (int i = 0; i < dim; ++i) {
          noisy_mean[size_t(i)] /= weight_sum;
          basic_mean[size_t(i)] /= weight_sum;
        }
        std::vector<double> residual(size_t(count) * size_t(dim)), basic_centred(size_t(count) * size_t(dim));
        for (int c = 0; c < channels; ++c)
          for (int m = 0; m < count; ++m)
            for (int t = 0; t < n; ++t) {
              residual[size_t(m) * size_t(dim) + size_t(c * n + t)] =
                  noisy_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)] - noisy_mean[size_t(c * n + t)];
              basic_centred[size_t(m) * size_t(dim) + size_t(c * n + t)] =
                  guide_patches[size_t(c)][size_t(m) * size_t(n) + size_t(t)] - basic_mean[size_t(c * n + t)];
            }
        std::vector<double> system(size_t(dim) * size_t(dim), 0.0);
        for (int i = 0; i < dim; ++i)
          for (int j = 0; j < dim; ++j) {
            double v = 0.0;
            for (int m = 0; m < count; ++m)
              v += weight[size_t(m)] * basic_centred[size_t(m) * size_t(dim) + size_t(i)] *
                   basic_centred[size_t(m) * size_t(dim) + size_t(j)];
            v = v / weight_sum * unbiased;
            if (i / n == j / n) v += noise_covariance(i / n, i % n, j % n);
            system[size_t(i) * size_t(dim) + size_t(j)] = v;
          }
        std::vector<double> solved = residual;
        double noise_diagonal = 0.0;
        for (int c = 0; c < channels; ++c) noise_diagonal += noise_covariance(c, 0, 0) / channels;
        const double condition = solve(system, dim, solved, count, noise_diagonal);
        double centring = 0.0;  // as in step 1
        for (const double v : noisy_mean) centring = std::max(centring, std::fabs(v));
        for (int m = 0; m < count; ++m)
          for (int i = 0; i < dim; ++i) {
            const int c = i / n;
            double correction = 0.0;
            for (int j = c * n; j < (c + 1) * n; ++j)
              correction += noise_covariance(c, i % n, j % n) * solved[size_t(m) * size_t(dim) + size_t(j)];
            member_bound[size_t(m)] = std::max(member_bound[size_t(m)],
                                               condition * dim * rounding * (std::fabs(correction) + centring));
            estimate[size_t(c)][size_t(m) * size_t(n) + size_t(i % n)] =
                noisy_patches[size_t(c)][size_t(m) * size_t(n) + size_t(i % n)] - correction;
          }
      }
      for (int c = 0; c < channels; ++c)
        if (flat[size_t(c)])
          std::fill(estimate[size_t(c)].begin(), estimate[size_t(c)].end(),
                    second ? guide_mean[size_t(c)] : flat_mean[size_t(c)]);

      for (int m = 0; m < count; ++m)
        for (int ty = 0; ty < p; ++ty)
          for (int tx = 0; tx < p; ++tx) {
            const int x = members[size_t(m)].x + tx, y = members[size_t(m)].y + ty;
            for (int c = 0; c < channels; ++c)
              numerator[size_t(c)].at(x, y) +=
                  weight[size_t(m)] * estimate[size_t(c)][size_t(m) * size_t(n) + size_t(ty * p + tx)];
            denominator.at(x, y) += weight[size_t(m)];
            bound_sum.at(x, y) += weight[size_t(m)] * member_bound[size_t(m)];
          }
      // Where a decision was a near tie, the float run's group may hold any
      // candidate the reference's does not: every pixel of the window.
      if (group_unstable)
        for (int y = y0; y < y1 + p; ++y)
          for (int x = x0; x < x1 + p; ++x) unstable[size_t(y) * size_t(width) + size_t(x)] = 1;
    }

  Level out;
  out.alpha = noisy.alpha;
  out.unstable = unstable;
  out.bound.assign(size_t(width) * size_t(height), 0.0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (denominator.at(x, y) > 0.0)
        out.bound[size_t(y) * size_t(width) + size_t(x)] = bound_sum.at(x, y) / denominator.at(x, y);
  for (int c = 0; c < channels; ++c) {
    Plane plane(width, height);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        plane.at(x, y) = denominator.at(x, y) > 0.0 ? numerator[size_t(c)].at(x, y) / denominator.at(x, y)
                                                    : noisy.colour[size_t(c)].at(x, y);
    out.colour.push_back(plane);
  }
  return out;
}

// The 2x2 mean of the pixels of each block inside the image.
Plane downsample(const Plane& fine) {
  Plane coarse((fine.width + 1) / 2, (fine.height + 1) / 2);
  for (int y = 0; y < coarse.height; ++y)
    for (int x = 0; x < coarse.width; ++x) {
      double sum = 0.0;
      int count = 0;
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx)
          if (2 * x + dx < fine.width && 2 * y + dy < fine.height) {
            sum += fine.at(2 * x + dx, 2 * y + dy);
            ++count;
          }
      coarse.at(x, y) = sum / count;
    }
  return coarse;
}

// Bilinear, pixel centres aligned (fine x + 0.5 = 2 (coarse u + 0.5)): taps
// floor(x / 2 - 0.25) and the next, weights 0.75 / 0.25, clamped to the edge.
void taps(int x, int coarse_size, int& first, int& second, double& weight_first) {
  const int base = x % 2 == 0 ? x / 2 - 1 : (x - 1) / 2;
  weight_first = x % 2 == 0 ? 0.25 : 0.75;
  first = std::clamp(base, 0, coarse_size - 1);
  second = std::clamp(base + 1, 0, coarse_size - 1);
}

Level denoise_level(const Level& noisy, const std::vector<NlBayesNoise>& noise, const NlBayesSettings& s,
                    const Level* given_basic, bool input) {
  const Level basic = given_basic ? *given_basic : run_step(noisy, nullptr, noise, s, s.first, input);
  if (s.steps == 1) return basic;
  return run_step(noisy, &basic, noise, s, s.second, input);
}

// Denoises level `scale` of the pyramid whose finest given level is `noisy`
// and recombines with the coarser levels (Noise Clinic): out = D + U(out' - Dn(D)).
// `basics`: the given step-2 guides of the first basics.size() scales.
Level multiscale(const Level& noisy, const NlBayesSettings& s, int scale, const std::vector<Level>& basics) {
  const Level* given = size_t(scale) < basics.size() ? &basics[size_t(scale)] : nullptr;
  if (given && (given->width() != noisy.width() || given->height() != noisy.height() ||
                given->colour.size() != noisy.colour.size()))
    throw std::invalid_argument("nlbayes_reference: the basic estimate of scale " + std::to_string(scale) + " is " +
                                std::to_string(given->width()) + "x" + std::to_string(given->height()) + "x" +
                                std::to_string(given->colour.size()) + ", the scale " + std::to_string(noisy.width()) +
                                "x" + std::to_string(noisy.height()) + "x" + std::to_string(noisy.colour.size()));
  Level denoised = denoise_level(noisy, s.noise[size_t(scale)], s, given, scale == 0);
  if (scale + 1 == s.scales) return denoised;
  Level coarse_noisy;
  for (const Plane& plane : noisy.colour) coarse_noisy.colour.push_back(downsample(plane));
  coarse_noisy.alpha = downsample(noisy.alpha);
  coarse_noisy.unstable.assign(size_t(coarse_noisy.width()) * size_t(coarse_noisy.height()), 0);
  coarse_noisy.bound.assign(coarse_noisy.unstable.size(), 0.0);
  const Level coarse = multiscale(coarse_noisy, s, scale + 1, basics);
  const int width = noisy.width(), height = noisy.height();
  const int cw = coarse.width(), ch = coarse.height();
  // Instability of the downsampled denoised level and of the coarse result.
  std::vector<char> coarse_unstable(size_t(cw) * size_t(ch), 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (denoised.unstable[size_t(y) * size_t(width) + size_t(x)])
        coarse_unstable[size_t(y / 2) * size_t(cw) + size_t(x / 2)] = 1;
  for (size_t i = 0; i < coarse_unstable.size(); ++i) coarse_unstable[i] |= coarse.unstable[i];
  // The rounding bound of the coarse difference: the coarse result's and
  // the largest of the denoised pixels its block holds.
  std::vector<double> coarse_bound = coarse.bound;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double& b = coarse_bound[size_t(y / 2) * size_t(cw) + size_t(x / 2)];
      b = std::max(b, coarse.bound[size_t(y / 2) * size_t(cw) + size_t(x / 2)] +
                          denoised.bound[size_t(y) * size_t(width) + size_t(x)]);
    }
  Level out = denoised;
  for (size_t c = 0; c < noisy.colour.size(); ++c) {
    const Plane low = downsample(denoised.colour[c]);
    Plane difference(cw, ch);
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < cw; ++x) difference.at(x, y) = coarse.colour[c].at(x, y) - low.at(x, y);
    for (int y = 0; y < height; ++y) {
      int y_first, y_second;
      double wy;
      taps(y, ch, y_first, y_second, wy);
      for (int x = 0; x < width; ++x) {
        int x_first, x_second;
        double wx;
        taps(x, cw, x_first, x_second, wx);
        const double up =
            wy * (wx * difference.at(x_first, y_first) + (1 - wx) * difference.at(x_second, y_first)) +
            (1 - wy) * (wx * difference.at(x_first, y_second) + (1 - wx) * difference.at(x_second, y_second));
        out.colour[c].at(x, y) += up;
        if (c == 0) {
          double largest = 0.0;
          for (int yy : {y_first, y_second})
            for (int xx : {x_first, x_second}) {
              if (coarse_unstable[size_t(yy) * size_t(cw) + size_t(xx)])
                out.unstable[size_t(y) * size_t(width) + size_t(x)] = 1;
              largest = std::max(largest, coarse_bound[size_t(yy) * size_t(cw) + size_t(xx)]);
            }
          out.bound[size_t(y) * size_t(width) + size_t(x)] += largest;
        }
      }
    }
  }
  return out;
}

// The image in the opponent space, code values.
Level opponent_level(const ReferenceImage& input) {
  const int width = input.width, height = input.height;
  const bool has_alpha = input.channels == 2 || input.channels == 4;
  const int colours = input.channels >= 3 ? 3 : 1;
  Level level;
  level.colour.assign(size_t(colours), Plane(width, height));
  level.alpha = Plane(width, height, 1.0);
  level.unstable.assign(size_t(width) * size_t(height), 0);
  level.bound.assign(size_t(width) * size_t(height), 0.0);
  const double r3 = std::sqrt(3.0), r2 = std::sqrt(2.0), r6 = std::sqrt(6.0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      if (colours == 3) {
        const double r = 255.0 * input.at(x, y, 0), g = 255.0 * input.at(x, y, 1), b = 255.0 * input.at(x, y, 2);
        level.colour[0].at(x, y) = (r + g + b) / r3;
        level.colour[1].at(x, y) = (r - b) / r2;
        level.colour[2].at(x, y) = (r - 2.0 * g + b) / r6;
      } else {
        level.colour[0].at(x, y) = 255.0 * input.at(x, y, 0);
      }
      if (has_alpha) level.alpha.at(x, y) = input.at(x, y, colours);
    }
  return level;
}

// A given basic estimate as a level: exact (stable, bound 0); its alpha
// holds its size only (step 2 weighs members by the noisy level's alpha).
Level given_level(const NlBayesBasic& basic) {
  Level level;
  level.alpha = Plane(basic.width, basic.height, 1.0);
  const size_t pixels = size_t(basic.width) * size_t(basic.height);
  for (const std::vector<double>& values : basic.planes) {
    if (values.size() != pixels)
      throw std::invalid_argument("nlbayes_reference: a basic estimate's plane holds " + std::to_string(values.size()) +
                                  " samples for " + std::to_string(basic.width) + "x" + std::to_string(basic.height));
    Plane plane(basic.width, basic.height);
    plane.values = values;
    level.colour.push_back(plane);
  }
  level.unstable.assign(pixels, 0);
  level.bound.assign(pixels, 0.0);
  return level;
}

// The finest level's result back in the input's channels, 0-1.
NlBayesResult to_result(const ReferenceImage& input, const Level& out) {
  const int width = input.width, height = input.height;
  const int colours = input.channels >= 3 ? 3 : 1;
  const double r3 = std::sqrt(3.0), r2 = std::sqrt(2.0), r6 = std::sqrt(6.0);
  NlBayesResult result;
  result.image = input;
  result.stable.assign(input.samples.size(), 1);
  result.bound.assign(input.samples.size(), 0.0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      if (colours == 3) {
        const double Y = out.colour[0].at(x, y) / r3, c1 = out.colour[1].at(x, y) / r2,
                     c2 = out.colour[2].at(x, y) / r6;
        result.image.at(x, y, 0) = (Y + c1 + c2) / 255.0;
        result.image.at(x, y, 1) = (Y - 2.0 * c2) / 255.0;
        result.image.at(x, y, 2) = (Y - c1 + c2) / 255.0;
      } else {
        result.image.at(x, y, 0) = out.colour[0].at(x, y) / 255.0;
      }
      for (int c = 0; c < colours; ++c) {
        const size_t i = (size_t(y) * size_t(width) + size_t(x)) * size_t(input.channels) + size_t(c);
        if (out.unstable[size_t(y) * size_t(width) + size_t(x)]) result.stable[i] = 0;
        // An RGB sample mixes the three opponent channels (|rows| sum below 1.7).
        result.bound[i] = std::min(kMaxRoundingBound,
                                   (colours == 3 ? 1.7 : 1.0) * out.bound[size_t(y) * size_t(width) + size_t(x)] / 255.0);
      }
    }
  return result;
}

}  // namespace

NlBayesResult nlbayes_reference(const ReferenceImage& input, const NlBayesSettings& settings,
                                const ReferenceImage* basic) {
  std::vector<Level> basics;
  if (basic) basics.push_back(opponent_level(*basic));
  return to_result(input, multiscale(opponent_level(input), settings, 0, basics));
}

NlBayesResult nlbayes_reference(const ReferenceImage& input, const NlBayesSettings& settings,
                                const std::vector<NlBayesBasic>& basics) {
  if (int(basics.size()) != settings.scales)
    throw std::invalid_argument("nlbayes_reference: " + std::to_string(basics.size()) + " basic estimates for " +
                                std::to_string(settings.scales) + " scales");
  std::vector<Level> levels;
  for (const NlBayesBasic& basic : basics) levels.push_back(given_level(basic));
  return to_result(input, multiscale(opponent_level(input), settings, 0, levels));
}

}  // namespace edgewise_reference
