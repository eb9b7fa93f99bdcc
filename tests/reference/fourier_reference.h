// The Fourier bilateral filter's formula (core/filters/fourier.h states it)
// written the naive way in double precision, independently of core/: per
// pixel, D and E are the series summed directly over the square window,
// each neighbour weighted by its spatial weight and alpha, clamp-to-edge.
// The series' coefficients and the spatial weights are inputs (a test
// passes the plan's), so what this judges is how a backend computes the
// formula: its recursions, term lanes, bands and float32.
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

struct FourierSettings {
  Mode mode = Mode::per_channel;  // per_channel or lab; grey images have one channel
  // h[|n|], n = 0..radius: the separable spatial weight of offset (dx, dy) is h[|dx|] h[|dy|].
  std::vector<double> spatial;
  // Reduced resolution (core's fourier_design.h, CoarseGrid) when
  // coarse_step s > 1: then `spatial` is unused and the weight of the
  // (clamped) sample at virtual position q for the pixel at p is, per axis,
  //   w(p, q) = sum over the two cells c around p of b_c(p) g[|c - floor(q / s)|] / s,
  // g = coarse_taps (|n| <= its radius), the cells' centres at
  // (c + 1/2) s - 1/2 and b_c the bilinear weights: cells of s pixels
  // averaged, blurred by g on their grid, interpolated back, written as
  // the one window it makes.
  int coarse_step = 1;
  std::vector<double> coarse_taps;
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
