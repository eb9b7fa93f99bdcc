// Noise level estimation from the image alone: per colour channel, in code
// values of the 8-bit scale (0-255, whatever the samples' encoding), as a
// noise level function sigma(intensity) over a few intensity bins, so that
// signal-dependent (Poisson-Gaussian) camera noise is seen growing with
// brightness. A filter's planner, the CLI (--estimate-noise) and the
// plug-in call it on what they already read: an ImageBuffer or a
// PixelSource.
//
// Method: the weak-texture block selection of Liu, Tanaka & Okutomi,
// "Single-image noise level estimation for blind denoising" (IEEE TIP
// 22(12), 2013), in its signal-dependent form ("Practical signal-dependent
// noise parameter estimation from a single noisy image", IEEE TIP 23(10),
// 2014), with the noise in the selected blocks measured by Immerkaer's
// operator ("Fast noise variance estimation", CVIU 64(2), 1996), intensity
// bins as level sets of block means and clipping modelled as in Foi,
// Trimeche, Katkovnik & Egiazarian ("Practical Poissonian-Gaussian noise
// modeling and fitting for single-image raw-data", IEEE TIP 17(10), 2008).
//
// Why this method: texture and edges are what fool the fast estimators
// (Immerkaer's mean over the whole image, the MAD of the finest wavelet
// band): they read fine detail as noise. Liu et al. keep only the blocks
// whose texture strength (gradient energy) noise of the current level
// alone explains, below a quantile of its gamma law, re-estimate and
// repeat until the level settles; in their comparison it handles textured
// photos best. What is ours, each measured (numbers in noise_estimate.cpp):
// - The measure: Immerkaer's 3x3 kernel [1 -2 1] x [1 -2 1] (sum of squared
//   taps 36) instead of the smallest eigenvalue of the patches' covariance:
//   a few operations per pixel instead of d^2 per d-pixel patch, no
//   downward bias on the few hundred blocks of a bin, and constant, linear
//   and quadratic-in-one-direction shading cancels.
// - The test: gradients of the image smoothed by a 2x2 box, whose response
//   vanishes where the kernel measures, so choosing blocks by it hardly
//   selects on the noise being measured (energies correlated at 0.10 for
//   pure noise, 0.76 with plain differences); gradients taken relative to
//   the block's mean gradient, so a ramp is not texture; a block passes
//   only if half its neighbours do too (texture covers areas).
// - Correlated noise (demosaicing, compression, resizing) has more texture
//   strength per unit of the kernel's reading than white noise: the ratio
//   (`correlation`) is calibrated on the whole image first, then each bin
//   is tested with it, so a bin of texture only is left unmeasured.
// - Bins are quantiles of the block means (equal counts); a bin's sigma is
//   that of its kept blocks, reported at their mean intensity, which for a
//   variance linear in intensity (Poisson-Gaussian) is where it applies.
//
// Clipping: where a channel reaches 0 or 255 (0 or 65535; float exactly 0
// or 1), a block near that limit is read through the clipped-noise model
// of clipped_noise.h; a block that clipping would take more than a quarter
// of the variance from is skipped. Transparent pixels (alpha 0) are
// ignored: blocks touching one are skipped.
//
// Blocks of 8x8 pixels with a one-pixel border; images above 2.1 MP are
// measured on evenly spaced strips of rows (32768 blocks per channel), so a
// 24 MP photo takes well under 100 ms on 2 cores (docs/quality.md).
#pragma once

#include <vector>

#include "image_buffer.h"
#include "image_shape.h"
#include "pixel_stream.h"

namespace edgewise {

// One intensity bin of a channel's noise level function.
struct NoiseLevelBin {
  double intensity = 0;  // mean of its kept blocks, code values 0-255
  double sigma = 0;      // noise standard deviation there, code values
  int blocks = 0;        // weak-texture blocks it was measured on
  bool valid = false;    // enough blocks to measure (kMinBinBlocks)
};

struct ChannelNoise {
  // The root-mean-square noise over the image: the bins' variances
  // weighted by the share of the image's blocks each bin covers, a bin
  // that could not be measured counted at sigma_at(its intensity). 0 when
  // no bin could be measured (valid false).
  double sigma = 0;
  bool valid = false;
  std::vector<NoiseLevelBin> bins;  // increasing intensity
  int blocks = 0;                   // weak-texture blocks kept, over all bins
  // The noise's texture strength over the kernel's reading: 1 for white
  // noise, more for noise correlated between neighbouring pixels, whose
  // per-pixel sigma then exceeds what the kernel reads.
  double correlation = 1;

  // The noise level function at an intensity (code values): linear
  // between the valid bins, constant beyond the first and the last; sigma
  // when no bin is valid.
  double sigma_at(double intensity) const;
};

struct NoiseEstimate {
  std::vector<ChannelNoise> channels;  // one per colour channel (1 grey, 3 RGB); alpha has none
  // The median over the valid colour channels: one number for a filter's
  // range parameter. 0 when none is valid.
  double sigma() const;
  bool valid() const;
};

struct NoiseEstimateOptions {
  int bins = 8;     // intensity bins at most (fewer on small images)
  int threads = 0;  // CPU threads, 0 = all cores
};

// A bin is measured only on this many weak-texture blocks or more.
constexpr int kMinBinBlocks = 16;

// From rows of interleaved 0..1 floats (colour channels, then alpha when
// shape has one), as every front end reads them: the CLI's decoded files
// (BufferSource), the plug-in's drawables (GeglRowSource). Rows are read
// in bands, in increasing order (a band starts with the last two rows of
// the one before);
// a large image's rows between its strips are not read. Throws
// std::invalid_argument for a shape without pixels or with a channel count
// other than 1 to 4. An image too small, too transparent or too textured to
// measure gives channels that are not valid.
NoiseEstimate estimate_noise(PixelSource& source, const ImageShape& shape, const NoiseEstimateOptions& options = {});

// The same for a whole image in memory (rows converted on several threads).
NoiseEstimate estimate_noise(const ImageBuffer& image, const NoiseEstimateOptions& options = {});

}  // namespace edgewise
