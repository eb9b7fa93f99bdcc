// The collaborative denoiser: Non-Local Bayes (Lebrun, Buades & Morel, "A
// nonlocal Bayesian image denoising algorithm", SIAM J. Imaging Sciences
// 6(3), 2013; "Implementation of the Non-Local Bayes image denoising
// algorithm", IPOL 2013), made multiscale as the Noise Clinic does (Lebrun,
// Colom & Morel, "The Noise Clinic: a blind image denoising algorithm",
// IPOL 2015). The image is denoised in the orthonormal opponent space
// (core/opponent_color.h: Y, C1, C2; grey is one channel), in code values.
//
// One scale, two steps, each the same loop over reference patches:
//   - Reference patches: p x p patches at x in {0, s, 2s, ...} up to W - p,
//     and at W - p (the same in y): a grid fixed to the image's coordinates.
//     Patches lie inside the image; p is the step's patch size, at most the
//     image's width and height.
//   - Group: the reference patch and the K - 1 patches nearest to it among
//     the patches at most R pixels away on both axes, by the squared
//     distance of step 1's noisy luma (step 2: of all channels of the
//     basic estimate), ties broken by raster order in the window; members
//     kept in raster order. Step 1: K = N; step 2: K = the patches closer
//     than tau per sample, at least N and at most N_max.
//   - Member weights a_m: the mean alpha over the patch (1 without alpha);
//     a group of weight 0 is skipped. Means and covariances are a-weighted
//     (covariance scaled by K / (K - 1)).
//   - Noise: the group's intensity L, the weighted mean of the guide's luma
//     (step 1 the noisy image, step 2 the basic estimate) as the mean of R,
//     G and B, gives each opponent channel's noise variance v_c(L) from the
//     plan's table; the patch noise covariance is
//     S_c = strength * beta * v_c(L) * R_c(dx, dy) (R_c the table's
//     normalised autocovariance, a delta for white noise).
//   - Flat channels: a channel whose group variance (over members and
//     pixels) is below flat_gamma * strength * v_c(L) takes its mean for
//     every member: the noisy group's in step 1, the basic group's in step 2.
//   - Step 1, per channel: with C the noisy group's covariance, every member
//     P becomes P - S_c (C + ridge)^-1 (P - mean), when K >= p^2.
//   - Step 2, all channels jointly (a patch is a vector of channels x p^2):
//     with B the basic group's covariance, every noisy member P becomes
//     P - S (B + S + ridge)^-1 (P - mean_noisy), S block-diagonal by channel.
//   - Aggregation: every member's estimate adds a_m * value to its pixels'
//     numerators and a_m to their denominators; a pixel with denominator 0
//     keeps the step's noisy input.
//   ridge = 1e-5 x the factored matrix's mean diagonal + 1e-3 x S's + 1e-6.
// Scales: scale k + 1 is the 2 x 2 mean of scale k (the pixels of the block
// inside the image); each scale is denoised with its own noise table; from
// the coarsest, out_k = D_k + U(out_{k+1} - Dn(D_k)), Dn the 2 x 2 mean and
// U bilinear upsampling (taps 3/4, 1/4, clamped).
//
// Deviations from the IPOL implementation, each for a reason:
//   - IPOL skips reference patches already used as a member (its "paste
//     trick"): which ones are skipped depends on the order patches are
//     visited, so on how the image is cut into bands and threads. Here the
//     reference grid is fixed and every grid patch is processed; each
//     pixel's sums add groups in raster order of their references, so the
//     result does not depend on band height or thread count.
//   - The flat-area test is per channel (IPOL: all channels together):
//     chroma is often flat where luma is not (+0.1 to +0.3 dB on colour
//     photos at sigma 30-50, docs/quality.md).
//   - The noise variance follows the intensity, clipping at 0 and 255
//     included (Foi's clipped-noise model, core/clipped_noise.h): IPOL's
//     step 1 divides by the group covariance, and where clipping shrank the
//     noise below sigma^2 that amplifies it instead (-0.9 dB at sigma 50).
//   - The search window is centred and clipped at the image's edges (IPOL
//     shifts it inside), so that an output pixel depends on at most
//     2R + p - 1 rows around it per step.
//   - A ridge keeps every system solvable (a group of fewer patches than
//     dimensions, transparent members).
// This header holds its parameters (generated from nlbayes_params.def), the
// values its kernels need, its plan and its registry row; the per-group
// math is in nlbayes_math.h, the rows a band computes and reads at each
// scale and step (which both backends execute) in nlbayes_schedule.h.
#pragma once

#include <memory>

#include "filter_registry.h"
#include "filter_spec.h"
#include "noise_estimate.h"
#include "plan.h"

namespace edgewise {

struct NlBayesParameters {
#define EW_DEF_FIELDS
#include "nlbayes_params.def"
};

NlBayesParameters nlbayes_parameters(const FilterSpec& spec);
// Throws std::invalid_argument with validate()'s message for a bad value.
FilterSpec nlbayes_spec(const NlBayesParameters& parameters);

constexpr int kNlbMaxPatch = 7;
constexpr int kNlbMaxScales = 4;
constexpr int kNlbNoiseKnots = 32;
// The autocovariance covers offsets |dx|, |dy| < kNlbMaxPatch.
constexpr int kNlbCovarianceSide = 2 * kNlbMaxPatch - 1;

// One opponent channel's noise at one scale (code values): the variance at
// `knots` luma intensities (linear between, constant beyond), and the
// normalised autocovariance R(dx, dy) at
// autocovariance[(dy + kNlbMaxPatch - 1) * kNlbCovarianceSide + dx + kNlbMaxPatch - 1], R(0, 0) = 1.
struct NlbNoiseChannel {
  float intensity[kNlbNoiseKnots];
  float variance[kNlbNoiseKnots];
  float autocovariance[kNlbCovarianceSide * kNlbCovarianceSide];
};

// The noise every group's covariance is built from, per scale and opponent
// channel. Made by nlbayes_noise_table (nlbayes.cpp) alone, so that a
// better noise model changes that one function.
struct NlbNoiseTable {
  int knots = 0;
  bool white = true;  // every autocovariance is a delta: the noise covariance is diagonal
  NlbNoiseChannel channel[kNlbMaxScales][3];
};

// One step's values (nlbayes.h's header comment names them).
struct NlbStep {
  int patch = 3;          // p (before the clamp to the image's size)
  int group = 27;         // N
  int group_max = 27;     // N_max (step 2)
  int search_radius = 9;  // R
  int step = 2;           // s
  float beta = 1.0f;
  float tau = 0.0f;  // step 2: per sample, code values squared
};

// Plain values the kernels need (trivially copyable: a CUDA kernel can take
// it by value).
struct NlbParams {
  int channels = 3;  // 1 (grey) or 3 (opponent)
  bool has_alpha = false;
  int scales = 1;
  NlbStep first, second;
  float strength = 1.0f;
  float flat_gamma_luma = 1.1f;    // luma, or grey
  float flat_gamma_chroma = 0.8f;  // C1 and C2
  // 1: each scale's first step only. Not a parameter: tests set it on a
  // plan to compare the steps apart (tests/test_nlbayes.cpp).
  int steps = 2;
};

class NlbPlan : public Plan {
 public:
  NlbParams params{};
  NlbNoiseTable noise{};
};

// The noise table for `channels` colour channels (1 or 3) and `scales`
// scales: from the estimate's noise level functions where `estimate` is
// given (sigma-n at auto), else white noise of `sigma` code values.
NlbNoiseTable nlbayes_noise_table(const NoiseEstimate* estimate, double sigma, int channels, int scales);

// --scales auto (0): a second scale where the noise model finds the noise
// correlated over pixels, none for white noise (nlbayes_auto_scales).
// Measured with bench/quality/nlbayes_scales (docs/quality.md, "Scales at
// auto"; 86 cases of white, blurred, YCbCr and camera noise on 5 photos):
// where the measure (nlbayes_coarse_gain at scale 1) exceeded 1.7 a
// second scale gained +0.12 dB on average (50 cases; the camera noise of
// the colour photos +0.13, from -0.05 to +0.44), where it did not +0.01
// (36). No case read between 1.34 (a second scale never paid below) and
// 2.05 (camera noise read 2.10 and up): 1.7 is that gap's middle, and any
// value in it chooses the same on all 86. A third scale gained -0.03 dB on
// average over the second where the second was chosen (camera noise
// +0.01, blurred noise -0.09), for 1.34 instead of 1.27 times the single
// scale's time: two at most.
constexpr int kNlbAutoMaxScales = 2;
constexpr double kNlbAutoScaleGain = 1.7;

// What the noise model says scale `scale` of this filter holds of the
// image's noise: the variance of its 2^scale x 2^scale means over white
// noise's (4^-scale of the pixels' variance), each channel's from its
// fitted spectrum, weighted by its variance (opponent channels for colour,
// `channels` 3; the one channel for grey). 1 for white noise; from 1 to
// about 3.4 at scale 1 for the model's parts (a 0.6 px blur 2.1, 1.2 px 3.4).
double nlbayes_coarse_gain(const NoiseEstimate& estimate, int channels, int scale);

// The scales --scales auto (0) runs: 1, then one more while the next
// scale's gain over the current one's exceeds kNlbAutoScaleGain, at most
// kNlbAutoMaxScales. 1 without an estimate (sigma-n given as a number:
// white noise).
int nlbayes_auto_scales(const NoiseEstimate* estimate, int channels);

// The steps' values for a spec at noise `sigma` on an image of `channels`
// colour channels (the auto rules of patch and group sizes), run on
// `scales` scales (the spec's, or what auto chose; at least 1).
NlbParams nlbayes_params(const NlBayesParameters& n, double sigma, int channels, int scales);
// nlbayes_params's values that decide which rows are read (patch sides,
// search radii, reference steps, scales; the rest left at their defaults):
// the noise never changes them, so the reach and the region grid are known
// before it is.
NlbParams nlbayes_geometry(const NlBayesParameters& n, int channels, int scales);

// Rows an output row depends on around it, for these values (an upper bound
// for every image size): the farthest rows the schedule reads
// (nlbayes_schedule.cpp).
int nlbayes_reach(const NlbParams& params);

const FilterInfo& nlbayes_filter();

}  // namespace edgewise
