// The opponent colour space the noise model and the collaborative denoiser
// work in: luma and two chroma differences, as the Non-Local Bayes and
// BM3D implementations use (Lebrun, Buades & Morel, IPOL 2013, "Implementation
// of the Non-Local Bayes image denoising algorithm", section 2.2; Dabov et
// al.'s CBM3D uses the same directions). The rows are normalised, so the
// transform is orthonormal: white noise of standard deviation s in each of
// R, G and B is white noise of deviation s in each opponent channel, and a
// noise covariance C in RGB is M C M^T here.
//   Y  = (R + G + B) / sqrt(3)
//   C1 = (R - B) / sqrt(2)
//   C2 = (R - 2G + B) / sqrt(6)
// Camera noise is far from white in RGB after the colour matrix (its three
// channels are strongly correlated); here its luma and chroma parts, which
// demosaicing, the colour matrix and JPEG's chroma subsampling treat
// differently, are apart.
#pragma once

#include "hostdevice.h"

namespace edgewise {

constexpr double kOpponent[3][3] = {
    {0.57735026918962576, 0.57735026918962576, 0.57735026918962576},
    {0.70710678118654752, 0.0, -0.70710678118654752},
    {0.40824829046386302, -0.81649658092772603, 0.40824829046386302},
};

template <typename T>
EW_HD void rgb_to_opponent(T r, T g, T b, T& y, T& c1, T& c2) {
  y = T(0.57735026918962576) * (r + g + b);
  c1 = T(0.70710678118654752) * (r - b);
  c2 = T(0.40824829046386302) * (r + b) - T(0.81649658092772603) * g;
}

// The inverse is the transpose.
template <typename T>
EW_HD void opponent_to_rgb(T y, T c1, T c2, T& r, T& g, T& b) {
  const T luma = T(0.57735026918962576) * y;
  const T chroma = T(0.40824829046386302) * c2;
  r = luma + T(0.70710678118654752) * c1 + chroma;
  g = luma - T(0.81649658092772603) * c2;
  b = luma - T(0.70710678118654752) * c1 + chroma;
}

}  // namespace edgewise
