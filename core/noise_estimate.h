// Noise estimation from the image alone: per colour channel and per
// opponent channel (luma and two chroma, core/opponent_color.h), a noise
// level function sigma(intensity) over a few intensity bins (camera noise
// grows with brightness), and a spatial spectrum (noise_spectrum.h: camera
// noise is correlated over pixels, its colour part over many). Values in
// code values of the 8-bit scale (0-255, whatever the samples' encoding).
// sigma is the noise's whole standard deviation, every frequency included:
// what a filter's window sees, what --estimate-noise prints.
//
// Method, per plane (R, G, B, Y, C1, C2; one plane for grey) and scale:
// the weak-texture block selection of Liu, Tanaka & Okutomi, "Single-image
// noise level estimation for blind denoising" (IEEE TIP 22(12), 2013), in
// its signal-dependent form ("Practical signal-dependent noise parameter
// estimation from a single noisy image", IEEE TIP 23(10), 2014), with the
// noise in the selected blocks measured by Immerkaer's operator ("Fast
// noise variance estimation", CVIU 64(2), 1996), intensity bins as level
// sets of block means and clipping modelled as in Foi, Trimeche, Katkovnik
// & Egiazarian ("Practical Poissonian-Gaussian noise modeling and fitting
// for single-image raw-data", IEEE TIP 17(10), 2008). Immerkaer's kernel
// reads the finest frequencies; correlated noise has little energy there
// (bench/quality's camera noise: a third to a twentieth of its variance).
// So every plane is measured again on 2x2 and 4x4 averages of the image,
// as the Noise Clinic measures per scale (Lebrun, Colom & Morel,
// "Multiscale image blind denoising", IEEE TIP 24(10), 2015); the readings
// of the three scales, Immerkaer's and the texture strength's (a lower
// band) at each, fit the spectrum, which turns the finest scale's noise
// level function (the one with the most blocks and bins) into the whole
// noise's. Where the finest scale shows white noise (its texture strength
// per unit of Immerkaer's reading near 1), the noise is taken as white:
// the coarse scales' flattest blocks then hold more shading than noise.
//
// Why weak texture: texture and edges are what fool the fast estimators
// (Immerkaer's mean over the whole image, the MAD of the finest wavelet
// band): they read fine detail as noise. Liu et al. keep only the blocks
// whose texture strength (gradient energy) noise of the current level
// alone explains, below a quantile of its gamma law, re-estimate and
// repeat until the level settles; in their comparison it handles textured
// photos best. What is ours, each measured (numbers in noise_blocks.cpp):
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
// - Correlated noise has more texture strength per unit of the kernel's
//   reading than white noise: the ratio (`correlation`) is calibrated on
//   the whole plane first, then each bin is tested with it, so a bin of
//   texture only is left unmeasured.
// - Bins are quantiles of the block means (equal counts); a bin's sigma is
//   that of its kept blocks, reported at their mean intensity, which for a
//   variance linear in intensity (Poisson-Gaussian) is where it applies.
//   The chroma planes are binned by the pixels' luma.
//
// Clipping: where a channel reaches 0 or 255 (0 or 65535; float exactly 0
// or 1), a block near that limit is read through the clipped-noise model
// of clipped_noise.h; a block that clipping would take more than a quarter
// of the variance from is skipped (the opponent planes, mixtures of three
// samples, skip every block with a clipped sample). Transparent pixels
// (alpha 0) are ignored: blocks touching one are skipped.
//
// When no plane has enough flat blocks (a tiny, clean or wholly textured
// image), the estimate falls back on a rule that always gives a number:
// the median absolute deviation of the finest diagonal Haar band over
// 0.6745 (Donoho & Johnstone, "Ideal spatial adaptation by wavelet
// shrinkage", Biometrika 81(3), 1994), which reads texture as noise;
// `fallback` says so and why.
//
// Blocks of 8x8 pixels (at each scale) with a one-pixel border; images
// above 2.1 MP are measured on evenly spaced bands of 40 rows (32768
// blocks per plane at the finest scale), so a 24 MP photo takes about
// 100-150 ms on 2 cores (docs/quality.md).
#pragma once

#include <string>
#include <vector>

#include "image_buffer.h"
#include "image_shape.h"
#include "noise_spectrum.h"
#include "pixel_stream.h"

namespace edgewise {

// One intensity bin of a channel's noise level function.
struct NoiseLevelBin {
  double intensity = 0;  // mean of its kept blocks, code values 0-255
  double sigma = 0;      // the noise's standard deviation there, code values
  int blocks = 0;        // weak-texture blocks it was measured on
  bool valid = false;    // enough blocks to measure (kMinBinBlocks)
  // What the finest scale's two measures read there, as standard
  // deviations (each is sigma for white noise): Immerkaer's kernel (the
  // finest frequencies) and the texture strength (the gradients of 2x2
  // averages: lower ones).
  double reading = 0;
  double texture = 0;
};

// A channel measured on 2^scale x 2^scale averages of the image: its two
// measures' variances there over the sum of the finest scale's two at the
// same intensities (white noise: 4^-scale / 2 each).
struct NoiseScaleReading {
  int scale = 0;
  double reading_ratio = 0;
  double texture_ratio = 0;
  int blocks = 0;
  bool valid = false;
};

struct ChannelNoise {
  // The root-mean-square noise over the image: the bins' variances
  // weighted by the share of the image's blocks each bin covers, a bin
  // that could not be measured counted at sigma_at(its intensity). 0 when
  // no bin could be measured (valid false).
  double sigma = 0;
  bool valid = false;
  std::vector<NoiseLevelBin> bins;  // increasing intensity
  int blocks = 0;                   // weak-texture blocks kept at the finest scale, over all bins
  // The noise's texture strength over the kernel's reading at the finest
  // scale: 1 for white noise, more for noise correlated between
  // neighbouring pixels.
  double correlation = 1;
  std::string name;                       // "grey", "R", "G", "B"; "Y", "C1", "C2"
  std::vector<NoiseScaleReading> scales;  // every scale, 0 .. kSpectrumScales - 1
  NoiseSpectrum spectrum;                 // fitted to the scales' readings

  // The noise level function at an intensity (code values): linear
  // between the valid bins, constant beyond the first and the last; sigma
  // when no bin is valid.
  double sigma_at(double intensity) const;
};

// Which model a reading comes from: the noise-map network
// (learned_noise.h), or this file's statistics of weak-texture blocks.
enum class NoiseReading { statistical, learned };
const char* noise_reading_name(NoiseReading reading);  // "statistical", "learned"

struct NoiseEstimate {
  std::vector<ChannelNoise> channels;  // one per colour channel (1 grey, 3 RGB); alpha has none
  std::vector<ChannelNoise> opponent;  // Y, C1, C2 for colour images (core/opponent_color.h); empty for grey
  // Set when no plane had enough weak-texture blocks and every channel's
  // sigma (and nothing else) comes from the fallback rule (the MAD of the
  // finest diagonal Haar band, kNoiseFallbackRule); fallback_reason says
  // why, in words.
  bool fallback = false;
  std::string fallback_reason;
  NoiseReading reading = NoiseReading::statistical;
  // One line for the user when the learned reading was wanted but not used
  // or is unsure (the network missing or damaged, the image too small, noise
  // beyond its training): what happened and which reading was used. Empty
  // when the reading needs no word.
  std::string reading_note;
  // What the noise was multiplied by since it was read, on the luma and on
  // the chroma (the Denoise front end's Strength times Luminance, Strength
  // times Colour: scaled_noise in denoise.h), for a filter that reads the
  // noise itself again (the learned denoiser's noise map) and must scale
  // what it reads alike.
  double luminance_multiplier = 1.0;
  double colour_multiplier = 1.0;
  // The median over the valid colour channels: one number for a filter's
  // range parameter. 0 when none is valid.
  double sigma() const;
  // Some channel has a number (measured, or from the fallback rule).
  bool valid() const;
  // Some channel was measured on weak-texture blocks.
  bool measured() const { return valid() && !fallback; }
};

// Which reading estimate_noise gives: `automatic` the learned one where the
// network is installed and sure of it, else the statistical one (saying
// why); the others force one (the benchmarks compare them).
enum class NoiseReadingChoice { automatic, learned, statistical };

struct NoiseEstimateOptions {
  int bins = 8;     // intensity bins at most (fewer on small images)
  int threads = 0;  // CPU threads, 0 = all cores
  NoiseReadingChoice reading = NoiseReadingChoice::automatic;
};

// The fallback rule in words, for messages.
constexpr const char* kNoiseFallbackRule =
    "the median absolute deviation of the finest diagonal wavelet band, which counts fine texture as noise";

// A bin is measured only on this many weak-texture blocks or more.
constexpr int kMinBinBlocks = 16;
// Blocks measured per plane at the finest scale at most (2.1 MP): larger
// images are measured on bands.
constexpr int kMaxNoiseBlocks = 1 << 15;

// From rows of interleaved 0..1 floats (colour channels, then alpha when
// shape has one), as every front end reads them: the CLI's decoded files
// (BufferSource), the plug-in's drawables and the GEGL operation's input
// (estimate_image_noise, core/region_job.h). By default
// (NoiseReadingChoice::automatic) the learned reading comes first
// (learned_noise.h: the sampled tiles' rows, in increasing order); where
// the network is missing or unsure, the statistical model then reads the
// image again from the top and reading_note says why. Each reading reads
// rows in bands, in increasing order, each at most once; a large image's
// rows between its bands are not read. Throws
// std::invalid_argument for a shape without pixels or with a channel count
// other than 1 to 4. An image too small, too transparent or too textured to
// measure gives channels from the fallback rule (NoiseEstimate::fallback);
// an image under 2x2 pixels gives channels that are not valid.
NoiseEstimate estimate_noise(PixelSource& source, const ImageShape& shape, const NoiseEstimateOptions& options = {});

// The same for a whole image in memory (rows converted on several threads).
NoiseEstimate estimate_noise(const ImageBuffer& image, const NoiseEstimateOptions& options = {});

// The estimate of white noise of deviation `sigma` (code values) on every
// one of `channels` colour channels (1 or 3; the opponent channels too for
// 3), for a front end, a filter or a test that is given the noise rather
// than measuring it.
NoiseEstimate white_noise_estimate(double sigma, int channels);

}  // namespace edgewise
