#include "reference/pyramid_reference.h"

#include <cmath>

#include "reference/lab_reference.h"

namespace edgewise_reference {

namespace {

const double kBinomial[5] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};

struct Plane {
  int width = 0, height = 0;
  std::vector<double> v;
  Plane(int w, int h) : width(w), height(h), v(std::size_t(w) * std::size_t(h), 0.0) {}
  double& at(int x, int y) { return v[std::size_t(y) * std::size_t(width) + std::size_t(x)]; }
  double clamped(int x, int y) const {
    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
    y = y < 0 ? 0 : (y >= height ? height - 1 : y);
    return v[std::size_t(y) * std::size_t(width) + std::size_t(x)];
  }
};

// The 2-D binomial at every second sample.
Plane reduce(const Plane& in) {
  Plane out((in.width + 1) / 2, (in.height + 1) / 2);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      double sum = 0.0;
      for (int t = -2; t <= 2; ++t)
        for (int s = -2; s <= 2; ++s) sum += kBinomial[t + 2] * kBinomial[s + 2] * in.clamped(2 * x + s, 2 * y + t);
      out.at(x, y) = sum;
    }
  return out;
}

// 4 sum_{i,j} w(x - 2i) w(y - 2j) in(i, j), coarse indices clamped.
Plane expand(const Plane& in, int width, int height) {
  Plane out(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double sum = 0.0;
      for (int j = y / 2 - 2; j <= y / 2 + 2; ++j) {
        const int ty = y - 2 * j;
        if (ty < -2 || ty > 2) continue;
        for (int i = x / 2 - 2; i <= x / 2 + 2; ++i) {
          const int tx = x - 2 * i;
          if (tx < -2 || tx > 2) continue;
          sum += 4.0 * kBinomial[tx + 2] * kBinomial[ty + 2] * in.clamped(i, j);
        }
      }
      out.at(x, y) = sum;
    }
  return out;
}

// The bilateral filter of one level: colour planes (in working units:
// code values / 255 in 0..1, or Lab), alpha weights (null: 1).
std::vector<Plane> bilateral(const std::vector<Plane>& colour, const Plane* alpha, const PyramidSettings& s,
                             double sigma_r, bool lab) {
  const int w = colour[0].width, h = colour[0].height, r = s.radius, channels = int(colour.size());
  const double unit = lab ? 1.0 : 255.0;
  const bool joint = s.mode != Mode::per_channel || channels == 1;
  std::vector<Plane> out(colour);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int g = 0; g < (joint ? 1 : channels); ++g) {
        double sum[3] = {0, 0, 0}, weights = 0.0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            double d2 = 0.0;
            for (int c = 0; c < channels; ++c) {
              if (!joint && c != g) continue;
              const double d =
                  (colour[std::size_t(c)].clamped(x + dx, y + dy) - colour[std::size_t(c)].clamped(x, y)) * unit;
              d2 += d * d;
            }
            const double weight = std::exp(-double(dx * dx + dy * dy) / (2.0 * s.sigma_s * s.sigma_s)) *
                                  range_weight(s.kernel, std::sqrt(d2), sigma_r) *
                                  (alpha ? alpha->clamped(x + dx, y + dy) : 1.0);
            weights += weight;
            for (int c = 0; c < channels; ++c) sum[c] += weight * colour[std::size_t(c)].clamped(x + dx, y + dy);
          }
        if (!(weights > 0.0)) continue;
        for (int c = 0; c < channels; ++c)
          if (joint || c == g) out[std::size_t(c)].at(x, y) = sum[c] / weights;
      }
  return out;
}

// The 1-D responses at level k, phases 0 and 1 (positions centre and
// centre + 1 of that level), of G_k (`gaussian`) and of EXPAND(G_{k+1})
// (`expanded`, empty for the top level) to an impulse at each image sample.
struct Responses {
  std::vector<double> gaussian[2], expanded[2];
};

Responses level_responses(int levels, int k) {
  const int centre = 4 << levels, length = 2 * centre + 1;
  Responses r;
  for (int p = 0; p < 2; ++p) {
    r.gaussian[p].assign(std::size_t(length), 0.0);
    if (k + 1 < levels) r.expanded[p].assign(std::size_t(length), 0.0);
  }
  const int at = (centre >> k);
  for (int u = 0; u < length; ++u) {
    Plane level(length, 1);
    level.at(u, 0) = 1.0;
    for (int i = 0; i < k; ++i) level = reduce(level);
    for (int p = 0; p < 2; ++p) r.gaussian[p][std::size_t(u)] = level.at(at + p, 0);
    if (k + 1 < levels) {
      const Plane e = expand(reduce(level), level.width, 1);
      for (int p = 0; p < 2; ++p) r.expanded[p][std::size_t(u)] = e.v[std::size_t(at + p)];
    }
  }
  return r;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

std::vector<double> pyramid_gains_reference(int levels, bool gaussian_guide) {
  std::vector<double> gains;
  for (int k = 0; k < levels; ++k) {
    const Responses r = level_responses(levels, k);
    const double gg = dot(r.gaussian[0], r.gaussian[0]);
    if (gaussian_guide || k + 1 == levels) {
      gains.push_back(gg);  // sqrt(|a|^4)
      continue;
    }
    double variance = 0.0;
    for (int p = 0; p < 2; ++p)
      for (int q = 0; q < 2; ++q)
        variance += dot(r.gaussian[p], r.gaussian[p]) * dot(r.gaussian[q], r.gaussian[q]) -
                    2.0 * dot(r.gaussian[p], r.expanded[p]) * dot(r.gaussian[q], r.expanded[q]) +
                    dot(r.expanded[p], r.expanded[p]) * dot(r.expanded[q], r.expanded[q]);
    gains.push_back(std::sqrt(variance / 4.0));
  }
  return gains;
}

ReferenceImage pyramid_reference(const ReferenceImage& input, const PyramidSettings& s) {
  const int colours = input.channels >= 3 ? 3 : 1;
  const bool alpha = input.channels == 2 || input.channels == 4;
  const bool lab = s.mode == Mode::lab && colours == 3;
  std::vector<Plane> base(std::size_t(colours), Plane(input.width, input.height));
  Plane base_alpha(input.width, input.height);
  for (int y = 0; y < input.height; ++y)
    for (int x = 0; x < input.width; ++x) {
      double rgb[3];
      for (int c = 0; c < colours; ++c) rgb[c] = input.at(x, y, c);
      if (lab) rgb_to_lab(rgb, rgb);
      for (int c = 0; c < colours; ++c) base[std::size_t(c)].at(x, y) = rgb[c];
      base_alpha.at(x, y) = alpha ? input.at(x, y, colours) : 1.0;
    }

  const std::vector<double> gains = pyramid_gains_reference(s.levels, s.gaussian_guide);
  // Gaussian pyramids of the colours and of alpha.
  std::vector<std::vector<Plane>> gaussian{base};
  std::vector<Plane> gaussian_alpha{base_alpha};
  for (int k = 1; k < s.levels; ++k) {
    std::vector<Plane> next;
    for (const Plane& p : gaussian.back()) next.push_back(reduce(p));
    gaussian.push_back(next);
    gaussian_alpha.push_back(reduce(gaussian_alpha.back()));
  }
  // Each level filtered, collapsed from the top.
  std::vector<Plane> result;
  for (int k = s.levels - 1; k >= 0; --k) {
    const std::vector<Plane>& level_gaussian = gaussian[std::size_t(k)];
    const int w = level_gaussian[0].width, h = level_gaussian[0].height;
    std::vector<Plane> expanded;  // EXPAND(G_{k+1})
    if (k + 1 < s.levels)
      for (int c = 0; c < colours; ++c) expanded.push_back(expand(gaussian[std::size_t(k) + 1][std::size_t(c)], w, h));
    std::vector<Plane> level = level_gaussian;  // what the passes weigh and average
    if (!expanded.empty() && !s.gaussian_guide)
      for (int c = 0; c < colours; ++c)
        for (std::size_t i = 0; i < level[0].v.size(); ++i) level[std::size_t(c)].v[i] -= expanded[std::size_t(c)].v[i];
    std::vector<Plane> filtered = level;
    // sigma_r(k) = sigma-r gain(k) strength, x coarse strength from level 1;
    // lab: L* at x luminance strength, a*b* at x colour strength, one pass
    // when the two agree; a grey image in lab mode: x luminance strength.
    const double level_strength = s.strength * (k > 0 ? s.coarse_strength : 1.0);
    const double base = s.sigma_r * gains[std::size_t(k)];
    struct Pass {
      double strength;
      int first, count;
    };
    std::vector<Pass> passes;
    if (!lab) {
      passes.push_back({level_strength * (s.mode == Mode::lab ? s.luma_strength : 1.0), 0, colours});
    } else if (s.luma_strength == s.chroma_strength) {
      passes.push_back({level_strength * s.luma_strength, 0, 3});
    } else {
      passes.push_back({level_strength * s.luma_strength, 0, 1});
      passes.push_back({level_strength * s.chroma_strength, 1, 2});
    }
    for (const Pass& pass : passes) {
      if (!(pass.strength > 0)) continue;  // strength 0 keeps the level
      const std::vector<Plane> out =
          bilateral(level, alpha ? &gaussian_alpha[std::size_t(k)] : nullptr, s, base * pass.strength, lab);
      for (int c = pass.first; c < pass.first + pass.count; ++c) filtered[std::size_t(c)] = out[std::size_t(c)];
    }
    if (!expanded.empty() && s.gaussian_guide)
      for (int c = 0; c < colours; ++c)
        for (std::size_t i = 0; i < level[0].v.size(); ++i)
          filtered[std::size_t(c)].v[i] -= expanded[std::size_t(c)].v[i];
    if (!result.empty())
      for (int c = 0; c < colours; ++c) {
        const Plane e = expand(result[std::size_t(c)], w, h);
        for (std::size_t i = 0; i < e.v.size(); ++i) filtered[std::size_t(c)].v[i] += e.v[i];
      }
    result = filtered;
  }

  ReferenceImage out = input;
  for (int y = 0; y < input.height; ++y)
    for (int x = 0; x < input.width; ++x) {
      double v[3];
      for (int c = 0; c < colours; ++c) v[c] = result[std::size_t(c)].at(x, y);
      if (lab) lab_to_rgb(v, v);
      for (int c = 0; c < colours; ++c) out.at(x, y, c) = v[c];
    }
  return out;
}

std::vector<double> laplacian_level_reference(const std::vector<double>& image, int width, int height, int levels,
                                              int k, int& level_width, int& level_height) {
  Plane p(width, height);
  p.v = image;
  std::vector<Plane> gaussian{p};
  for (int i = 1; i <= k + 1 && i < levels; ++i) gaussian.push_back(reduce(gaussian.back()));
  Plane level = gaussian[std::size_t(k)];
  if (k + 1 < levels) {
    const Plane e = expand(gaussian[std::size_t(k) + 1], level.width, level.height);
    for (std::size_t i = 0; i < e.v.size(); ++i) level.v[i] -= e.v[i];
  }
  level_width = level.width;
  level_height = level.height;
  return level.v;
}

}  // namespace edgewise_reference
