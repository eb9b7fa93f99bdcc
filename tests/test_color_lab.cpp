// core/color_lab.h and the double reference (tests/reference/lab_reference)
// against babl, which defines Lab for GIMP ("R'G'B' float" <-> "CIE Lab
// float"). babl is optional: without it (the GPU test machine) the babl
// checks skip with a reason and only the self-consistency checks run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "color_lab.h"
#include "color_rows.h"
#include "reference/lab_reference.h"
#include "test_support.h"

#if EDGEWISE_HAVE_BABL
#include <babl/babl.h>
#endif

namespace edgewise_test {
namespace {

constexpr double kDeltaETolerance = 1e-3;     // Lab against babl
constexpr double kRoundTripTolerance = 1e-5;  // float rgb -> Lab -> rgb
// Out of gamut (below 0 or above 1), where the scalar float round trip
// itself reaches 1.6e-5 over a million samples in [-0.2, 1.3] (the lanes
// 1.5e-5; in gamut both stay under 7.4e-6): twice that.
constexpr double kOutOfGamutRoundTrip = 3.2e-5;

// >= 100000 random colours in [0,1]^3, the cube's corners, every 8-bit grey
// and dark colours (the linear toe of sRGB and of the CIE f).
std::vector<float> test_colours(std::mt19937_64& rng) {
  std::vector<float> rgb;
  std::uniform_real_distribution<float> unit(0.0f, 1.0f), dark(0.0f, 0.02f);
  for (int corner = 0; corner < 8; ++corner)
    for (int c = 0; c < 3; ++c) rgb.push_back(float((corner >> c) & 1));
  for (int grey = 0; grey <= 255; ++grey)
    for (int c = 0; c < 3; ++c) rgb.push_back(float(grey) / 255.0f);
  for (int i = 0; i < 5000; ++i)
    for (int c = 0; c < 3; ++c) rgb.push_back(dark(rng));
  for (int i = 0; i < 100000; ++i)
    for (int c = 0; c < 3; ++c) rgb.push_back(unit(rng));
  return rgb;
}

std::vector<float> core_to_lab(const std::vector<float>& rgb) {
  std::vector<float> lab(rgb.size());
  for (size_t i = 0; i < rgb.size(); i += 3)
    edgewise::rgb_to_lab(rgb[i], rgb[i + 1], rgb[i + 2], lab[i], lab[i + 1], lab[i + 2]);
  return lab;
}

std::vector<double> reference_to_lab(const std::vector<float>& rgb) {
  std::vector<double> lab(rgb.size());
  for (size_t i = 0; i < rgb.size(); i += 3) {
    const double in[3] = {rgb[i], rgb[i + 1], rgb[i + 2]};
    edgewise_reference::rgb_to_lab(in, &lab[i]);
  }
  return lab;
}

// Largest Delta E between two Lab lists, with the colour where it occurs.
template <class A, class B>
void expect_delta_e_below(const std::vector<float>& rgb, const std::vector<A>& got, const std::vector<B>& expected,
                          double tolerance, const char* what) {
  double worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); i += 3) {
    const double g[3] = {double(got[i]), double(got[i + 1]), double(got[i + 2])};
    const double e[3] = {double(expected[i]), double(expected[i + 1]), double(expected[i + 2])};
    const double d = edgewise_reference::delta_e76(g, e);
    if (!(d <= worst)) {
      worst = d;
      at = i;
    }
  }
  EXPECT_LE(worst, tolerance) << what << ": worst Delta E at R'G'B' (" << rgb[at] << ", " << rgb[at + 1] << ", "
                              << rgb[at + 2] << "): got Lab (" << got[at] << ", " << got[at + 1] << ", " << got[at + 2]
                              << "), expected (" << expected[at] << ", " << expected[at + 1] << ", " << expected[at + 2]
                              << ")";
  std::cout << "[  INFO    ] " << what << ": max Delta E " << worst << " over " << got.size() / 3 << " colours"
            << std::endl;
}

TEST(ColorLab, CoreMatchesDoubleReference) {
  EW_SEEDED_RNG(rng);
  const std::vector<float> rgb = test_colours(rng);
  expect_delta_e_below(rgb, core_to_lab(rgb), reference_to_lab(rgb), kDeltaETolerance, "core rgb_to_lab vs reference");
  // The inverse, on the reference's own Lab values.
  const std::vector<double> lab = reference_to_lab(rgb);
  double worst = 0.0;
  for (size_t i = 0; i < lab.size(); i += 3) {
    float back[3];
    edgewise::lab_to_rgb(float(lab[i]), float(lab[i + 1]), float(lab[i + 2]), back[0], back[1], back[2]);
    double expected[3];
    edgewise_reference::lab_to_rgb(&lab[i], expected);
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(back[c] - expected[c]));
  }
  EXPECT_LE(worst, kRoundTripTolerance) << "core lab_to_rgb vs reference";
}

TEST(ColorLab, CoreRoundTrip) {
  EW_SEEDED_RNG(rng);
  const std::vector<float> rgb = test_colours(rng);
  const std::vector<float> lab = core_to_lab(rgb);
  double worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < rgb.size(); i += 3) {
    float back[3];
    edgewise::lab_to_rgb(lab[i], lab[i + 1], lab[i + 2], back[0], back[1], back[2]);
    for (int c = 0; c < 3; ++c) {
      const double d = std::fabs(double(back[c]) - double(rgb[i + size_t(c)]));
      if (!(d <= worst)) {
        worst = d;
        at = i;
      }
    }
  }
  EXPECT_LE(worst, kRoundTripTolerance) << "worst at R'G'B' (" << rgb[at] << ", " << rgb[at + 1] << ", " << rgb[at + 2]
                                        << ")";
}

TEST(ColorLab, ReferenceRoundTrip) {
  EW_SEEDED_RNG(rng);
  const std::vector<float> rgb = test_colours(rng);
  const std::vector<double> lab = reference_to_lab(rgb);
  for (size_t i = 0; i < rgb.size(); i += 3) {
    double back[3];
    edgewise_reference::lab_to_rgb(&lab[i], back);
    // Exact to ~1e-15 except just above 0.04045, where the sRGB standard's
    // two breakpoints (0.04045 encoded, 0.0031308 linear) disagree by 3e-8.
    for (int c = 0; c < 3; ++c) ASSERT_NEAR(back[c], rgb[i + size_t(c)], 1e-7) << "colour " << i / 3;
  }
  // Out-of-gamut values survive too (mirrored transfer curve).
  const double odd[3] = {-0.2, 1.3, 0.5};
  double lab_odd[3], back[3];
  edgewise_reference::rgb_to_lab(odd, lab_odd);
  edgewise_reference::lab_to_rgb(lab_odd, back);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(back[c], odd[c], 1e-12);
}

// The CPU's row conversions (cpu_fallback/color_rows.h: the machine's SIMD
// lanes, FMA where it has it) against the scalar ones: every row length up
// to three vectors and a bit (the padded tail), out-of-gamut samples, and a
// NaN that stays NaN. FMA contraction moves results by float rounding:
// the cube roots f(X), f(Y), f(Z) of the two paths agree within two float
// ulps at 1, and L* = 116 f(Y) - 16, a* = 500 (f(X) - f(Y)) and
// b* = 200 (f(Y) - f(Z)) multiply that by 116, 1000 and 400 (7 % of seeds
// had an a* or b* near 0 off by 1.2e-4, 500 x two ulps of 1.19e-7, against
// the 1e-4 this test held them to), beside a relative 1e-4 for the
// polynomials themselves.
TEST(ColorLab, RowConversionsMatchTheScalarOnes) {
  constexpr float kCubeRootAgreement = 2.0f * 2.384e-7f;
  constexpr float kChannelGain[3] = {116.0f, 1000.0f, 400.0f};
  EW_SEEDED_RNG(rng);
  std::uniform_real_distribution<float> wide(-0.2f, 1.3f);
  const edgewise::cpu::ColorRows& rows = edgewise::cpu::color_rows();
  for (size_t n = 1; n <= 53; ++n) {
    std::vector<float> plane[3];
    for (auto& p : plane)
      for (size_t x = 0; x < n; ++x) p.push_back(x % 7 == 3 ? float(x % 2) : wide(rng));
    if (n > 5) plane[1][5] = NAN;
    std::vector<float> lab[3] = {plane[0], plane[1], plane[2]}, linear = plane[0];
    rows.to_lab(lab[0].data(), lab[1].data(), lab[2].data(), n);
    rows.to_linear(linear.data(), n);
    std::vector<float> back[3] = {lab[0], lab[1], lab[2]}, encoded = linear;
    rows.from_lab(back[0].data(), back[1].data(), back[2].data(), n);
    rows.from_linear(encoded.data(), n);
    for (size_t x = 0; x < n; ++x) {
      SCOPED_TRACE("row of " + std::to_string(n) + ", pixel " + std::to_string(x));
      float expected[3];
      edgewise::rgb_to_lab(plane[0][x], plane[1][x], plane[2][x], expected[0], expected[1], expected[2]);
      for (int c = 0; c < 3; ++c) {
        if (std::isnan(expected[c])) {
          EXPECT_TRUE(std::isnan(lab[c][x]));
          continue;
        }
        EXPECT_NEAR(lab[c][x], expected[c],
                    std::max(kChannelGain[c] * kCubeRootAgreement, 1e-4f * std::fabs(expected[c])));
        if (!std::isnan(plane[1][x])) {
          const bool in_gamut =
              std::all_of(plane, plane + 3, [x](const std::vector<float>& p) { return p[x] >= 0.0f && p[x] <= 1.0f; });
          EXPECT_NEAR(back[c][x], plane[c][x], in_gamut ? kRoundTripTolerance : kOutOfGamutRoundTrip);
        }
      }
      EXPECT_NEAR(linear[x], edgewise::srgb_to_linear(plane[0][x]), 1e-6);
      EXPECT_NEAR(encoded[x], plane[0][x], 1e-6);
    }
  }
}

TEST(ColorLab, WhiteBlackAndGreys) {
  for (const auto& [value, expected_l] : {std::pair{0.0f, 0.0}, std::pair{1.0f, 100.0}}) {
    float L, a, b;
    edgewise::rgb_to_lab(value, value, value, L, a, b);
    EXPECT_NEAR(L, expected_l, 1e-4);
    EXPECT_NEAR(a, 0.0, 1e-4);
    EXPECT_NEAR(b, 0.0, 1e-4);
  }
  // Greys are neutral: a = b = 0 under D50 with the matrix's own white.
  for (int grey = 0; grey <= 255; ++grey) {
    const double v = grey / 255.0, rgb[3] = {v, v, v};
    double lab[3];
    edgewise_reference::rgb_to_lab(rgb, lab);
    EXPECT_NEAR(lab[1], 0.0, 1e-9) << grey;
    EXPECT_NEAR(lab[2], 0.0, 1e-9) << grey;
  }
}

#if EDGEWISE_HAVE_BABL

class BablLab : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { babl_init(); }
  static void TearDownTestSuite() { babl_exit(); }

  static std::vector<float> convert(const char* from, const char* to, const std::vector<float>& in) {
    std::vector<float> out(in.size());
    const Babl* fish = babl_fish(babl_format(from), babl_format(to));
    babl_process(fish, in.data(), out.data(), long(in.size() / 3));
    return out;
  }
};

TEST_F(BablLab, CoreRgbToLabMatchesBabl) {
  EW_SEEDED_RNG(rng);
  const std::vector<float> rgb = test_colours(rng);
  const std::vector<float> babl_lab = convert("R'G'B' float", "CIE Lab float", rgb);
  expect_delta_e_below(rgb, core_to_lab(rgb), babl_lab, kDeltaETolerance, "core rgb_to_lab vs babl");
}

TEST_F(BablLab, ReferenceRgbToLabMatchesBabl) {
  EW_SEEDED_RNG(rng);
  const std::vector<float> rgb = test_colours(rng);
  const std::vector<float> babl_lab = convert("R'G'B' float", "CIE Lab float", rgb);
  expect_delta_e_below(rgb, reference_to_lab(rgb), babl_lab, kDeltaETolerance, "reference rgb_to_lab vs babl");
}

// The way back, on Lab values babl produced: compared in R'G'B'.
TEST_F(BablLab, LabToRgbMatchesBabl) {
  EW_SEEDED_RNG(rng);
  const std::vector<float> rgb = test_colours(rng);
  const std::vector<float> lab = convert("R'G'B' float", "CIE Lab float", rgb);
  const std::vector<float> babl_rgb = convert("CIE Lab float", "R'G'B' float", lab);
  double worst_core = 0.0, worst_reference = 0.0;
  for (size_t i = 0; i < lab.size(); i += 3) {
    float core[3];
    edgewise::lab_to_rgb(lab[i], lab[i + 1], lab[i + 2], core[0], core[1], core[2]);
    const double in[3] = {lab[i], lab[i + 1], lab[i + 2]};
    double reference[3];
    edgewise_reference::lab_to_rgb(in, reference);
    for (int c = 0; c < 3; ++c) {
      worst_core = std::max(worst_core, std::fabs(double(core[c]) - babl_rgb[i + size_t(c)]));
      worst_reference = std::max(worst_reference, std::fabs(reference[c] - babl_rgb[i + size_t(c)]));
    }
  }
  std::cout << "[  INFO    ] lab_to_rgb vs babl: core " << worst_core << ", reference " << worst_reference << std::endl;
  EXPECT_LE(worst_core, 1e-4);
  EXPECT_LE(worst_reference, 1e-4);
}

#else

TEST(BablLab, NotAvailable) {
  GTEST_SKIP() << "built without babl (pkg-config babl not found): Lab is not checked against "
                  "babl here, only against the double reference";
}

#endif

}  // namespace
}  // namespace edgewise_test
