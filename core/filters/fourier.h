// The Fourier bilateral filter: the bilateral filter of bilateral.h (same
// spatial Gaussian, range kernels and alpha weights) with the range kernel
// expanded in a cosine series, so that its cost per pixel does not depend
// on sigma_s (Chaudhury, Sage & Unser, "Fast O(1) bilateral filtering using
// trigonometric range kernels", IEEE TIP 2011; Sugimoto & Kamata,
// "Compressive bilateral filtering", IEEE TIP 2015, for the optimised
// period; the four kernels as in Atanasov, TU Delft 2024). Per colour
// channel, with u the clamped sample centred on its range and w = 2 pi / T:
//   R(x)   ~ sum_{k=0..N} a_k cos(w k x),   x R(x) ~ sum_{k=1..N} b_k sin(w k x),
//   C_k = G * (alpha cos(w k u)),   S_k = G * (alpha sin(w k u)),
//   D(p) = sum_k a_k (cos(w k u_p) C_k(p) + sin(w k u_p) S_k(p))   ~ sum_q G alpha R(u_q - u_p)
//   E(p) = sum_k b_k (cos(w k u_p) S_k(p) - sin(w k u_p) C_k(p))   ~ sum_q G alpha (u_q - u_p) R(u_q - u_p)
//   A(p) = G * alpha,
//   out(p) = u_p + E(p) / max(D(p), D_min A(p), D_floor), clamped to the samples' range.
// Two blurred images per term, and A once. The series' error in D is at
// most its kernel error times A, so where D / A is below D_min (a pixel
// unlike all its neighbours) the output moves only D / (D_min A) of the
// way towards what the series says, down to keeping the pixel; D_floor
// (1e-5) does the same where almost no visible pixel is near (A tiny, or
// 0: all transparent, where the exact filter keeps the pixel too).
// G is normalised; fourier_design.h says how it is computed, and how from
// sigma_s 12 on C_k, S_k and A are blurred at reduced resolution instead
// (cells of s x s pixels, a Gaussian on their grid, bilinear back).
// This header holds the parameters (from fourier_params.def), the values
// the kernels need, the plan and the registry row; the per-pixel math is in
// fourier_math.h.
#pragma once

#include <memory>
#include <vector>

#include "bilateral.h"  // ColorMode, RangeKernel
#include "filter_registry.h"
#include "filter_spec.h"
#include "plan.h"

namespace edgewise {

struct FourierParameters {
#define EW_DEF_FIELDS
#include "fourier_params.def"
};

FourierParameters fourier_parameters(const FilterSpec& spec);
// Throws std::invalid_argument with validate()'s message for a bad value.
FilterSpec fourier_spec(const FourierParameters& parameters);

// fourier_design.h's kMaxCoarseStep and kMaxCoarseRadius (checked there).
constexpr int kFourierMaxCoarseStep = 25;
constexpr int kFourierMaxCoarseRadius = 20;

// One colour channel's samples in working units (code values, or L*, a*,
// b*): clamped to [low, high], then centred on `middle` for the series.
struct FourierChannel {
  float low, high, middle;
  float half_range;      // (high - low) / 2: centred samples lie within +-half_range
  float turns_per_unit;  // 1 / T: the phase of term k at u is k u / T turns
};

// Plain values the kernels need (trivially copyable: CUDA kernels take it by value).
struct FourierParams {
  int terms;           // N; term 0 is the constant (the blurred alpha)
  int color_channels;  // 1 (grey) or 3 (RGB, or Lab after conversion)
  bool has_alpha;      // an alpha plane follows the colour planes
  bool lab;            // colour planes are converted to Lab around the pass
  float unit;          // working units per 0..1 sample: 255, or 1 for Lab
  float inverse_unit;
  float min_denominator;    // D_min, relative to A
  float denominator_floor;  // D_floor
  FourierChannel channel[3];
  // The spatial Gaussian (fourier_design.h): taps of radius `radius`, or
  // the recursion's two poles z_i and residues c_i, with z_i^(r+1) (the
  // weight of the sample leaving the window), (1 - z_i^(r+1)) / (1 - z_i)
  // for clamp-to-edge starts (the state after a constant run of 1) and
  // h[0] = sum Re(c_i), which the causal and anticausal parts both hold.
  bool recursive;
  int radius;  // r = ceil(4 sigma_s)
  float pole_re[2], pole_im[2];
  float residue_re[2], residue_im[2];
  float leaving_re[2], leaving_im[2];
  float steady_re[2], steady_im[2];
  float centre;
  // Reduced resolution (fourier_design.h, CoarseGrid; sigma_s >= 12): cells
  // of coarse_step x coarse_step pixels, blurred by coarse_tap[|n|], |n| <=
  // coarse_radius, on the cell grid. Pixel x's phase m = x mod s places it
  // between cells x / s + coarse_shift[m] and the next, the second weighing
  // coarse_weight[m] (fourier_coarse_position). coarse_step 1: none of this.
  int coarse_step;
  int coarse_radius;
  float coarse_tap[kFourierMaxCoarseRadius + 1];
  int coarse_shift[kFourierMaxCoarseStep];
  float coarse_weight[kFourierMaxCoarseStep];
};

class FourierPlan : public Plan {
 public:
  FourierParams params{};
  // Per colour channel c and term k = 0..N, at c * (N + 1) + k: the
  // cosine series' a_k and the sine series' b_k (b_0 = 0).
  std::vector<float> cosine, sine;
  // The direct taps h[|n|], n = 0..radius (when not recursive).
  std::vector<float> taps;
  // What the design achieved, for tests and docs: per colour channel the
  // period and the series' error (fourier_design.h), and the spatial
  // filter's largest difference from the normalised truncated Gaussian.
  double period[3] = {0, 0, 0};
  double series_error[3] = {0, 0, 0};
  double spatial_error = 0;

  size_t coefficient(int channel, int term) const { return size_t(channel) * size_t(params.terms + 1) + size_t(term); }
};

// The term count the filter uses for this spec (the automatic one for terms
// 0; 0 while sigma-r is auto, since N follows sigma-r).
int fourier_terms(const FilterSpec& spec);

const FilterInfo& fourier_filter();

}  // namespace edgewise
