// Double-precision R'G'B' <-> CIE L*a*b* as GIMP defines it (babl's
// "R'G'B' float" <-> "CIE Lab float": sRGB primaries Bradford-adapted to a
// D50 white). Written from the CIE formulas, independently of core/, so it
// can judge core/color_lab.h; tests/test_color_lab.cpp checks it against babl.
#pragma once

namespace edgewise_reference {

// sRGB transfer curve, mirrored for negative values as babl does.
double srgb_to_linear(double encoded);
double linear_to_srgb(double linear);

// rgb: R'G'B' (sRGB-encoded), lab: L* 0..100, a*, b*.
void rgb_to_lab(const double rgb[3], double lab[3]);
void lab_to_rgb(const double lab[3], double rgb[3]);

// Euclidean distance in Lab (Delta E 1976).
double delta_e76(const double lab1[3], const double lab2[3]);

}  // namespace edgewise_reference
