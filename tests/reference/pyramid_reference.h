// The multiresolution bilateral filter (core/filters/pyramid.h states it)
// written the naive way in double precision, independently of core/: the
// Gaussian and Laplacian pyramids by the 5-tap binomial with every index
// clamped to its level, each level filtered by a plain double bilateral
// filter (square window, clamp-to-edge, alpha weights from the alpha
// plane's Gaussian pyramid), the pyramid collapsed; lab mode converts to
// CIE L*a*b* once around it all. The per-level sigma-r are inputs (a test
// passes the plan's), so what this judges is how a backend computes the
// pyramid and the levels' filters: bands, vectors, float32.
#pragma once

#include <vector>

#include "bilateral_reference.h"

namespace edgewise_reference {

// One bilateral pass over a level: its sigma-r (0: the pass is skipped)
// and the colour channels whose result it keeps.
struct PyramidPassSettings {
  double sigma_r = 20.0;
  int first_channel = 0, channels = 3;
};

struct PyramidSettings {
  Mode mode = Mode::rgb;
  Kernel kernel = Kernel::gaussian;
  double sigma_s = 1.0;
  int radius = 2;
  int levels = 1;
  // Range weights measured on G_k, the level's Laplacian then B_k(G_k) -
  // EXPAND(G_{k+1}); else on (and of) the Laplacian L_k itself.
  bool gaussian_guide = true;
  // Per level (levels entries), the passes in order; none leaves the level as it is.
  std::vector<std::vector<PyramidPassSettings>> passes;
};

ReferenceImage pyramid_reference(const ReferenceImage& input, const PyramidSettings& settings);

// Laplacian level k (or the residual, k = levels - 1) of a one-channel
// image, as a width x height grid of that level, for measuring noise gains.
std::vector<double> laplacian_level_reference(const std::vector<double>& image, int width, int height, int levels,
                                              int k, int& level_width, int& level_height);

}  // namespace edgewise_reference
