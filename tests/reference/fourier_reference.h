// The Fourier bilateral filter's formula (core/filters/fourier.h states it)
// written the naive way in double precision, independently of core/: per
// pixel, D and E are the series summed directly over the square window,
// each neighbour weighted by its spatial weight and alpha, clamp-to-edge.
// The series' coefficients come from this file's own quadrature of the
// functions core/filters/fourier_design.h documents (fourier_series_reference),
// given the design's choices (period, term count, range); the spatial
// window from its formula: the normalised Gaussian taps up to radius 8, the
// documented recursion between radius 8 and sigma-s 12
// (fourier_recursive_window), the reduced resolution's cells, cell
// Gaussian and interpolation from sigma-s 12. So this judges the design's
// numbers as well as how a backend computes the formula: recursions,
// lanes, bands, float32.
//
// And the yardsticks of the filter's accuracy: the exact bilateral filter
// with each channel weighted by its own difference, in code values
// (bilateral_reference's per-channel mode) or in L*a*b* (below, for the
// filter's lab mode; the exact filter's own lab mode weighs the joint
// Delta E, which no one-dimensional series can).
#pragma once

#include <vector>

#include "bilateral_reference.h"

namespace edgewise_reference {

// One colour channel's series (working units: code values 0-255, or L*,
// a*, b*): samples clamped to [low, high] and centred on their middle,
//   R(x) ~ sum_k cosine[k] cos(2 pi k x / period),
//   x R(x) ~ sum_k sine[k] sin(2 pi k x / period).
struct FourierChannelSeries {
  double low = 0, high = 255;
  double period = 1;
  std::vector<double> cosine, sine;
};

// The series of `kernel` (0 gaussian, 1 tukey, 2 lorentz, 3 huber) at
// sigma_r on differences |x| <= length, period and terms as designed, by
// composite Simpson quadrature in double: gaussian, the coefficients of the
// periodised kernel (its integrals over the whole line); the others, of
// the kernel on [0, length] continued to [length, period / 2] by the
// documented smooth step (R flattening to R(length), x R(x) to zero).
FourierChannelSeries fourier_series_reference(Kernel kernel, double sigma_r, double low, double high, double period,
                                              int terms);

// The window that stands for the Gaussian beyond radius 8, as
// core/filters/fourier_design.h documents it: h[n] = sum_i Re(c_i z_i^|n|)
// on |n| <= r = ceil(4 sigma_s), z_i = exp((-decay_i + j frequency_i) /
// sigma_s) with the documented fit's constants, the residues c_i the
// least-squares fit (n > 0 counted twice) to the normalised Gaussian taps,
// solved here by a QR factorisation, then scaled to sum 1. n = 0..r.
std::vector<double> fourier_recursive_window(double sigma_s);

struct FourierSettings {
  Mode mode = Mode::per_channel;  // per_channel or lab; grey images have one channel
  double sigma_s = 1.0;
  std::vector<FourierChannelSeries> channels;  // one per colour channel
  double min_denominator = 1e-3;               // relative to A, the window's spatially weighted alpha
  double denominator_floor = 1e-5;
};

// The window along one axis of `length` samples: the weight of sample q
// (clamp-to-edge folded in) for the pixel at p, at p * length + q.
std::vector<double> fourier_axis_window(const FourierSettings& settings, int length);

// out = u + E / max(D, min_denominator A, denominator_floor), clamped to
// [low, high]; alpha unchanged.
ReferenceImage fourier_reference(const ReferenceImage& input, const FourierSettings& settings);

// The exact bilateral filter on L*, a* and b* each with its own weights
// (kernel, sigma_s, sigma_r in Delta E, radius as in `settings`), back to
// R'G'B'; per-channel mode is bilateral_reference's.
ReferenceImage lab_channels_bilateral_reference(const ReferenceImage& input, const BilateralSettings& settings);

}  // namespace edgewise_reference
