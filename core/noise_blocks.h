// The weak-texture noise measure of one plane at one scale (the method of
// noise_estimate.h): 8x8 blocks' statistics, and Liu, Tanaka & Okutomi's
// iteration that keeps the blocks whose texture strength noise alone
// explains. noise_estimate.cpp runs it on every plane (R, G, B and the
// opponent channels) at every scale and fits the spectrum; this header is
// that machinery, apart from where the planes come from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clipped_noise.h"

namespace edgewise::noise_blocks {

constexpr int kBlock = 8;             // block side, pixels
constexpr int kSupport = kBlock + 2;  // rows and columns a block reads: one more on each side
constexpr double kKernelGain = 36.0;  // sum of squared taps of [1 -2 1] x [1 -2 1]
// Calibrated texture strength per unit of Immerkaer's reading from which a
// plane's bins calibrate their own levels (PlaneWork::measure_bin):
// white noise reads 1-1.4, camera noise 2.5-180 (bench/quality).
constexpr double kSelfCalibratedRatio = 2.0;
// A block is measured only where clipping leaves this share of the noise variance or more.
constexpr double kMinUnclippedShare = 0.75;

enum BlockFlags : uint8_t { kTransparent = 1, kClippedLow = 2, kClippedHigh = 4 };

struct BlockStats {
  float mean;      // its 8x8 pixels' intensity (the plane's own, or the luma for chroma planes), code values
  float detail;    // Immerkaer's noise variance: sum of squared responses / (36 * 64)
  float gradient;  // texture strength (noise_blocks.cpp, GradientLaw)
  uint8_t flags;   // BlockFlags of its 10x10 support
};

// kSupport rows of one plane at one scale: values and intensities in code
// values, flags per pixel (BlockFlags), each row `stride` apart.
struct PlaneRows {
  const float* values = nullptr;
  const float* intensity = nullptr;
  const uint8_t* flags = nullptr;
  size_t stride = 0;
  int width = 0;
};

struct Scratch {
  std::vector<float> second, pair, detail, gradient, dx, dy, sum;
  std::vector<uint8_t> flags;
};

// The stats of the blocks_x blocks of one block row (block x starts at
// column 1 + stride x, row 1 of the rows given; a stride under kBlock
// overlaps them).
void measure_block_row(const PlaneRows& rows, int blocks_x, int stride, Scratch& scratch, BlockStats* out);

// Blocks at a stride of `stride` pixels on a plane `width` wide.
inline int blocks_across(int width, int stride) { return width < kSupport ? 0 : (width - kSupport) / stride + 1; }

// A plane's measured blocks, row by row; rows holds each one's block row
// in the plane (rows measured on strips of a large image are not
// adjacent). Blocks `stride` pixels apart overlap when it is under kBlock:
// (kBlock / stride)^2 of them cover the pixels of one, so counts of blocks
// are taken per that many.
struct BlockGrid {
  std::vector<BlockStats> blocks;
  int width = 0;
  int stride = kBlock;
  std::vector<int> rows;
  size_t size() const { return blocks.size(); }
  int overlap() const { return (kBlock / stride) * (kBlock / stride); }
};

struct LevelResult {
  double variance = 0;        // the kernel's reading of the kept blocks
  double strength_level = 0;  // their texture strength per tr(A)
  double intensity = 0;       // mean of their unclipped intensities
  int blocks = 0;
  bool valid = false;
};

// One plane's blocks at one scale on their way to a noise level function:
// the candidates by intensity, the calibration of the noise's own texture
// strength over all of them, then one level per intensity bin.
struct PlaneWork {
  BlockGrid grid;
  // Whether blocks near 0 or 255 are read through the clipped-noise model
  // (a plane of samples, R, G, B or grey); the opponent planes, mixtures of
  // samples, leave out (excluded) the blocks where their samples' planes
  // would.
  bool clip_model = true;
  // Kept blocks fewer than this leave a level unmeasured (16 whole blocks'
  // worth at the finest scales).
  int min_blocks = 16;
  // Blocks to leave out, by index in grid (empty: none).
  std::vector<bool> excluded;
  // For a plane without the clip model (the opponent planes): the share of
  // each block's noise variance that clipping of its samples leaves, by
  // index in grid, from the sample planes' noise (empty: 1 everywhere).
  // The level divides by it as the clip model's planes divide by theirs,
  // so that strong noise near 0 and 255 is not read low.
  std::vector<float> shares;
  std::vector<const BlockStats*> candidates;  // opaque blocks, increasing intensity
  ClipLimits limits;                          // the limits the plane reaches
  LevelResult calibration;
  std::vector<LevelResult> bins;

  // Candidates, calibration, and the number of bins (at most max_bins, one
  // per kCandidatesPerBin candidates); bins stays empty when the
  // calibration finds no level.
  void calibrate(int max_bins);
  std::vector<const BlockStats*> bin_candidates(size_t b) const;
  double correlation() const;
  // A bin's level: where the plane's calibrated texture strength per unit
  // of Immerkaer's reading (correlation()) is under kSelfCalibratedRatio,
  // the level that reading predicts, which rejects texture best; above
  // it, calibrated on the bin's own blocks as the whole plane's is, since
  // strongly correlated noise has a ratio of its own that may change with
  // intensity (an 8-bit image's rounding, white, is most of the finest
  // reading of JPEG's subsampled chroma, whose noise grows with the light).
  void measure_bin(size_t b);
};

// The texture strength per tr(A) (LevelResult::strength_level) that noise
// of covariance `covariance(dx, dy)` between pixels dx, dy apart has in
// expectation: 1 for white noise of variance 1 (tr(A C) / tr(A)).
double expected_strength(double (*covariance)(int dx, int dy, const void* context), const void* context);

}  // namespace edgewise::noise_blocks
