// Weak-texture noise level estimation (Liu, Tanaka & Okutomi 2013/2014)
// measured with Immerkaer's kernel: see noise_estimate.h for the method and
// why, docs/quality.md for its accuracy and speed.
#include "noise_estimate.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "clipped_noise.h"

namespace edgewise {

namespace {

constexpr int kBlock = 8;             // block side, pixels
constexpr int kSupport = kBlock + 2;  // rows a block reads: one above and below
constexpr int kBandBlockRows = 16;    // block rows read per band
// Blocks measured per channel at most (2.1 MP): a 24 MP photo is measured
// on evenly spaced strips of 4 block rows, which keeps its estimate within
// the time budget (docs/quality.md) and its statistics far beyond need.
constexpr int kMaxBlocks = 1 << 15;
constexpr int kStripBlockRows = 4;
constexpr double kKernelGain = 36.0;  // sum of squared taps of [1 -2 1] x [1 -2 1]
// The texture test's quantile of pure noise (a standard normal's z): 99 %
// as Liu et al. where the image's own noise law is calibrated, 95 % in the
// bins, which the decorrelated test allows: on pure noise it costs blocks,
// not accuracy, and it keeps fewer texture-laden ones (8-bit noise added
// to tests/data's photos and skimage's coffee, four seeds, before the
// neighbour rule below: the grey photo's worst white-noise channel went
// from +10.2 % to +4.1 %, coffee's worst Poisson-Gaussian bin from +62 %
// to +39 %).
constexpr double kCalibrationZ = 2.326347874;  // 99 %
constexpr double kBinZ = 1.644853627;          // 95 %
constexpr double kMinUnclippedShare = 0.75;    // of the noise variance clipping may take from a block
constexpr int kCandidatesPerBin = 64;          // fewer bins on images with fewer blocks
constexpr int kMaxIterations = 30;
constexpr double kSettled = 1e-4;  // relative change of the level that ends the iterations

enum BlockFlags : uint8_t { kTransparent = 1, kClippedLow = 2, kClippedHigh = 4 };

struct BlockStats {
  float mean;      // of its 8x8 pixels, code values
  float detail;    // Immerkaer's noise variance: sum of squared responses / (36 * 64)
  float gradient;  // texture strength: see GradientLaw
  uint8_t flags;   // BlockFlags of its 10x10 support
};

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

  GradientLaw() {
    constexpr int side = kSupport;
    constexpr int pixels = side * side;
    constexpr int count = kBlock * kBlock;
    std::vector<double> gram(pixels * pixels, 0.0);
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

struct Scratch {
  std::vector<float> plane;      // kSupport rows of one channel, code values
  std::vector<float> second;     // vertical second difference of one row
  std::vector<float> pair;       // sums of a row and the one above
  std::vector<float> detail;     // per column, summed over the block row: squared responses
  std::vector<float> gradient;   // squared differences
  std::vector<float> dx, dy;     // differences
  std::vector<float> sum;        // samples
  std::vector<uint8_t> limits;   // per column: BlockFlags of samples at 0 or 255 in the support rows
  std::vector<float> alpha_low;  // per column: the least alpha in the support rows
};

// One block row of one colour channel from its kSupport rows (interleaved
// 0..1 floats, row_floats apart). A sample exactly at 0 or 1 (0 or 255)
// is taken for clipped: 8- and 16-bit limits convert to exactly those, and
// clipped floats are exactly those; floats beyond them were not clipped.
void measure_block_row(const float* rows, size_t row_floats, const ImageShape& shape, int channel, int blocks_x,
                       Scratch& s, BlockStats* out) {
  const int width = shape.width;
  const int channels = shape.channels;
  s.plane.resize(size_t(kSupport) * width);
  s.second.resize(width);
  s.pair.resize(width);
  for (auto* column : {&s.detail, &s.gradient, &s.dx, &s.dy, &s.sum}) column->assign(width, 0.0f);
  s.limits.assign(width, 0);
  for (int r = 0; r < kSupport; ++r) {
    const float* row = rows + size_t(r) * row_floats;
    float* plane = s.plane.data() + size_t(r) * width;
    for (int x = 0; x < width; ++x) {
      const float sample = row[size_t(x) * channels + channel];
      plane[x] = sample * 255.0f;
      s.limits[x] |= uint8_t((sample == 0.0f ? kClippedLow : 0) | (sample == 1.0f ? kClippedHigh : 0));
    }
  }
  for (int j = 0; j < kBlock; ++j) {
    const float* up = s.plane.data() + size_t(j) * width;
    const float* mid = up + width;
    const float* down = mid + width;
    for (int x = 0; x < width; ++x) s.second[x] = up[x] - 2.0f * mid[x] + down[x];
    for (int x = 1; x + 1 < width; ++x) {
      const float response = s.second[x - 1] - 2.0f * s.second[x] + s.second[x + 1];
      s.detail[x] += response * response;
    }
    for (int x = 0; x < width; ++x) {
      s.pair[x] = up[x] + mid[x];
      s.sum[x] += mid[x];
    }
    for (int x = 1; x + 1 < width; ++x) {
      const float dx = s.pair[x + 1] - s.pair[x - 1];
      const float dy = (down[x - 1] + down[x]) - (up[x - 1] + up[x]);
      s.gradient[x] += dx * dx + dy * dy;
      s.dx[x] += dx;
      s.dy[x] += dy;
    }
  }
  const bool alpha = has_alpha(shape);
  constexpr float pixels = float(kBlock * kBlock);
  for (int bx = 0; bx < blocks_x; ++bx) {
    const int x0 = 1 + bx * kBlock;
    float detail = 0, gradient = 0, dx = 0, dy = 0, sum = 0, alpha_low = 1.0f;
    uint8_t flags = 0;
    for (int x = x0; x < x0 + kBlock; ++x) {
      detail += s.detail[x];
      gradient += s.gradient[x];
      dx += s.dx[x];
      dy += s.dy[x];
      sum += s.sum[x];
    }
    for (int x = x0 - 1; x < x0 + kBlock + 1; ++x) {
      flags |= s.limits[x];
      if (alpha) alpha_low = std::min(alpha_low, s.alpha_low[x]);
    }
    BlockStats& block = out[bx];
    block.mean = sum / pixels;
    block.detail = detail / float(kKernelGain * pixels);
    block.gradient = std::max(0.0f, gradient - (dx * dx + dy * dy) / pixels);
    block.flags = uint8_t(flags | (alpha_low <= 0.0f ? kTransparent : 0));
  }
}

void measure_alpha(const float* rows, size_t row_floats, const ImageShape& shape, Scratch& s) {
  s.alpha_low.assign(shape.width, 1.0f);
  for (int r = 0; r < kSupport; ++r) {
    const float* row = rows + size_t(r) * row_floats;
    for (int x = 0; x < shape.width; ++x)
      s.alpha_low[x] = std::min(s.alpha_low[x], row[size_t(x) * shape.channels + shape.channels - 1]);
  }
}

// Liu et al.'s iteration on a set of candidate blocks: keep the blocks
// whose texture strength noise of the current level explains, measure
// them, repeat until the level settles.
//
// The test needs the texture strength pure noise would have: for white
// noise the kernel's variance times tr(A), but real noise is often
// correlated (demosaicing, compression, resizing), and then its texture
// strength per unit of the kernel's reading is larger: a threshold from the
// white-noise law would shrink the kept set to none. So the image's own
// ratio is measured first, on all its candidate blocks at once with the
// test level taken from the kept blocks' own strength (self_calibrated),
// and each bin then uses that ratio (`correlation`) times its kernel
// reading. A bin where no blocks are as flat as that ratio says noise is
// (texture everywhere) is left unmeasured rather than read as noise.
struct LevelResult {
  double variance = 0;        // the kernel's reading of the kept blocks
  double strength_level = 0;  // their texture strength per tr(A)
  double intensity = 0;       // mean of their unclipped intensities
  int blocks = 0;
  bool valid = false;
};

// The measured blocks, row by row; rows holds each one's block row in the
// image (strips of a large image are not adjacent).
struct BlockGrid {
  const BlockStats* base = nullptr;
  int width = 0;
  std::vector<int> rows;

  size_t size() const { return size_t(width) * rows.size(); }
};

// At least half of the block's neighbours are as flat as the threshold:
// texture covers areas, so a block that passes alone among textured
// neighbours is likely texture that the test missed by chance. A
// neighbour's noise is independent of the block's, so this costs pure
// noise nothing. (Measured as for kBinZ: the worst Poisson-Gaussian bin
// of the grey photo's grass went from +18 % to +17 %, coffee's from +39 %
// to +29 %.)
bool neighbours_flat(const BlockStats* block, const BlockGrid& grid, double threshold) {
  const long index = block - grid.base;
  const int bx = int(index % grid.width), by = int(index / grid.width);
  const int height = int(grid.rows.size());
  int flat = 0, present = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int x = bx + dx, y = by + dy;
      if ((dx == 0 && dy == 0) || x < 0 || y < 0 || x >= grid.width || y >= height) continue;
      if (grid.rows[y] != grid.rows[by] + dy) continue;
      const BlockStats& neighbour = grid.base[size_t(y) * grid.width + x];
      if (neighbour.flags & kTransparent) continue;
      ++present;
      flat += neighbour.gradient <= threshold;
    }
  return 2 * flat >= present;
}

LevelResult iterate_level(const std::vector<const BlockStats*>& candidates, const ClipLimits& limits,
                          bool self_calibrated, double correlation, const BlockGrid& grid) {
  const GradientLaw& law = gradient_law();
  const double quantile = law.quantile(self_calibrated ? kCalibrationZ : kBinZ);
  std::vector<float> start;
  for (const BlockStats* block : candidates)
    start.push_back(self_calibrated ? block->gradient / float(law.mean_per_variance * correlation) : block->detail);
  std::nth_element(start.begin(), start.begin() + start.size() / 2, start.end());
  double variance = start[start.size() / 2];  // the kernel's reading, or its stand-in
  double strength_level = variance * correlation;
  LevelResult result;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    const double sigma = std::sqrt(variance);
    double detail_sum = 0, strength_sum = 0, share_sum = 0, intensity_sum = 0;
    int kept = 0;
    for (const BlockStats* block : candidates) {
      const Unclipped unclipped = unclip(block->mean, sigma, limits);
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
    if (kept < kMinBinBlocks) return LevelResult{};
    const double next_variance = detail_sum / share_sum;
    const double next_strength = strength_sum / (law.mean_per_variance * share_sum);
    result = {next_variance, next_strength, intensity_sum / kept, kept, true};
    const double next_level = self_calibrated ? next_strength : next_variance * correlation;
    const bool settled = std::abs(next_level - strength_level) <= kSettled * std::max(next_level, 1e-12);
    variance = next_variance;
    strength_level = next_level;
    if (settled) break;
  }
  return result;
}

// One channel's blocks on their way to its noise level function: the
// candidates by mean, the calibration over all of them, then one task per
// intensity bin (the tasks of all channels run side by side).
struct ChannelWork {
  BlockGrid grid;
  std::vector<const BlockStats*> candidates;  // opaque blocks, increasing mean
  ClipLimits limits;                          // the limits the channel reaches
  LevelResult calibration;
  std::vector<LevelResult> bins;

  std::vector<const BlockStats*> bin_candidates(size_t b) const {
    const size_t count = candidates.size();
    return {candidates.begin() + count * b / bins.size(), candidates.begin() + count * (b + 1) / bins.size()};
  }
  double correlation() const {
    return calibration.variance > 0 ? calibration.strength_level / calibration.variance : 1.0;
  }
};

void calibrate(ChannelWork& work, int max_bins) {
  for (const BlockStats* block = work.grid.base; block != work.grid.base + work.grid.size(); ++block) {
    if (block->flags & kTransparent) continue;
    work.limits.low |= (block->flags & kClippedLow) != 0;
    work.limits.high |= (block->flags & kClippedHigh) != 0;
    work.candidates.push_back(block);
  }
  if (work.candidates.empty()) return;
  std::sort(work.candidates.begin(), work.candidates.end(),
            [](const BlockStats* a, const BlockStats* b) { return a->mean < b->mean; });
  // The noise's texture strength per unit of the kernel's reading, over
  // the whole image (1 for white noise).
  work.calibration = iterate_level(work.candidates, work.limits, true, 1.0, work.grid);
  if (work.calibration.valid)
    work.bins.resize(std::clamp<size_t>(work.candidates.size() / kCandidatesPerBin, 1, size_t(std::max(max_bins, 1))));
}

ChannelNoise finish(const ChannelWork& work) {
  ChannelNoise channel;
  channel.correlation = work.correlation();
  for (size_t b = 0; b < work.bins.size(); ++b) {
    const LevelResult& result = work.bins[b];
    const size_t count = work.candidates.size();
    NoiseLevelBin bin;
    bin.valid = result.valid;
    bin.blocks = result.blocks;
    bin.sigma = std::sqrt(result.variance);
    bin.intensity = result.valid ? result.intensity
                                 : (work.candidates[count * b / work.bins.size()]->mean +
                                    work.candidates[count * (b + 1) / work.bins.size() - 1]->mean) /
                                       2;
    channel.bins.push_back(bin);
    channel.blocks += result.blocks;
    channel.valid |= result.valid;
  }
  // The root-mean-square over the image's blocks: a bin that could not be
  // measured counts at the noise level function's value there.
  if (channel.valid) {
    double weighted = 0;
    for (size_t b = 0; b < channel.bins.size(); ++b) {
      const double sigma = channel.sigma_at(channel.bins[b].intensity);
      weighted += sigma * sigma * double(work.bin_candidates(b).size());
    }
    channel.sigma = std::sqrt(weighted / double(work.candidates.size()));
  }
  return channel;
}

int thread_count(const NoiseEstimateOptions& options) {
  return options.threads > 0 ? options.threads : omp_get_max_threads();
}

// The block rows measured: all of them, or on a large image evenly spaced
// strips of kStripBlockRows, kMaxBlocks blocks in all.
std::vector<int> measured_block_rows(int blocks_x, int blocks_y) {
  std::vector<int> rows;
  if (size_t(blocks_x) * size_t(blocks_y) <= size_t(kMaxBlocks)) {
    for (int by = 0; by < blocks_y; ++by) rows.push_back(by);
    return rows;
  }
  const int strips = std::clamp(kMaxBlocks / (kStripBlockRows * blocks_x), 1, blocks_y / kStripBlockRows);
  const int spacing = blocks_y / strips;
  for (int strip = 0; strip < strips; ++strip) {
    const int first = strip * spacing + (spacing - kStripBlockRows) / 2;
    for (int by = first; by < first + kStripBlockRows; ++by) rows.push_back(by);
  }
  return rows;
}

// Reads the measured rows in bands through read_rows (called on this
// thread, rows in increasing order) and measures each band's blocks on
// several threads.
NoiseEstimate estimate(const ImageShape& shape, const NoiseEstimateOptions& options,
                       const std::function<void(int y, int rows, float* dst)>& read_rows) {
  if (shape.width <= 0 || shape.height <= 0 || shape.channels < 1 || shape.channels > 4)
    throw std::invalid_argument("noise estimation needs an image with pixels and 1 to 4 channels");
  const int colours = color_channels(shape);
  const int blocks_x = std::max(0, (shape.width - 2) / kBlock);
  const int blocks_y = std::max(0, (shape.height - 2) / kBlock);
  const std::vector<int> block_rows = blocks_x > 0 ? measured_block_rows(blocks_x, blocks_y) : std::vector<int>{};
  const int rows_measured = int(block_rows.size());
  std::vector<std::vector<BlockStats>> stats(colours,
                                             std::vector<BlockStats>(size_t(blocks_x) * size_t(rows_measured)));
  const int threads = thread_count(options);
  std::vector<Scratch> scratch(threads);
  const size_t row_floats = size_t(shape.width) * size_t(shape.channels);
  std::vector<float> band;
  for (int first = 0; first < rows_measured;) {
    // A band: consecutive block rows, kBandBlockRows at most.
    int last = first + 1;
    while (last < rows_measured && last - first < kBandBlockRows && block_rows[last] == block_rows[last - 1] + 1)
      ++last;
    band.resize(row_floats * size_t((last - first) * kBlock + 2));
    read_rows(block_rows[first] * kBlock, (last - first) * kBlock + 2, band.data());
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int row = first; row < last; ++row) {
      Scratch& s = scratch[omp_get_thread_num()];
      const float* support = band.data() + size_t(row - first) * kBlock * row_floats;
      if (has_alpha(shape)) measure_alpha(support, row_floats, shape, s);
      for (int c = 0; c < colours; ++c)
        measure_block_row(support, row_floats, shape, c, blocks_x, s, stats[c].data() + size_t(row) * blocks_x);
    }
    first = last;
  }
  std::vector<ChannelWork> work(colours);
  for (int c = 0; c < colours; ++c) work[c].grid = BlockGrid{stats[c].data(), blocks_x, block_rows};
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int c = 0; c < colours; ++c) calibrate(work[c], options.bins);
  std::vector<std::pair<int, int>> tasks;  // channel, bin
  for (int c = 0; c < colours; ++c)
    for (int b = 0; b < int(work[c].bins.size()); ++b) tasks.emplace_back(c, b);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int t = 0; t < int(tasks.size()); ++t) {
    ChannelWork& channel = work[tasks[t].first];
    channel.bins[tasks[t].second] = iterate_level(channel.bin_candidates(tasks[t].second), channel.limits, false,
                                                  channel.correlation(), channel.grid);
  }
  NoiseEstimate result;
  for (const ChannelWork& channel : work) result.channels.push_back(finish(channel));
  return result;
}

}  // namespace

double ChannelNoise::sigma_at(double intensity) const {
  const NoiseLevelBin* previous = nullptr;
  for (const NoiseLevelBin& bin : bins) {
    if (!bin.valid) continue;
    if (intensity <= bin.intensity) {
      if (!previous) return bin.sigma;
      const double t = (intensity - previous->intensity) / std::max(bin.intensity - previous->intensity, 1e-9);
      return previous->sigma + t * (bin.sigma - previous->sigma);
    }
    previous = &bin;
  }
  return previous ? previous->sigma : sigma;
}

double NoiseEstimate::sigma() const {
  std::vector<double> sigmas;
  for (const ChannelNoise& channel : channels)
    if (channel.valid) sigmas.push_back(channel.sigma);
  if (sigmas.empty()) return 0.0;
  std::sort(sigmas.begin(), sigmas.end());
  const size_t middle = sigmas.size() / 2;
  return sigmas.size() % 2 ? sigmas[middle] : (sigmas[middle - 1] + sigmas[middle]) / 2;
}

bool NoiseEstimate::valid() const {
  return std::any_of(channels.begin(), channels.end(), [](const ChannelNoise& c) { return c.valid; });
}

NoiseEstimate estimate_noise(PixelSource& source, const ImageShape& shape, const NoiseEstimateOptions& options) {
  return estimate(shape, options, [&source](int y, int rows, float* dst) { source.read_rows(y, rows, dst); });
}

NoiseEstimate estimate_noise(const ImageBuffer& image, const NoiseEstimateOptions& options) {
  const int threads = thread_count(options);
  const size_t row_floats = size_t(image.shape.width) * image.shape.channels;
  return estimate(image.shape, options, [&](int y, int rows, float* dst) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < rows; ++i) {
      BufferSource source(image);
      source.read_rows(y + i, 1, dst + size_t(i) * row_floats);
    }
  });
}

}  // namespace edgewise
