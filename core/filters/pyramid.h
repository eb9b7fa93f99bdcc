// The multiresolution bilateral filter: the exact bilateral filter of
// bilateral.h applied on every level of a Laplacian pyramid and to its
// coarse residual, then the pyramid collapsed (Membarth, Hannig, Teich &
// Kostler, "Efficient mapping of multiresolution image filtering algorithms
// on graphics processors", SAMOS 2009; the pyramid of Burt & Adelson 1983,
// pyramid_math.h). With G_0 the image, G_{k+1} = REDUCE(G_k),
//   L_k = G_k - EXPAND(G_{k+1})  (k < levels - 1),  L_{levels-1} = G_{levels-1},
//   R_{levels-1} = B_{levels-1}(G_{levels-1}),  R_k = L'_k + EXPAND(R_{k+1}),
// and the output is R_0, where the filtered level L'_k is
//   --guide gaussian (default):  B_k(G_k) - EXPAND(G_{k+1}): the range
//     weights are measured on the image at the level's scale, where an
//     edge is a step (equal to B_k(L_k) with G_k's weights up to how B_k
//     moves the smooth EXPAND(G_{k+1}));
//   --guide laplacian:  B_k(L_k), Membarth et al.'s scheme, weights and
//     values both of the Laplacian level (an edge is a +- ripple there).
// B_k is the bilateral filter (mode, kernel, sigma-s and radius as given, in
// level-k pixels; alpha weights from the alpha plane's Gaussian pyramid)
// with sigma_r(k) = sigma-r * gain(k) * strength (* coarse-strength for
// k >= 1), gain(k) being the standard deviation that white noise of
// deviation 1 has in what B_k filters (pyramid_gaussian_gains,
// pyramid_noise_gains): the user's sigma-r, which the bilateral filter
// takes relative to the image's noise, follows the noise down the pyramid.
// One level is the bilateral filter itself (gain 1); every sigma_r(k) -> 0
// gives the input back (B_k the identity, the pyramid exact).
// In lab mode the pyramid is built in CIE L*a*b*; L* is filtered at
// strength x luma-strength and a*b* at strength x chroma-strength, each by
// the bilateral filter's lab mode (joint Delta E) at its own sigma-r: one
// pass when the two agree, else two, each keeping its own channels. A
// strength of 0 leaves its channels' levels as they are.
// This header holds the parameters (from pyramid_params.def), the plan and
// the registry row; the taps are in pyramid_math.h, the per-level math is
// the bilateral filter's (bilateral_math.h).
#pragma once

#include <memory>
#include <vector>

#include "bilateral.h"
#include "filter_registry.h"
#include "noise_spectrum.h"
#include "filter_spec.h"
#include "plan.h"
#include "pyramid_math.h"

namespace edgewise {

// The choices of --guide, in pyramid_params.def's order (its other choices
// are the bilateral filter's enums, which EW_DEF_ENUMS would define again).
enum class PyramidGuide { gaussian, laplacian };

struct PyramidParameters {
#define EW_DEF_FIELDS
#include "pyramid_params.def"
};

PyramidParameters pyramid_parameters(const FilterSpec& spec);
// Throws std::invalid_argument with validate()'s message for a bad value.
FilterSpec pyramid_spec(const PyramidParameters& parameters);

constexpr int kPyramidMaxLevels = 8;
constexpr int kPyramidAutoMaxLevels = 6;
constexpr int kPyramidAutoCoarsest = 32;  // px: the automatic levels keep the coarsest level at least this size

// The levels the filter uses for an image of this size: `levels`, or for 0
// as many as keep the coarsest level's smaller side >= 32 px, at most 6
// (and at least 1).
int pyramid_levels(int levels, int width, int height);

// gain(k), k = 0 .. levels - 1: the standard deviation that white noise of
// standard deviation 1 has on Laplacian level k (the last: the residual
// G_{levels-1}), averaged over the four phases of EXPAND (its even and odd
// rows and columns interpolate differently). Computed exactly from the
// taps in double; borders ignored.
std::vector<double> pyramid_noise_gains(int levels);

// The same for the Gaussian levels G_k: |a_k|^2 for G_k's 1-D response a_k
// (1, 0.2734, 0.1235, 0.0604, 0.0300, 0.0150, 0.0075, 0.0037).
std::vector<double> pyramid_gaussian_gains(int levels);

// Both for noise of a measured spectrum (noise_spectrum.h), per unit of its
// deviation: correlated noise keeps more of itself on the coarse levels
// (camera noise through a 5-level pyramid: G_4 holds 2-6 times white
// noise's share), which is where the multiresolution filter finds it.
std::vector<double> pyramid_noise_gains(int levels, const NoiseSpectrum& spectrum);
std::vector<double> pyramid_gaussian_gains(int levels, const NoiseSpectrum& spectrum);

// The per-level sigma-r (the rule above) for an image sigma-r and strength:
// sigma_r gain(k) strength, times coarse_strength on levels 1 and up.
std::vector<double> pyramid_level_sigma_r(double sigma_r, int levels, double strength, PyramidGuide guide,
                                          double coarse_strength = 1.0);

// The sigma-r the filter takes for an image whose noise has standard
// deviation `noise_sigma` (code values, Delta E in lab): the factor the
// quality evaluation found best (docs/quality.md). The automatic sigma-r's
// rule, one line away from the registry's noise_value.
double pyramid_sigma_r_for_noise(double noise_sigma);

// The rows of each level a band's output rows depend on (inclusive ranges
// in level rows, clipped to the level; pyramid_math.h's dependencies).
struct PyramidBandRows {
  std::vector<PyramidRange> gaussian;   // G_k: built by REDUCE (G_0: read from the input band)
  std::vector<PyramidRange> laplacian;  // L_k: the bilateral filter's input (its window around `result`)
  std::vector<PyramidRange> result;     // R_k: filtered and collapsed
};

PyramidBandRows pyramid_band_rows(PyramidRange output_rows, int levels, int radius, const std::vector<int>& heights);

// Rows above and below an output row its value depends on, for the worst
// phase of the pyramid's grid, borders ignored.
int pyramid_reach(int levels, int radius);

// One bilateral pass over a level: the family's plan for its sigma-r, and
// which colour planes of its output the pass keeps.
struct PyramidPass {
  BilateralPlan bilateral;
  int first_plane = 0, planes = 0;
};

class PyramidPlan : public Plan {
 public:
  int levels = 1;
  int radius = 0;          // per level, in that level's pixels
  int color_channels = 1;  // 1 or 3
  bool has_alpha = false;
  bool lab = false;                  // the pyramid is built in Lab (converted once, around the whole band)
  std::vector<int> widths, heights;  // per level
  // Per level, the white-noise gain of what the range weights are measured
  // on: pyramid_noise_gains (laplacian) or pyramid_gaussian_gains (gaussian).
  std::vector<double> gains;
  bool gaussian_weights = true;  // PyramidGuide::gaussian
  // Per level, the bilateral passes (none: the level is left as it is).
  std::vector<std::vector<PyramidPass>> passes;
};

const FilterInfo& pyramid_filter();

}  // namespace edgewise
