// Weak-texture blocks of one plane (Liu, Tanaka & Okutomi 2013/2014)
// measured with Immerkaer's kernel: see noise_estimate.h for the method and
// why, docs/quality.md for its accuracy.
#include "noise_blocks.h"

#include <algorithm>
#include <cmath>

#include "noise_estimate.h"

namespace edgewise::noise_blocks {

namespace {

// The texture test's quantile of pure noise (a standard normal's z): 99 %
// where the level is calibrated on the blocks' own strength, as Liu et al.
constexpr double kCalibrationZ = 2.326347874;  // 99 %
// In a bin whose level is predicted from Immerkaer's reading (white-like
// noise), 95 %: the decorrelated test allows it, and on pure noise it
// costs blocks, not accuracy, while it keeps fewer texture-laden ones
// (8-bit noise added to tests/data's photos and skimage's coffee, four
// seeds, before the neighbour rule below: the grey photo's worst
// white-noise channel went from +10.2 % to +4.1 %, coffee's worst
// Poisson-Gaussian bin from +62 % to +39 %).
constexpr double kBinZ = 1.644853627;
constexpr int kCandidatesPerBin = 64;          // fewer bins on images with fewer blocks
constexpr int kMaxIterations = 60;
constexpr double kSettled = 1e-4;  // relative change of the level that ends the iterations

// Liu et al.'s texture strength is a patch's gradient energy. Here it is
// taken on the image smoothed by a 2x2 box (per pixel: the differences of
// two-row sums across three columns, and of two-column sums across three
// rows), whose frequency response vanishes where Immerkaer's kernel
// measures: the test then hardly selects on the noise the kernel sees.
// With plain differences the two energies correlate at 0.76 for pure
// noise and the kept blocks read low (-20 % on a bin keeping half its
// blocks); with the smoothed ones at 0.10 (-2.5 %; measured on 200 000
// simulated blocks). The gradients' deviations from their block means are
// used, so a smooth ramp, which Immerkaer's kernel cancels, is no texture.
//
// For a block of pure white noise of variance v the strength is the
// quadratic form n^T A n (A: the centred differences' Gram matrix), of
// mean v tr(A) and variance 2 v^2 tr(A^2): a gamma distribution of shape
// tr(A)^2 / (2 tr(A^2)) and scale v * 2 tr(A^2) / tr(A) matches both (Liu
// et al. match the mean only). Its quantile: Wilson-Hilferty.
struct GradientLaw {
  double shape = 0;
  double mean_per_variance = 0;  // tr(A)
  double scale_per_variance = 0;
  std::vector<double> gram;  // A, over the kSupport x kSupport pixels

  GradientLaw() {
    constexpr int side = kSupport;
    constexpr int pixels = side * side;
    constexpr int count = kBlock * kBlock;
    gram.assign(pixels * pixels, 0.0);
    for (int direction = 0; direction < 2; ++direction) {
      std::vector<std::vector<double>> differences;
      std::vector<double> mean(pixels, 0.0);
      for (int y = 1; y <= kBlock; ++y)
        for (int x = 1; x <= kBlock; ++x) {
          std::vector<double> d(pixels, 0.0);
          if (direction == 0) {  // columns x + 1 and x - 1 over rows y - 1 and y
            for (int row : {y - 1, y}) {
              d[row * side + x + 1] += 1;
              d[row * side + x - 1] -= 1;
            }
          } else {  // rows y + 1 and y - 1 over columns x - 1 and x
            for (int column : {x - 1, x}) {
              d[(y + 1) * side + column] += 1;
              d[(y - 1) * side + column] -= 1;
            }
          }
          for (int i = 0; i < pixels; ++i) mean[i] += d[i] / count;
          differences.push_back(d);
        }
      for (auto& d : differences)
        for (int i = 0; i < pixels; ++i) d[i] -= mean[i];
      for (const auto& d : differences)
        for (int i = 0; i < pixels; ++i)
          for (int j = 0; j < pixels; ++j) gram[i * pixels + j] += d[i] * d[j];
    }
    double trace = 0, trace_of_square = 0;
    for (int i = 0; i < pixels; ++i) trace += gram[i * pixels + i];
    for (double value : gram) trace_of_square += value * value;  // A is symmetric
    shape = trace * trace / (2 * trace_of_square);
    mean_per_variance = trace;
    scale_per_variance = 2 * trace_of_square / trace;
  }
  // The strength noise of variance 1 stays below with the normal quantile
  // z's probability (Wilson-Hilferty).
  double quantile(double z) const {
    const double cube = 1 - 1 / (9 * shape) + z / (3 * std::sqrt(shape));
    return shape * cube * cube * cube * scale_per_variance;
  }
};

const GradientLaw& gradient_law() {
  static const GradientLaw law;
  return law;
}

// At least half of the block's neighbours are as flat as the threshold:
// texture covers areas, so a block that passes alone among textured
// neighbours is likely texture that the test missed by chance. A
// neighbour's noise is independent of the block's, so this costs pure
// noise nothing. (Measured with 8-bit noise on tests/data's photos and skimage's
// coffee, four seeds: the worst Poisson-Gaussian bin
// of the grey photo's grass went from +18 % to +17 %, coffee's from +39 %
// to +29 %.)
bool neighbours_flat(const BlockStats* block, const BlockGrid& grid, double threshold) {
  const long index = block - grid.blocks.data();
  const int bx = int(index % grid.width), by = int(index / grid.width);
  const int height = int(grid.rows.size());
  int flat = 0, present = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int x = bx + dx, y = by + dy;
      if ((dx == 0 && dy == 0) || x < 0 || y < 0 || x >= grid.width || y >= height) continue;
      if (grid.rows[size_t(y)] != grid.rows[size_t(by)] + dy) continue;
      const BlockStats& neighbour = grid.blocks[size_t(y) * grid.width + x];
      if (neighbour.flags & kTransparent) continue;
      ++present;
      flat += neighbour.gradient <= threshold;
    }
  return 2 * flat >= present;
}

// A block's share of its noise variance left by clipping and the
// intensity it stands for: the clip model's for a plane of samples, the
// given shares (PlaneWork::shares) for a plane of mixtures.
Unclipped unclipped_block(const BlockStats& block, double sigma, const ClipLimits& limits,
                          const std::vector<float>& shares, const BlockGrid& grid) {
  if (shares.empty()) return unclip(block.mean, sigma, limits);
  Unclipped mixed;
  mixed.mu = block.mean;
  mixed.share = shares[size_t(&block - grid.blocks.data())];
  return mixed;
}

// Liu et al.'s iteration on a set of candidate blocks: keep the blocks
// whose texture strength noise of the current level explains, measure
// them, repeat until the level settles.
//
// The level is the kept blocks' own mean strength (self-calibrated), not
// one predicted from Immerkaer's reading through the white-noise law:
// correlated noise has more texture strength per unit of that reading
// than white noise, by a factor that changes with the noise's spectrum
// and, in an 8-bit JPEG, with intensity (rounding, white, is most of the
// finest reading of subsampled chroma, whose noise grows with the light).
// The iteration starts low, at the candidates' 10th percentile, and rises
// to the first level that explains its kept blocks: from the median it
// would fall to the largest such level, which texture can make. A set
// where fewer than `min_blocks` blocks are that flat (texture everywhere)
// is left unmeasured rather than read as noise.
LevelResult iterate_level(const std::vector<const BlockStats*>& candidates, const ClipLimits& limits,
                          const std::vector<float>& shares, const BlockGrid& grid, int min_blocks) {
  const GradientLaw& law = gradient_law();
  const double quantile = law.quantile(kCalibrationZ);
  std::vector<float> start;
  for (const BlockStats* block : candidates) start.push_back(block->gradient / float(law.mean_per_variance));
  if (start.empty()) return LevelResult{};
  constexpr int percent = 10;
  std::nth_element(start.begin(), start.begin() + ptrdiff_t(start.size() / 2), start.end());
  const double median = start[start.size() / 2];
  std::nth_element(start.begin(), start.begin() + ptrdiff_t(start.size() * percent / 100), start.end());
  double level = start[start.size() * percent / 100];
  LevelResult result;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    // The clipping model reads the noise's deviation from the strength,
    // which for white noise is its variance and for correlated noise
    // (less seen by Immerkaer's kernel) is nearer it than that reading.
    const double sigma = std::sqrt(level);
    double detail_sum = 0, strength_sum = 0, share_sum = 0, intensity_sum = 0;
    int kept = 0;
    for (const BlockStats* block : candidates) {
      const Unclipped unclipped = unclipped_block(*block, sigma, limits, shares, grid);
      if (unclipped.share < kMinUnclippedShare) continue;
      const double threshold = quantile * unclipped.share * level;
      if (block->gradient > threshold) continue;
      if (!neighbours_flat(block, grid, threshold)) continue;
      detail_sum += block->detail;
      strength_sum += block->gradient;
      share_sum += unclipped.share;
      intensity_sum += unclipped.mu;
      ++kept;
    }
    if (kept < min_blocks && level < median) {
      // Started below what enough blocks explain (the neighbour rule drops
      // isolated flat blocks): try a higher level.
      level = std::min(1.25 * level, median);
      continue;
    }
    if (kept == 0) return LevelResult{};
    const double next_level = strength_sum / (law.mean_per_variance * share_sum);
    result = {detail_sum / share_sum, next_level, intensity_sum / kept, kept, kept >= min_blocks};
    const bool settled = std::abs(next_level - level) <= kSettled * std::max(next_level, 1e-12);
    level = next_level;
    if (settled) break;
  }
  return result;
}

// A bin's level where the plane's noise is near white: the strength noise
// at the bin's own Immerkaer reading would have (the reading times the
// plane's calibrated ratio, `correlation`) is the test, so texture, which
// the kernel hardly sees, is rejected by the reading of the flat blocks
// among it. A bin where no blocks are as flat as that ratio says noise is
// (texture everywhere) is left unmeasured rather than read as noise.
LevelResult iterate_predicted_level(const std::vector<const BlockStats*>& candidates, const ClipLimits& limits,
                                    const std::vector<float>& shares, double correlation, const BlockGrid& grid,
                                    int min_blocks) {
  const GradientLaw& law = gradient_law();
  const double quantile = law.quantile(kBinZ);
  std::vector<float> start;
  for (const BlockStats* block : candidates) start.push_back(block->detail);
  if (start.empty()) return LevelResult{};
  std::nth_element(start.begin(), start.begin() + ptrdiff_t(start.size() / 2), start.end());
  double variance = start[start.size() / 2];
  double strength_level = variance * correlation;
  LevelResult result;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    const double sigma = std::sqrt(variance);
    double detail_sum = 0, strength_sum = 0, share_sum = 0, intensity_sum = 0;
    int kept = 0;
    for (const BlockStats* block : candidates) {
      const Unclipped unclipped = unclipped_block(*block, sigma, limits, shares, grid);
      if (unclipped.share < kMinUnclippedShare) continue;
      const double threshold = quantile * unclipped.share * strength_level;
      if (block->gradient > threshold) continue;
      if (!neighbours_flat(block, grid, threshold)) continue;
      detail_sum += block->detail;
      strength_sum += block->gradient;
      share_sum += unclipped.share;
      intensity_sum += unclipped.mu;
      ++kept;
    }
    if (kept < min_blocks) return LevelResult{};
    const double next_variance = detail_sum / share_sum;
    result = {next_variance, strength_sum / (law.mean_per_variance * share_sum), intensity_sum / kept, kept, true};
    const double next_level = next_variance * correlation;
    const bool settled = std::abs(next_level - strength_level) <= kSettled * std::max(next_level, 1e-12);
    variance = next_variance;
    strength_level = next_level;
    if (settled) break;
  }
  return result;
}

}  // namespace

void measure_block_row(const PlaneRows& rows, int blocks_x, int stride, Scratch& s, BlockStats* out) {
  const int width = rows.width;
  s.second.resize(size_t(width));
  s.pair.resize(size_t(width));
  for (auto* column : {&s.detail, &s.gradient, &s.dx, &s.dy, &s.sum}) column->assign(size_t(width), 0.0f);
  s.flags.assign(size_t(width), 0);
  for (int r = 0; r < kSupport; ++r) {
    const uint8_t* flags = rows.flags + size_t(r) * rows.stride;
    for (int x = 0; x < width; ++x) s.flags[size_t(x)] |= flags[x];
  }
  for (int j = 0; j < kBlock; ++j) {
    const float* up = rows.values + size_t(j) * rows.stride;
    const float* mid = up + rows.stride;
    const float* down = mid + rows.stride;
    const float* intensity = rows.intensity + size_t(j + 1) * rows.stride;
    for (int x = 0; x < width; ++x) s.second[size_t(x)] = up[x] - 2.0f * mid[x] + down[x];
    for (int x = 1; x + 1 < width; ++x) {
      const float response = s.second[size_t(x) - 1] - 2.0f * s.second[size_t(x)] + s.second[size_t(x) + 1];
      s.detail[size_t(x)] += response * response;
    }
    for (int x = 0; x < width; ++x) {
      s.pair[size_t(x)] = up[x] + mid[x];
      s.sum[size_t(x)] += intensity[x];
    }
    for (int x = 1; x + 1 < width; ++x) {
      const float dx = s.pair[size_t(x) + 1] - s.pair[size_t(x) - 1];
      const float dy = (down[x - 1] + down[x]) - (up[x - 1] + up[x]);
      s.gradient[size_t(x)] += dx * dx + dy * dy;
      s.dx[size_t(x)] += dx;
      s.dy[size_t(x)] += dy;
    }
  }
  constexpr float pixels = float(kBlock * kBlock);
  for (int bx = 0; bx < blocks_x; ++bx) {
    const int x0 = 1 + bx * stride;
    float detail = 0, gradient = 0, dx = 0, dy = 0, sum = 0;
    uint8_t flags = 0;
    for (int x = x0; x < x0 + kBlock; ++x) {
      detail += s.detail[size_t(x)];
      gradient += s.gradient[size_t(x)];
      dx += s.dx[size_t(x)];
      dy += s.dy[size_t(x)];
      sum += s.sum[size_t(x)];
    }
    for (int x = x0 - 1; x < x0 + kBlock + 1; ++x) flags |= s.flags[size_t(x)];
    BlockStats& block = out[bx];
    block.mean = sum / pixels;
    block.detail = detail / float(kKernelGain * pixels);
    block.gradient = std::max(0.0f, gradient - (dx * dx + dy * dy) / pixels);
    block.flags = flags;
  }
}

void PlaneWork::calibrate(int max_bins) {
  for (const BlockStats& block : grid.blocks) {
    if (block.flags & kTransparent) continue;
    if (!excluded.empty() && excluded[size_t(&block - grid.blocks.data())]) continue;
    if (clip_model) {
      limits.low |= (block.flags & kClippedLow) != 0;
      limits.high |= (block.flags & kClippedHigh) != 0;
    }
    candidates.push_back(&block);
  }
  if (candidates.empty()) return;
  std::sort(candidates.begin(), candidates.end(),
            [](const BlockStats* a, const BlockStats* b) { return a->mean < b->mean; });
  // The level over the whole plane, all intensities at once.
  calibration = iterate_level(candidates, limits, shares, grid, min_blocks);
  if (calibration.valid)
    bins.resize(std::clamp<size_t>(candidates.size() / size_t(kCandidatesPerBin * grid.overlap()), 1,
                                   size_t(std::max(max_bins, 1))));
}

std::vector<const BlockStats*> PlaneWork::bin_candidates(size_t b) const {
  const size_t count = candidates.size();
  return {candidates.begin() + ptrdiff_t(count * b / bins.size()),
          candidates.begin() + ptrdiff_t(count * (b + 1) / bins.size())};
}

double PlaneWork::correlation() const {
  return calibration.variance > 0 ? calibration.strength_level / calibration.variance : 1.0;
}

void PlaneWork::measure_bin(size_t b) {
  bins[b] = correlation() < kSelfCalibratedRatio
                ? iterate_predicted_level(bin_candidates(b), limits, shares, correlation(), grid, min_blocks)
                : iterate_level(bin_candidates(b), limits, shares, grid, min_blocks);
}

double expected_strength(double (*covariance)(int dx, int dy, const void* context), const void* context) {
  const GradientLaw& law = gradient_law();
  constexpr int pixels = kSupport * kSupport;
  double trace = 0;
  for (int p = 0; p < pixels; ++p)
    for (int q = 0; q < pixels; ++q) {
      const double a = law.gram[size_t(p) * pixels + size_t(q)];
      if (a != 0) trace += a * covariance(p % kSupport - q % kSupport, p / kSupport - q / kSupport, context);
    }
  return trace / law.mean_per_variance;
}

}  // namespace edgewise::noise_blocks
