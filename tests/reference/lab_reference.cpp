#include "lab_reference.h"

#include <cmath>

namespace edgewise_reference {
namespace {

// Linear sRGB to XYZ (D50), babl's matrix; the white point is its row sums.
constexpr double kRgbToXyz[3][3] = {{0.4360348582, 0.3851166666, 0.1430513710},
                                    {0.2224879414, 0.7169038653, 0.0606082566},
                                    {0.0139158843, 0.0970605090, 0.7139289379}};

// CIE constants as exact ratios (CIE 15:2004 note on epsilon and kappa).
constexpr double kEpsilon = 216.0 / 24389.0;
constexpr double kKappa = 24389.0 / 27.0;

struct Matrix3 {
  double m[3][3];
};

Matrix3 invert(const double a[3][3]) {
  Matrix3 inv;
  const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                     a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      // Cofactor of a[j][i] (transposed: the adjugate).
      const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      inv.m[i][j] = (a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]) / det;
    }
  return inv;
}

const Matrix3& xyz_to_rgb() {
  static const Matrix3 inverse = invert(kRgbToXyz);
  return inverse;
}

double white(int row) { return kRgbToXyz[row][0] + kRgbToXyz[row][1] + kRgbToXyz[row][2]; }

double cie_f(double t) { return t > kEpsilon ? std::cbrt(t) : (kKappa * t + 16.0) / 116.0; }

double cie_f_inverse(double f) {
  const double cube = f * f * f;
  return cube > kEpsilon ? cube : (116.0 * f - 16.0) / kKappa;
}

}  // namespace

double srgb_to_linear(double encoded) {
  const double a = std::fabs(encoded);
  const double linear = a <= 0.04045 ? a / 12.92 : std::pow((a + 0.055) / 1.055, 2.4);
  return std::copysign(linear, encoded);
}

double linear_to_srgb(double linear) {
  const double a = std::fabs(linear);
  const double encoded = a <= 0.0031308 ? a * 12.92 : 1.055 * std::pow(a, 1.0 / 2.4) - 0.055;
  return std::copysign(encoded, linear);
}

void rgb_to_lab(const double rgb[3], double lab[3]) {
  double linear[3], f[3];
  for (int c = 0; c < 3; ++c) linear[c] = srgb_to_linear(rgb[c]);
  for (int row = 0; row < 3; ++row) {
    double xyz = 0.0;
    for (int c = 0; c < 3; ++c) xyz += kRgbToXyz[row][c] * linear[c];
    f[row] = cie_f(xyz / white(row));
  }
  lab[0] = 116.0 * f[1] - 16.0;
  lab[1] = 500.0 * (f[0] - f[1]);
  lab[2] = 200.0 * (f[1] - f[2]);
}

void lab_to_rgb(const double lab[3], double rgb[3]) {
  const double fy = (lab[0] + 16.0) / 116.0;
  const double f[3] = {fy + lab[1] / 500.0, fy, fy - lab[2] / 200.0};
  double xyz[3];
  for (int row = 0; row < 3; ++row) xyz[row] = cie_f_inverse(f[row]) * white(row);
  const Matrix3& m = xyz_to_rgb();
  for (int c = 0; c < 3; ++c) {
    double linear = 0.0;
    for (int k = 0; k < 3; ++k) linear += m.m[c][k] * xyz[k];
    rgb[c] = linear_to_srgb(linear);
  }
}

double delta_e76(const double lab1[3], const double lab2[3]) {
  const double dl = lab1[0] - lab2[0], da = lab1[1] - lab2[1], db = lab1[2] - lab2[2];
  return std::sqrt(dl * dl + da * da + db * db);
}

}  // namespace edgewise_reference
