// The multiresolution bilateral filter (core/filters/pyramid.h states it)
// written the naive way in double precision, independently of core/: the
// Gaussian and Laplacian pyramids by the 5-tap binomial with every index
// clamped to its level, each level filtered by a plain double bilateral
// filter (square window, clamp-to-edge, alpha weights from the alpha
// plane's Gaussian pyramid), the pyramid collapsed; lab mode converts to
// CIE L*a*b* once around it all. The per-level sigma-r follow
// core/filters/pyramid.h's rule, sigma-r x gain(k) x strength (x coarse
// strength from level 1, x luminance or colour strength in lab mode), with
// gain(k) found here: the deviation white noise keeps through this file's
// own REDUCE and EXPAND (pyramid_gains_reference), not core's.
#pragma once

#include <vector>

#include "bilateral_reference.h"

namespace edgewise_reference {

struct PyramidSettings {
  Mode mode = Mode::rgb;
  Kernel kernel = Kernel::gaussian;
  double sigma_s = 1.0;
  int radius = 2;
  int levels = 1;
  // Range weights measured on G_k, the level's Laplacian then B_k(G_k) -
  // EXPAND(G_{k+1}); else on (and of) the Laplacian L_k itself.
  bool gaussian_guide = true;
  double sigma_r = 20.0;  // the image's (code values, Delta E in lab)
  double strength = 1, coarse_strength = 1, luma_strength = 1, chroma_strength = 1;
};

// gain(k), k = 0 .. levels - 1, of the Gaussian levels G_k (gaussian guide)
// or of the Laplacian levels L_k (the last: the residual): the standard
// deviation that white noise of deviation 1 on the image has there, away
// from the borders, averaged over the four phases of EXPAND. Found by
// pushing unit impulses through this file's REDUCE and EXPAND on one row
// (both are separable: the 2-D response at row phase p, column phase q is
// a_p(u) a_q(v) - b_p(u) b_q(v)) and summing the squared 2-D responses.
std::vector<double> pyramid_gains_reference(int levels, bool gaussian_guide);

ReferenceImage pyramid_reference(const ReferenceImage& input, const PyramidSettings& settings);

// Laplacian level k (or the residual, k = levels - 1) of a one-channel
// image, as a width x height grid of that level, for measuring noise gains.
std::vector<double> laplacian_level_reference(const std::vector<double>& image, int width, int height, int levels,
                                              int k, int& level_width, int& level_height);

}  // namespace edgewise_reference
