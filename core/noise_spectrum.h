// The spatial spectrum of a channel's noise: how its variance is spread
// over frequencies, which tells how much of it an estimator, a filter's
// window or a pyramid level sees. Camera noise is not white: demosaicing
// correlates it over two or three pixels, the colour matrix and JPEG's
// chroma subsampling push its colour part to still lower frequencies. A
// measure at the finest scale (Immerkaer's kernel, noise_estimate.h) then
// sees a fraction of it: a third to a twentieth of the variance of
// bench/quality's camera noise.
//
// Model: the noise is a sum of independent parts, each white noise blurred
// by a Gaussian of deviation kSpectrumBlurs[j] (0: white), with variances
// v_j >= 0: a power spectrum that is a non-negative mixture of Gaussians,
// separable, falling smoothly to its value at the origin. The parts are
// what the pipeline does to sensor noise (demosaicing blurs by about half a
// pixel, chroma subsampling and the colour matrix's mixing by one or two,
// resizing by more). The v_j are fitted (non-negative least squares,
// Lawson & Hanson) to the noise's readings at several scales: Immerkaer's
// kernel on the image averaged over 2^s x 2^s pixels, s = 0 .. 3, each
// reading's expected value for each part computed exactly (below); this is
// the multiscale measurement of the Noise Clinic (Lebrun, Colom & Morel,
// "Multiscale image blind denoising", IEEE TIP 24(10), 2015), reduced to
// one number per scale and a parametric spectrum instead of one variance per
// DCT frequency, so that a 0.2 MP crop still has enough flat blocks at
// every scale. On bench/quality's camera noise fields (noise alone) the fit
// gives the total variance within 5-12 %.
//
// Every variance here is computed from the parts' autocorrelations:
// Var(sum_n h(n) x(n)) = sum_{m,n} h(m) h(n) c(m - n), in each axis (the
// parts and the operators used are separable).
#pragma once

#include <array>
#include <vector>

namespace edgewise {

constexpr int kSpectrumParts = 3;
constexpr double kSpectrumBlurs[kSpectrumParts] = {0.0, 0.6, 1.2};
// The scales read: Immerkaer's kernel on 2^s x 2^s averages, s = 0 .. kSpectrumScales - 1.
constexpr int kSpectrumScales = 3;

struct NoiseSpectrum {
  // Each part's share of the noise variance (summing to 1); white noise:
  // {1, 0, 0, 0, 0}.
  std::array<double, kSpectrumParts> shares{1.0, 0.0, 0.0};

  // The noise's autocorrelation at offset (dx, dy) pixels (1 at 0, 0).
  double autocorrelation(int dx, int dy) const;
  // The variance of sum h(u) h(v) x(x + u, y + v) for a 1-D filter h
  // (taps centred on index (size - 1) / 2), per unit of noise variance.
  double variance_through(const std::vector<double>& taps) const;
  // Of a separable 2-D filter with taps h_x across and h_y down.
  double variance_through(const std::vector<double>& across, const std::vector<double>& down) const;
  // Immerkaer's reading at scale s per unit of noise variance: 4^-s for
  // white noise.
  double reading(int scale) const;
};

// One measurement the spectrum must explain: what each part (per unit of
// its variance at the finest scale) would read, and what was read.
struct SpectrumEquation {
  std::array<double, kSpectrumParts> per_part{};
  double measured = 0;
  double weight = 1;  // how much its relative error counts (say, the square root of the blocks it was read on)
};

// The parts' variances v_j >= 0 that explain the measurements best, each
// equation's error taken relative to its measured value (the readings of
// different scales and operators differ by orders of magnitude; their
// errors, from sampling and from texture left in the blocks, are
// relative) and times its weight. Lawson & Hanson's non-negative least squares. Parts no
// equation responds to get 0.
std::array<double, kSpectrumParts> fit_parts(const std::vector<SpectrumEquation>& equations);

// The spectrum of those variances (white when they are all 0).
NoiseSpectrum spectrum_of(const std::array<double, kSpectrumParts>& variances);

// The covariance of part j's noise averaged over 2^scale x 2^scale boxes,
// between two box means dx, dy boxes apart, per unit of its variance at
// the finest scale (4^-scale at 0, 0 for white noise).
double part_covariance(int part, int scale, int dx, int dy);

// sum_{m,n} u(m) v(n) c_j(m - n) for part j's normalised 1-D
// autocorrelation c_j (taps indexed from 0 on one grid): the covariance of
// two 1-D filters' outputs on that part's noise, per unit of its variance.
// The parts are separable, so a 2-D filter's variance is a product of two.
double part_bilinear(int part, const std::vector<double>& u, const std::vector<double>& v);

// The reading at scale s of part j, per unit of its variance (exact).
double spectrum_part_reading(int part, int scale);

}  // namespace edgewise
