// The noise spectrum's parts and fit (core/noise_spectrum.h) against values
// derived by hand: white noise's readings and covariances at each scale,
// a mixture recovered from its own exact readings, the texture strength
// of white noise.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "noise_blocks.h"
#include "noise_spectrum.h"

namespace {

using namespace edgewise;

double white_covariance(int dx, int dy, const void*) { return dx == 0 && dy == 0 ? 1.0 : 0.0; }

TEST(NoiseSpectrum, WhitePartReadsItsVarianceOverFourPerScale) {
  // Immerkaer's kernel on 2^s averages: the averages have variance 4^-s,
  // and the kernel, normalised by its 36, reads exactly that.
  for (int s = 0; s < kSpectrumScales; ++s) {
    EXPECT_NEAR(spectrum_part_reading(0, s), std::pow(0.25, s), 1e-12) << "scale " << s;
    EXPECT_NEAR(part_covariance(0, s, 0, 0), std::pow(0.25, s), 1e-12);
    EXPECT_EQ(part_covariance(0, s, 1, 0), 0.0);
  }
  NoiseSpectrum white;
  EXPECT_DOUBLE_EQ(white.autocorrelation(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(white.autocorrelation(1, 0), 0.0);
  // A box of 2 samples: variance 2 * (1/2)^2 = 1/2 of white noise's.
  EXPECT_NEAR(white.variance_through({0.5, 0.5}, {1.0}), 0.5, 1e-12);
}

TEST(NoiseSpectrum, BlurredPartsAreCorrelatedAndLowpass) {
  for (int j = 1; j < kSpectrumParts; ++j) {
    NoiseSpectrum part;
    part.shares.fill(0.0);
    part.shares[size_t(j)] = 1.0;
    SCOPED_TRACE("blur " + std::to_string(kSpectrumBlurs[j]));
    EXPECT_NEAR(part.autocorrelation(0, 0), 1.0, 1e-12);
    // A Gaussian blur of s: the neighbours' correlation is about
    // exp(-1 / (4 s^2)) (the continuous kernel's), symmetric, below 1.
    const double expected = std::exp(-1.0 / (4 * kSpectrumBlurs[j] * kSpectrumBlurs[j]));
    EXPECT_NEAR(part.autocorrelation(1, 0), expected, 0.06);
    EXPECT_DOUBLE_EQ(part.autocorrelation(1, 0), part.autocorrelation(-1, 0));
    EXPECT_DOUBLE_EQ(part.autocorrelation(0, 1), part.autocorrelation(1, 0));
    // Less of it at the finest scale than white noise, more at the coarsest.
    EXPECT_LT(spectrum_part_reading(j, 0), 1.0);
    EXPECT_GT(spectrum_part_reading(j, kSpectrumScales - 1), spectrum_part_reading(0, kSpectrumScales - 1));
  }
}

TEST(NoiseSpectrum, FitRecoversAMixtureFromItsReadings) {
  const std::array<double, kSpectrumParts> truth = {2.0, 0.5, 3.0};
  std::vector<SpectrumEquation> equations;
  for (int s = 0; s < kSpectrumScales; ++s) {
    SpectrumEquation e;
    for (int j = 0; j < kSpectrumParts; ++j) {
      e.per_part[size_t(j)] = spectrum_part_reading(j, s);
      e.measured += truth[size_t(j)] * spectrum_part_reading(j, s);
    }
    equations.push_back(e);
  }
  const std::array<double, kSpectrumParts> fitted = fit_parts(equations);
  for (int j = 0; j < kSpectrumParts; ++j) EXPECT_NEAR(fitted[size_t(j)], truth[size_t(j)], 1e-6) << "part " << j;
  const NoiseSpectrum spectrum = spectrum_of(fitted);
  EXPECT_NEAR(spectrum.shares[0], 2.0 / 5.5, 1e-6);
  // Readings no mixture gives (rising faster than any part): the fit stays
  // non-negative.
  equations[0].measured = 1.0;
  equations[1].measured = 50.0;
  for (double v : fit_parts(equations)) EXPECT_GE(v, 0.0);
}

TEST(NoiseSpectrum, WhiteNoiseHasUnitTextureStrength) {
  EXPECT_NEAR(noise_blocks::expected_strength(white_covariance, nullptr), 1.0, 1e-12);
}

}  // namespace
