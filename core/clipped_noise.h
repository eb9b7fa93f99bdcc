// Gaussian noise clipped at the 8-bit scale's limits: a sample of
// N(mu, sigma^2) stored as clamp(x, 0, 255) has a mean and a variance of
// its own (Foi, "Clipped noisy images: heteroskedastic modeling and
// practical denoising", Signal Processing 89(12), 2009). The noise
// estimator (noise_estimate.h) uses it to read blocks near a limit the
// image reaches: such a block's measured variance is share * sigma^2.
// Values are code values (0-255) whatever the samples' encoding.
#pragma once

namespace edgewise {

// The limits an image reaches; a limit it never reaches clips nothing.
struct ClipLimits {
  bool low = false;   // samples at 0
  bool high = false;  // samples at 255
};

struct ClippedMoments {
  double mean = 0;
  double variance = 0;
  double slope = 0;  // d mean / d mu: the probability of not being clipped
};

// Of clamp(x, 0, 255) (only at the limits given) for x ~ N(mu, sigma^2),
// sigma > 0.
ClippedMoments clipped_moments(double mu, double sigma, const ClipLimits& limits);

struct Unclipped {
  double mu = 0;     // the intensity before clipping
  double share = 1;  // clipped variance / sigma^2
};

// The mu whose clipped mean is `mean`, and the share of the variance left
// to it. Far from the limits (6 sigma) mu = mean and share = 1; at or
// beyond a limit, or with sigma = 0 near one, share = 0. Near one limit it
// is interpolated from a table (within 1e-3 of share); near both, solved.
Unclipped unclip(double mean, double sigma, const ClipLimits& limits);

}  // namespace edgewise
