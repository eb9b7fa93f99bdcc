// The non-local-means bilateral filter: non-local means (Buades, Coll &
// Morel, "A non-local algorithm for image denoising", CVPR 2005, with the
// noise-corrected weight of their IPOL 2011 implementation) combined with
// the bilateral filter's spatial and range terms, as in the "NLM-bilateral"
// filter. Per pixel p, over the square search window q in p + [-S, S]^2,
// clamp-to-edge:
//   d^2(p,q) = mean over the (2f+1)^2 patch offsets t and the C colour
//              channels of the squared difference of I(p+t) and I(q+t)
//              (0-255 code values, Delta E in lab; per-channel: each channel
//              its own d^2 and weights),
//   w(p,q)   = exp(-max(d^2 / r(p) - 2 sigma_n^2, 0) / h^2)  (1 when h = 0)
//            * exp(-|p-q|^2 / (2 sigma_s^2))
//            * R(delta(p,q); sigma_r)                     (1 at sigma_r's maximum)
//            * alpha(q),
//   out(p)   = sum_q w I(q) / sum_q w; alpha unchanged; no weight keeps I(p).
// r(p) is 1 unless h and sigma-n are both auto (and the mode is not lab):
// then it follows the noise estimate's noise level function, the mean over
// the weight group's channels c of sigma_c(m_c(p))^2 / sigma^2, m_c(p) the
// mean of channel c over p's patch and sigma the image's noise sigma that
// h and sigma-n were resolved from: h and sigma-n scaled by sqrt(r(p)), the
// noise at p's intensity (signal-dependent noise, docs/quality.md).
// This header holds its parameters (generated from nlm_params.def), the
// values its kernels need, its plan and its registry row; the per-pixel
// math is in nlm_math.h.
#pragma once

#include <memory>

#include "bilateral.h"  // ColorMode, RangeKernel
#include "filter_registry.h"
#include "filter_spec.h"
#include "plan.h"

namespace edgewise {

struct NlmParameters {
#define EW_DEF_FIELDS
#include "nlm_params.def"
};

NlmParameters nlm_parameters(const FilterSpec& spec);
// Throws std::invalid_argument with validate()'s message for a bad value.
FilterSpec nlm_spec(const NlmParameters& parameters);

// Knots of the noise profile (NlmParams::noise_ratio): every 255/32 code values.
constexpr int kNlmNoiseKnots = 33;

// Plain values the kernels need (trivially copyable: CUDA kernels take it
// by value). Colour samples are scaled by `unit` so that differences are in
// code values (or Delta E); every weight is one 2^x of a log2 exponent.
struct NlmParams {
  int search_radius;   // S
  int patch_radius;    // f
  int color_channels;  // 1 (grey) or 3 (RGB, or Lab after conversion)
  bool has_alpha;      // an alpha plane follows the colour planes
  bool joint;          // one weight per offset (rgb, lab, grey) or per channel
  bool lab;            // colour planes are converted to Lab around the pass
  bool patch_term;     // h > 0
  bool range_term;     // sigma_r below its maximum
  RangeKernel kernel;
  float unit;                      // 255 (code values) or 1 (Delta E)
  float inverse_unit;              // 1 / unit
  float patch_norm;                // 1 / ((2f+1)^2 * channels per weight group)
  float noise_floor;               // 2 sigma_n^2
  float patch_log2_coefficient;    // log2(e) / h^2
  float spatial_log2_coefficient;  // log2(e) / (2 sigma_s^2)
  // Gaussian: log2(e) / (2 sigma_r^2), folded into the exponent; the other
  // kernels: 1 / sigma_r^2, their q = (delta / sigma_r)^2.
  float range_coefficient;
  // The noise profile, r(p) above (off: r = 1): per colour channel,
  // sigma_c(I)^2 / sigma^2 at I = k / noise_knot_scale (code values),
  // linear between knots and constant beyond.
  bool noise_profile;
  float patch_mean_norm;   // 1 / (2f+1)^2
  float noise_knot_scale;  // knots per code value
  float noise_ratio[3][kNlmNoiseKnots];
};

class NlmPlan : public Plan {
 public:
  NlmParams params{};
  int window() const { return 2 * params.search_radius + 1; }
  int offsets() const { return window() * window(); }
};

const FilterInfo& nlm_filter();

}  // namespace edgewise
