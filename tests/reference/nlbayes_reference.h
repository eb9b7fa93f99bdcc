// The collaborative denoiser (--filter nlbayes: Non-Local Bayes, Lebrun,
// Buades & Morel, SIAM J. Imaging Sciences 6(3), 2013, and IPOL 2013; made
// multiscale as in the Noise Clinic, Lebrun, Colom & Morel, IPOL 2015)
// written the plain way in double precision, independently of core/: every
// patch distance, mean, covariance and Cholesky solve computed directly, per
// reference patch, in the order core/filters/nlbayes.h states.
//
// Besides the image it reports which output samples no near-tie decision
// touched (`stable`): the group search keeps the K nearest patches and the
// flat-area test compares a variance with a threshold, both hard decisions
// that float rounding may take the other way where two distances (or the
// variance and the threshold) are closer than rounding can tell apart. The
// tests compare only the stable samples tightly and require most samples to
// be stable (tests/test_nlbayes.cpp explains the margins).
#pragma once

#include <vector>

#include "bilateral_reference.h"  // ReferenceImage

namespace edgewise_reference {

// One opponent channel's noise at one scale: the variance as a function of
// the luma intensity (code values: the mean of R, G and B, or the grey
// value), linear between knots and constant beyond, and the normalised
// autocovariance R(dx, dy) for |dx|, |dy| < span (R(0, 0) = 1), row-major
// from (-(span-1), -(span-1)). An empty autocovariance is white noise.
struct NlBayesNoise {
  std::vector<double> intensities;  // increasing
  std::vector<double> variances;
  int span = 0;
  std::vector<double> autocovariance;
};

struct NlBayesStep {
  int patch = 5;          // patch side p
  int group = 60;         // patches per group N (the reference among them)
  int group_max = 60;     // at most this many (step 2: those closer than tau join, up to here)
  int search_radius = 8;  // candidates within this many pixels of the reference, both axes
  int step = 3;           // reference patches every `step` pixels, and at the last position
  double beta = 1.0;      // multiplies the noise covariance
  double tau = 0.0;       // step 2: squared distance per patch sample below which patches join
};

struct NlBayesSettings {
  NlBayesStep first, second;
  double strength = 1.0;     // multiplies the noise covariance and the flat threshold
  // A channel of a group is flat when its variance is below gamma x the noise's.
  double flat_gamma_luma = 1.1;    // luma, or grey
  double flat_gamma_chroma = 0.8;  // the two chroma channels
  int scales = 1;
  int steps = 2;                                 // 1: each scale's first step only (tests compare the steps apart)
  std::vector<std::vector<NlBayesNoise>> noise;  // [scale][opponent channel]
  // Margins of the near-tie test: relative, and absolute in code values squared.
  // margin(v) = tie_relative |v| + tie_absolute sqrt(|v| samples)
  // + tie_absolute^2 samples / 4: the rounding of a float sum of `samples`
  // squares, and of its terms (each within tie_absolute / 2), which does
  // not vanish at v = 0 (nlbayes_reference.cpp, margin).
  double tie_relative = 1e-5;
  double tie_absolute = 5e-4;
};

struct NlBayesResult {
  ReferenceImage image;
  std::vector<char> stable;  // per sample of image (alpha samples always stable)
  // Per sample, on the 0-1 scale: how far float rounding may move it, from
  // the condition numbers of the systems its groups solved (a group of
  // about as many patches as dimensions, or of transparent members, is
  // nearly singular: its solve amplifies rounding by the condition number).
  // Capped at kMaxRoundingBound: see there.
  std::vector<double> bound;
};

// The cap on NlBayesResult::bound, 0-1 scale (0.025 code values; the checks
// allow 4 times it, 0.1). The estimate (condition number x dimension x
// 2^-24 x (the correction + the members' mean), the mean for the centring's
// rounding, which does not shrink with the deviation) grows without limit
// as a group's system nears singular: uncapped, it allowed up to 94 code
// values at some samples of test_nlbayes (6% of the compared samples more
// than one), which would pass any error there. It is a worst case: the
// CPU's largest difference at any compared sample over all of test_nlbayes
// was 0.0041 code values (the other comparisons' 0.0007 at most), a 25th
// of the capped allowance, and 0.0087 in one saturated corner (seed
// 13971711748375762147 of MatchesReferenceAwkwardSizes: members at 255
// with a few far below, centred deviations near 0 carrying 255's rounding;
// the correction-only estimate allowed 0.0005 there).
// Where rounding can move a sample by code values, a near tie flipped a
// decision; those samples are flagged (`stable`) and not compared.
inline constexpr double kMaxRoundingBound = 0.025 / 255.0;

// `basic`, when given (one scale), is step 2's guide instead of step 1's
// result: the CPU's own basic estimate, so that step 2 is compared on the
// same input.
NlBayesResult nlbayes_reference(const ReferenceImage& input, const NlBayesSettings& settings,
                                const ReferenceImage* basic = nullptr);

// One scale's basic estimate as an implementation computed it: the
// opponent planes (Y, C1, C2; or grey) in code values, row-major, of that
// scale's size (each scale the 2 x 2 means of the finer one's pixels).
struct NlBayesBasic {
  int width = 0, height = 0;
  std::vector<std::vector<double>> planes;
};

// Every scale's step 2 guided by `basics[scale]` (one per scale) instead
// of its step 1's result, so that the steps of several scales are compared
// on the implementation's own step 1: a float and a double step 1 differ by
// more than the near-tie margins allow for, and a step-2 decision on them
// may go either way unflagged (seed 9529512051811526549 of
// MatchesReferenceAwkwardSizes, 31 x 17 RGBA, 3 scales: a candidate at
// 192.046 on the reference's own step 1, tau 192, margin 0.026, stayed out
// of a group the CPU's took it into, 0.27 code values apart; on the CPU's
// step 1 it is at 191.981, a near tie, flagged). Given estimates are
// exact: none of their samples is unstable, their rounding bound 0.
// Throws std::invalid_argument where a scale's size or planes differ.
NlBayesResult nlbayes_reference(const ReferenceImage& input, const NlBayesSettings& settings,
                                const std::vector<NlBayesBasic>& basics);

}  // namespace edgewise_reference
