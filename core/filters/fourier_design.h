// The Fourier bilateral filter's design, computed once per plan on the host
// in double precision: the cosine series of the range kernel and the
// recursion that stands for the spatial Gaussian. Backends never see this
// file; the planner turns its results into the plan's float tables.
#pragma once

#include <complex>
#include <vector>

#include "bilateral.h"  // RangeKernel

namespace edgewise {

// The range kernel R at sigma_r = s on the differences |x| <= length (the
// widest difference two clamped samples can have), as two series of period T:
//   R(x)   ~ sum_{k=0..N} cosine[k] cos(2 pi k x / T)     (the denominator's)
//   x R(x) ~ sum_{k=1..N} sine[k]   sin(2 pi k x / T)     (the numerator's)
// The second is what lets the numerator cost no more images than the
// denominator (Sugimoto & Kamata's compressive bilateral filter writes the
// Gaussian's x R(x) as -s^2 R'(x); here every kernel has its own sine series).
struct RangeSeries {
  int terms = 0;      // N
  double period = 0;  // T, in the units of the samples
  // The larger of max |R~(x) - R(x)| and max |S~(x) - x R(x)| / length over
  // |x| <= length: the weight error per unit of spatial weight.
  double error = 0;
  std::vector<double> cosine, sine;  // N + 1 each; sine[0] = 0
};

// The automatic term count is the smallest N whose error is at most the
// kernel's target (64 when none is). The error bounds the weights' error,
// but how much of it reaches the output depends on where it lies: the
// Gaussian's and Lorentz's spread over all differences, Tukey's and
// Huber's gather at their corner |x| = sigma_r and alternate in sign there
// (so the photos' differences average them out). The targets come from
// measurements that keep every photo of tests/data at least 5 dB above
// 50 dB against the exact filter (docs/fourier.md, bench/fourier_accuracy).
double series_target_error(RangeKernel kernel);
constexpr int kMaxSeriesTerms = 64;

// The series for `terms` terms (1..64), or the fewest meeting
// series_target_error when `terms` is 0 (64 when none does). Gaussian:
// the coefficients of the periodised Gaussian (analytic), the period
// chosen so that aliasing and truncation errors balance, then refined by a
// golden-section search. Tukey, Lorentz, Huber: the kernel on |x| <= length
// joined smoothly to a flat continuation (x R(x) to zero) over a margin,
// the coefficients by Gauss-Legendre quadrature in double, the margin (so
// the period) chosen from a few among those that need the fewest terms.
RangeSeries design_range_series(RangeKernel kernel, double sigma_r, double length, int terms);

// R(x) in double, by the formulas of core/range_kernels.h (tests check the two agree).
double range_kernel_value(RangeKernel kernel, double x, double sigma_r);

// The spatial Gaussian exp(-n^2 / (2 sigma_s^2)) on |n| <= r = ceil(4 sigma_s),
// the exact filter's window, normalised to sum 1, applied along rows and
// then columns. For r <= 8 (sigma_s <= 2) its taps. Above, a recursion of
// constant cost per sample: a causal and an anticausal part, each the sum
// of two complex first-order sections (Deriche's fourth-order form,
// "Recursively implementing the Gaussian and its derivatives", INRIA
// RR-1893, 1993), each section truncated to the window:
//   u[n] = x[n] + z u[n-1] - z^(r+1) x[n-r-1]  =  sum_{m=0..r} z^m x[n-m],
// so the filter is exactly h[n] = sum_i Re(c_i z_i^|n|) for |n| <= r and 0
// beyond: its reach is the exact filter's, and a band's output does not
// depend on rows beyond it (up to float rounding). The poles are a
// least-squares fit of two damped complex exponentials to the continuous
// Gaussian, scaled by 1/sigma_s; the residues are refitted per sigma_s to
// the sampled window. In parallel form each pole runs on its own, which
// keeps float32 accurate up to sigma_s = 100 (one fourth-order recursion's
// coefficients would lose the DC gain to rounding there).
struct SpatialGaussian {
  bool recursive = false;
  int radius = 0;            // r = ceil(4 sigma_s)
  std::vector<double> taps;  // the normalised window, |n| = 0..r (also for the recursion: what it stands for)
  std::complex<double> pole[2], residue[2];
  double centre = 0;  // h[0] = sum Re(residue_i): both directions count it
  // max |h[n] - taps[n]| over |n| <= r (0 for the taps themselves).
  double max_error = 0;
  double impulse(int n) const;  // h[n]
};

constexpr int kDirectRadius = 8;

SpatialGaussian design_spatial_gaussian(double sigma_s);

// From sigma_s 12 on, the series' images are blurred at reduced resolution
// (issue 14's lead 4, measured first in bench/fourier_reduced_prototype):
// averaged over cells of s x s pixels, s = floor(sigma_s / 4), aligned to
// the image's origin (cell i holds pixels i s .. i s + s - 1, those beyond
// the image the clamped edge pixel, as the exact filter's window sees
// them); blurred on the cell grid by the normalised Gaussian of
//   sigma_c = sqrt(sigma_s^2 - (s^2 - 1) / 12) / s    (cells; 3.99 <= sigma_c < 5),
// whose variance plus the cell's is the window's, as taps on |n| <= ceil(4 sigma_c);
// and brought back to each pixel by bilinear interpolation between the
// cells whose centres ((i + 1/2) s - 1/2) surround it. The window this
// makes is not the exact filter's Gaussian (a box, a Gaussian and a tent),
// so it is used only where it costs little accuracy against the exact
// filter: the photos of docs/fourier.md's table stay above 55 dB at every
// kernel and sigma_r, and within 0.4 dB of the full-resolution filter at
// the gaussian kernel's sigma_r 25. What it saves: the blurs cost 1/s^2 of
// the full-resolution ones, and the term images need no trip to memory at
// full resolution. Not below sigma_s 12: cells of 2 pixels (sigma_s 8-12)
// took as long as the full-resolution path on the CPU (1.02 s at 24 MP,
// sigma_s 8, either way).
struct CoarseGrid {
  int step = 1;    // s (1: full resolution, none of this)
  int radius = 0;  // the cell Gaussian's taps |n| <= radius
  double sigma = 0;
  std::vector<double> taps;  // normalised over |n| <= radius, n = 0..radius
};
constexpr double kCoarseFromSigma = 12.0;
constexpr int kMaxCoarseStep = 25;    // sigma_s <= 100
constexpr int kMaxCoarseRadius = 20;  // sigma_c < 5
CoarseGrid design_coarse_grid(double sigma_s);

// The L*, a* and b* that R'G'B' in 0..1 reaches (GIMP's D50 Lab, the
// conversion of core/color_lab.h), each widened by 0.5: the design range of
// the series in lab mode.
struct LabRange {
  double low[3], high[3];
};
const LabRange& lab_range();

}  // namespace edgewise
