// The non-local-means bilateral filter written the naive way in double
// precision, independently of core/ (core/filters/nlm.h states the formula):
// every patch distance summed directly, clamp-to-edge.
#pragma once

#include <utility>
#include <vector>

#include "bilateral_reference.h"

namespace edgewise_reference {

struct NlmSettings {
  Mode mode = Mode::rgb;
  Kernel kernel = Kernel::gaussian;
  int search_radius = 7;  // S
  int patch_radius = 1;   // f
  double h = 8.0;         // 0: the patch term is off
  double sigma_n = 10.0;
  double sigma_s = 100.0;
  double sigma_r = 100000.0;  // its maximum turns the range term off
  // The noise profile (r(p) of core/filters/nlm.h), empty for none: per
  // colour channel the noise level function's points (intensity, sigma)
  // in code values, increasing (none: the channel's sigma is the image's),
  // and the image's sigma it is relative to.
  std::vector<std::vector<std::pair<double, double>>> noise_function;
  double noise_sigma = 0;
  bool range_term() const { return sigma_r < 100000.0; }
};

ReferenceImage nlm_reference(const ReferenceImage& input, const NlmSettings& settings);

// The automatic h and sigma-n as the README documents them ("Automatic
// parameters"), written from that text and not from core: this is the one
// place the tests hold the rule's constants, so a change of the rule
// (docs and core) is a change of these lines.
struct NlmAutoRule {
  double h_per_noise = 0.75;       // h = 0.75 sigma
  double sigma_n_per_noise = 1.0;  // sigma-n = sigma
  double noise_floor = 0.5;        // sigma: the median over the colour channels, at least this
  double lab_per_code = 0.52;      // in lab mode sigma as a Delta E: this many per code value
};
inline constexpr NlmAutoRule kNlmAutoRule{};

// A noise estimate as the reference takes it: per colour channel whether
// it was measured, its sigma and its noise level function's measured
// points (intensity, sigma), in code values.
struct NoiseChannelInput {
  bool valid = false;
  double sigma = 0;
  std::vector<std::pair<double, double>> points;
};

// `settings` with h, sigma-n and sigma-r, where auto, set by `rule` from
// `noise` (sigma-r's auto turns the range term off): sigma = the median of
// the valid channels' sigma, at least the floor (as a Delta E in lab mode);
// with h and sigma-n both at auto, h > 0 and not lab mode, the noise
// profile: each channel's points (a channel not measured keeps the image's
// sigma, ratio 1; one measured without points, its own sigma).
NlmSettings nlm_auto_settings(NlmSettings settings, bool h_auto, bool sigma_n_auto, bool sigma_r_auto,
                              const std::vector<NoiseChannelInput>& noise, const NlmAutoRule& rule = kNlmAutoRule);

}  // namespace edgewise_reference
