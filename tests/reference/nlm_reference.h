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
  // in code values, increasing, and the image's sigma it is relative to.
  std::vector<std::vector<std::pair<double, double>>> noise_function;
  double noise_sigma = 0;
  bool range_term() const { return sigma_r < 100000.0; }
};

ReferenceImage nlm_reference(const ReferenceImage& input, const NlmSettings& settings);

}  // namespace edgewise_reference
