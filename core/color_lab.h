// R'G'B' (sRGB-encoded, 0..1) <-> CIE L*a*b* as GIMP defines it: babl's
// "CIE Lab float", i.e. D50 white, sRGB primaries Bradford-adapted to D50.
// The matrix is babl's own (read off babl 0.1.98 by converting the unit
// linear-RGB vectors to "CIE XYZ float"); its inverse was computed in double.
// tests/test_color_lab.cpp checks this file against babl on random colours.
#pragma once

#include <cmath>

#include "hostdevice.h"

namespace edgewise {

// sRGB transfer curve, mirrored for negative values as babl does, so
// out-of-gamut floats survive a round trip.
EW_HD float srgb_to_linear(float v) {
  const float a = fabsf(v);
  const float lin = a <= 0.04045f ? a / 12.92f : powf((a + 0.055f) / 1.055f, 2.4f);
  return copysignf(lin, v);
}

EW_HD float linear_to_srgb(float v) {
  const float a = fabsf(v);
  const float enc = a <= 0.0031308f ? a * 12.92f : 1.055f * powf(a, 1.0f / 2.4f) - 0.055f;
  return copysignf(enc, v);
}

// CIE constants: epsilon = 216/24389, kappa = 24389/27.
EW_HD float lab_f(float t) {
  return t > 216.0f / 24389.0f ? cbrtf(t) : (24389.0f / 27.0f * t + 16.0f) / 116.0f;
}

EW_HD float lab_f_inverse(float f) {
  const float cube = f * f * f;
  return cube > 216.0f / 24389.0f ? cube : (116.0f * f - 16.0f) / (24389.0f / 27.0f);
}

// The D50 white is the matrix's row sums, so R'G'B' white maps to L = 100,
// a = b = 0 exactly as in babl.
EW_HD void rgb_to_lab(float r_enc, float g_enc, float b_enc, float& L, float& a, float& b) {
  const float r = srgb_to_linear(r_enc), g = srgb_to_linear(g_enc), bl = srgb_to_linear(b_enc);
  const float x = 0.4360348582f * r + 0.3851166666f * g + 0.1430513710f * bl;
  const float y = 0.2224879414f * r + 0.7169038653f * g + 0.0606082566f * bl;
  const float z = 0.0139158843f * r + 0.0970605090f * g + 0.7139289379f * bl;
  const float fx = lab_f(x / 0.9642028958f);
  const float fy = lab_f(y / 1.0000000633f);
  const float fz = lab_f(z / 0.8249053312f);
  L = 116.0f * fy - 16.0f;
  a = 500.0f * (fx - fy);
  b = 200.0f * (fy - fz);
}

EW_HD void lab_to_rgb(float L, float a, float b, float& r_enc, float& g_enc, float& b_enc) {
  const float fy = (L + 16.0f) / 116.0f;
  const float fx = fy + a / 500.0f;
  const float fz = fy - b / 200.0f;
  const float x = lab_f_inverse(fx) * 0.9642028958f;
  const float y = lab_f_inverse(fy) * 1.0000000633f;
  const float z = lab_f_inverse(fz) * 0.8249053312f;
  const float r = 3.1342755479f * x - 1.6172765710f * y - 0.4907240514f * z;
  const float g = -0.9787935428f * x + 1.9161604069f * y + 0.0334523723f * z;
  const float bl = 0.0719763283f * x - 0.2289831132f * y + 1.4057168740f * z;
  r_enc = linear_to_srgb(r);
  g_enc = linear_to_srgb(g);
  b_enc = linear_to_srgb(bl);
}

}  // namespace edgewise
