// The CPU backend against the double-precision reference (tests/reference/)
// on random images of awkward sizes, plus the properties the engine promises:
// alpha passes through, band height and thread count do not change a bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <ostream>
#include <tuple>
#include <vector>

#include "backend.h"
#include "engine.h"
#include "executor.h"
#include "plan.h"
#include "reference/lab_reference.h"
#include "test_support.h"

// Readable parameter names in gtest's messages.
namespace edgewise {
void PrintTo(RangeKernel kernel, std::ostream* out) { *out << to_string(kernel); }
void PrintTo(ColorMode mode, std::ostream* out) { *out << to_string(mode); }
}  // namespace edgewise

namespace edgewise_test {
namespace {

using edgewise::ColorMode;
using edgewise::RangeKernel;
using edgewise::RunOptions;

// Outputs are 0..1; the reference is exact up to double rounding, the
// backend float32 with a polynomial exponential.
constexpr double kTolerance = 1e-4;

const int kChannelCounts[] = {1, 2, 3, 4};

bool has_alpha(int channels) { return channels == 2 || channels == 4; }
bool converts_to_lab(ColorMode mode, int channels) { return mode == ColorMode::lab && channels >= 3; }

double uniform_between(std::mt19937_64& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}

// Alpha must come out as it went in, bit for bit.
void expect_alpha_unchanged(const FloatImage& input, const FloatImage& output) {
  const ImageShape& shape = input.shape();
  if (!has_alpha(shape.channels)) return;
  const int a = shape.channels - 1;
  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x) {
      const float in = input.at(x, y, a), out = output.at(x, y, a);
      if (std::memcmp(&in, &out, sizeof in) != 0) {
        ADD_FAILURE() << "alpha changed at x=" << x << " y=" << y << ": " << in << " -> " << out;
        return;
      }
    }
}

// Every sample, transparent pixels with underflowing windows included (the
// engine rescues those, core/bilateral.h), within kTolerance.
void expect_matches_reference(const FilterSpec& spec, const FloatImage& input, const FloatImage& output) {
  SCOPED_TRACE(describe(spec, input.shape()));
  const Comparison result = compare_with_reference(spec, input, output, kTolerance);
  EXPECT_LE(result.worst.max_abs, kTolerance) << result.describe();
  expect_alpha_unchanged(input, output);
}

// ---------------------------------------------------------------------------

TEST(BilateralCpu, ConstantImageIsUnchanged) {
  EW_SEEDED_RNG(rng);
  for (int channels : kChannelCounts)
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels) {
        const ImageShape shape{19, 11, channels};
        float pixel[4];
        for (float& sample : pixel) sample = float(uniform_between(rng, 0.0, 1.0));
        // Alpha varies (zeros included) while colour is constant.
        FloatImage input = random_image(rng, shape, {false, Alpha::with_zeros});
        FloatImage constant = constant_image(shape, pixel);
        if (has_alpha(channels))
          for (int y = 0; y < shape.height; ++y)
            for (int x = 0; x < shape.width; ++x) constant.at(x, y, channels - 1) = input.at(x, y, channels - 1);
        const FilterSpec spec = make_spec(mode, kernel, 2.0f, 15.0f);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage output = run_cpu(spec, constant);
        // Lab goes through a float32 round trip (rgb -> Lab -> rgb).
        const double tolerance = converts_to_lab(mode, channels) ? 1e-5 : 1e-6;
        const Difference diff = max_difference(constant, output);
        EXPECT_LE(diff.max_abs, tolerance) << diff.describe();
        expect_alpha_unchanged(constant, output);
      }
}

// With sigma-r huge every range weight is ~1, so the filter is an
// (alpha-weighted) Gaussian blur over the same clamped square window; lab
// blurs the Lab values.
FloatImage gaussian_blur(const FloatImage& input, double sigma_s, int radius, bool lab) {
  const ImageShape& shape = input.shape();
  const int colors = shape.channels >= 3 ? 3 : 1;
  auto working = [&](int x, int y, double* out) {
    if (lab) {
      const double rgb[3] = {input.at(x, y, 0), input.at(x, y, 1), input.at(x, y, 2)};
      edgewise_reference::rgb_to_lab(rgb, out);
    } else {
      for (int c = 0; c < colors; ++c) out[c] = input.at(x, y, c);
    }
  };
  FloatImage output = input;
  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x) {
      double sum[3] = {0, 0, 0}, weight_sum = 0.0;
      for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
          const int qx = std::clamp(x + dx, 0, shape.width - 1);
          const int qy = std::clamp(y + dy, 0, shape.height - 1);
          double w = std::exp(-(dx * dx + dy * dy) / (2.0 * sigma_s * sigma_s));
          if (has_alpha(shape.channels)) w *= input.at(qx, qy, shape.channels - 1);
          double value[3];
          working(qx, qy, value);
          for (int c = 0; c < colors; ++c) sum[c] += w * value[c];
          weight_sum += w;
        }
      if (weight_sum <= 0.0) continue;
      double result[3];
      for (int c = 0; c < colors; ++c) result[c] = sum[c] / weight_sum;
      if (lab) {
        double rgb[3];
        edgewise_reference::lab_to_rgb(result, rgb);
        for (int c = 0; c < 3; ++c) result[c] = rgb[c];
      }
      for (int c = 0; c < colors; ++c) output.at(x, y, c) = float(result[c]);
    }
  return output;
}

TEST(BilateralCpu, HugeRangeSigmaIsGaussianBlur) {
  EW_SEEDED_RNG(rng);
  for (int channels : kChannelCounts)
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels) {
        const ImageShape shape{23, 17, channels};
        const FloatImage input = random_image(rng, shape, {false, Alpha::positive});
        const float sigma_s = float(uniform_between(rng, 0.7, 2.5));
        const FilterSpec spec = make_spec(mode, kernel, sigma_s, 100000.0f);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage expected =
            gaussian_blur(input, sigma_s, edgewise::effective_radius(spec), converts_to_lab(mode, channels));
        const FloatImage output = run_cpu(spec, input);
        const Difference diff = max_difference(expected, output);
        EXPECT_LE(diff.max_abs, kTolerance) << diff.describe();
        expect_alpha_unchanged(input, output);
      }
}

// At sigma-r 0.001 code values a neighbour one code value away weighs
// exp(-5e5) (gaussian) or 0 (tukey): only identical colours average, which
// returns the input. Lorentz and Huber have heavy tails (2e-6 and 1e-3 per
// code value), so they are held to the reference instead.
TEST(BilateralCpu, TinyRangeSigmaKeepsQuantizedInput) {
  EW_SEEDED_RNG(rng);
  for (int channels : kChannelCounts)
    for (ColorMode mode : {ColorMode::per_channel, ColorMode::rgb})
      for (RangeKernel kernel : kKernels) {
        const ImageShape shape{31, 17, channels};
        const FloatImage input = random_image(rng, shape, {true, Alpha::positive});
        const FilterSpec spec = make_spec(mode, kernel, 1.5f, 0.001f);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage output = run_cpu(spec, input);
        if (kernel == RangeKernel::gaussian || kernel == RangeKernel::tukey) {
          const Difference diff = max_difference(input, output);
          EXPECT_LE(diff.max_abs, 1e-6) << diff.describe();
          expect_alpha_unchanged(input, output);
        } else {
          expect_matches_reference(spec, input, output);
        }
      }
}

// ---------------------------------------------------------------------------
// Every kernel x mode x channel count against the reference.

struct WindowCase {
  int radius;  // 0: automatic from sigma_s
  double sigma_s_low, sigma_s_high;
};
// Automatic radii of 1..5, and fixed radii with sigma_s both smaller and
// larger than the window.
const WindowCase kWindows[] = {{0, 0.5, 2.5}, {1, 0.5, 3.0}, {2, 0.5, 3.0}, {5, 0.8, 4.0}};
const ImageShape kSizes[] = {{1, 1, 0}, {1, 37, 0}, {29, 1, 0}, {13, 7, 0}, {17, 5, 0}, {31, 17, 0}, {113, 113, 0}};

using SweepParam = std::tuple<RangeKernel, ColorMode, int>;

class BilateralReferenceSweep : public ::testing::TestWithParam<SweepParam> {};

TEST_P(BilateralReferenceSweep, MatchesReference) {
  const auto [kernel, mode, channels] = GetParam();
  EW_SEEDED_RNG(rng);
  for (ImageShape shape : kSizes)
    for (const WindowCase& window : kWindows) {
      shape.channels = channels;
      const FloatImage input = random_image(rng, shape, {false, Alpha::positive});
      const float sigma_s = float(uniform_between(rng, window.sigma_s_low, window.sigma_s_high));
      const float sigma_r = float(uniform_between(rng, 10.0, 60.0));
      const FilterSpec spec = make_spec(mode, kernel, sigma_s, sigma_r, window.radius);
      expect_matches_reference(spec, input, run_cpu(spec, input));
    }
}

std::string sweep_name(const ::testing::TestParamInfo<SweepParam>& info) {
  std::string name = std::string(edgewise::to_string(std::get<0>(info.param))) + "_" +
                     edgewise::to_string(std::get<1>(info.param)) + "_" + std::to_string(std::get<2>(info.param)) +
                     "ch";
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllKernelsModesChannels, BilateralReferenceSweep,
                         ::testing::Combine(::testing::ValuesIn(kKernels), ::testing::ValuesIn(kModes),
                                            ::testing::ValuesIn(kChannelCounts)),
                         sweep_name);

// ---------------------------------------------------------------------------

// The CPU entry of the backend list, driven by the executor directly.
TEST(BilateralCpu, BackendListEntryMatchesReference) {
  EW_SEEDED_RNG(rng);
  const edgewise::BackendProvider* cpu = edgewise::find_backend(edgewise::installed_backends(), "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->is_fallback());
  std::string description;
  EXPECT_TRUE(cpu->usable(description));
  std::unique_ptr<edgewise::Backend> backend = cpu->make({});
  EXPECT_FALSE(backend->name().empty());
  for (int channels : kChannelCounts)
    for (ColorMode mode : kModes) {
      const ImageShape shape{37, 23, channels};
      FloatImage input = random_image(rng, shape, {false, Alpha::with_zeros});
      const FilterSpec spec = make_spec(mode, RangeKernel::gaussian, 1.7f, 25.0f);
      const std::unique_ptr<edgewise::Plan> plan = edgewise::make_plan(spec, shape);
      FloatImage source = input, output(shape);
      edgewise::StreamInput in(source, shape);
      edgewise::StreamOutput out(output, shape);
      edgewise::execute(*plan, *backend, in, out, {}, {});
      expect_matches_reference(spec, input, output);
    }
}

// Colour is weighted by the neighbour's alpha; zeros included.
TEST(BilateralCpu, AlphaWeightsNeighbours) {
  EW_SEEDED_RNG(rng);
  for (int channels : {2, 4})
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels)
        for (ImageShape shape : {ImageShape{31, 17, 0}, ImageShape{13, 7, 0}}) {
          shape.channels = channels;
          const FloatImage input = random_image(rng, shape, {false, Alpha::with_zeros});
          const float sigma_s = float(uniform_between(rng, 0.7, 2.5));
          const float sigma_r = float(uniform_between(rng, 10.0, 60.0));
          const FilterSpec spec = make_spec(mode, kernel, sigma_s, sigma_r);
          expect_matches_reference(spec, input, run_cpu(spec, input));
        }
}

// A transparent pixel whose whole window is transparent has zero total
// weight and keeps its value.
TEST(BilateralCpu, TransparentWindowKeepsValue) {
  EW_SEEDED_RNG(rng);
  for (int channels : {2, 4})
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels) {
        const ImageShape shape{21, 15, channels};
        FloatImage input = random_image(rng, shape, {false, Alpha::positive});
        const int r = 2, cx = 9, cy = 6, a = channels - 1;
        for (int y = cy - r; y <= cy + r; ++y)
          for (int x = cx - r; x <= cx + r; ++x) input.at(x, y, a) = 0.0f;
        const FilterSpec spec = make_spec(mode, kernel, 1.5f, 30.0f, r);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage output = run_cpu(spec, input);
        // Lab mode still converts to Lab and back (float32 round trip).
        const double tolerance = converts_to_lab(mode, channels) ? 1e-5 : 0.0;
        for (int c = 0; c < channels; ++c)
          EXPECT_NEAR(output.at(cx, cy, c), input.at(cx, cy, c), tolerance) << "channel " << c;
        expect_matches_reference(spec, input, output);
      }
}

// Transparent centres whose visible neighbours are far away in colour: all
// weights underflow float (around 2^-200 here) yet are real numbers, so the
// result is the exact weighted mean the reference gives, not the pixel's own
// value (that only for windows beyond double range, next case).
TEST(BilateralCpu, UnderflowingWindowsMatchReference) {
  for (float far : {0.25f, 0.9f}) {
    const FloatImage input = transparent_centre_image(far);
    // sigma_r 8 code values: the 0.25 neighbour sits 64 code values away,
    // weight 2^-46 (ordinary); sigma_r 2: 2^-740, below float, within double;
    // 0.9 at sigma_r 0.5: beyond double, so the pixel keeps its value.
    for (float sigma_r : {8.0f, 2.0f, 0.5f})
      for (RangeKernel kernel : {RangeKernel::gaussian, RangeKernel::tukey})
        for (ColorMode mode : kModes) {
          const FilterSpec spec = make_spec(mode, kernel, 1.0f, mode == ColorMode::lab ? sigma_r / 2 : sigma_r, 1);
          expect_matches_reference(spec, input, run_cpu(spec, input));
        }
  }
}

TEST(BilateralCpu, IterationsMatchRepeatedReference) {
  EW_SEEDED_RNG(rng);
  for (int iterations : {2, 3})
    for (int channels : {1, 3, 4})
      for (ColorMode mode : kModes)
        for (RangeKernel kernel : {RangeKernel::gaussian, RangeKernel::tukey, RangeKernel::huber}) {
          const ImageShape shape{29, 23, channels};
          const FloatImage input = random_image(rng, shape, {false, Alpha::positive});
          const float sigma_r = float(uniform_between(rng, 10.0, 60.0));
          const FilterSpec spec = make_spec(mode, kernel, 1.3f, sigma_r, 0, iterations);
          expect_matches_reference(spec, input, run_cpu(spec, input));
        }
}

// Every output pixel sees the same padded neighbourhood whatever the band
// height, so the result must not change by a single bit; iterations > 1 run
// as passes within each band (a halo of iterations x radius rows), which is
// where a band-edge bug shows. Bands are at least that halo tall.
TEST(BilateralCpu, BandHeightDoesNotChangeOutput) {
  EW_SEEDED_RNG(rng);
  struct Case {
    ColorMode mode;
    RangeKernel kernel;
    int channels, radius, iterations;
  };
  const Case cases[] = {
      {ColorMode::rgb, RangeKernel::gaussian, 3, 0, 1}, {ColorMode::per_channel, RangeKernel::tukey, 4, 2, 1},
      {ColorMode::lab, RangeKernel::gaussian, 4, 3, 1}, {ColorMode::rgb, RangeKernel::gaussian, 4, 3, 3},
      {ColorMode::lab, RangeKernel::lorentz, 3, 0, 3},  {ColorMode::per_channel, RangeKernel::huber, 2, 5, 3},
      {ColorMode::lab, RangeKernel::huber, 4, 1, 2},
  };
  for (const Case& test : cases) {
    const ImageShape shape{37, 41, test.channels};
    const FloatImage input = random_image(rng, shape, {false, Alpha::with_zeros});
    const FilterSpec spec = make_spec(test.mode, test.kernel, 1.5f, 25.0f, test.radius, test.iterations);
    SCOPED_TRACE(describe(spec, shape));
    RunOptions whole;
    whole.band_rows = shape.height;
    const FloatImage expected = run_cpu(spec, input, whole);
    for (int band_rows : {1, 2, 3, 7, 64}) {
      RunOptions options;
      options.band_rows = band_rows;
      const FloatImage output = run_cpu(spec, input, options);
      EXPECT_TRUE(bit_identical(expected, output))
          << "band_rows " << band_rows
          << " differs from whole-height bands: " << max_difference(expected, output).describe();
    }
    expect_matches_reference(spec, input, expected);
  }
}

TEST(BilateralCpu, ThreadCountDoesNotChangeOutput) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (int iterations : {1, 3}) {
      const ImageShape shape{53, 47, 4};
      const FloatImage input = random_image(rng, shape, {false, Alpha::with_zeros});
      const FilterSpec spec = make_spec(mode, RangeKernel::gaussian, 2.0f, 30.0f, 0, iterations);
      SCOPED_TRACE(describe(spec, shape));
      RunOptions one, two;
      one.backend_options.threads = 1;
      two.backend_options.threads = 2;
      // Small bands so both threads get several rows of several bands.
      one.band_rows = two.band_rows = 9;
      const FloatImage a = run_cpu(spec, input, one), b = run_cpu(spec, input, two);
      EXPECT_TRUE(bit_identical(a, b)) << max_difference(a, b).describe();
    }
}

TEST(BilateralCpu, InvalidSpecOrShapeThrows) {
  FloatImage image(ImageShape{4, 4, 3});
  FloatImage output(ImageShape{4, 4, 3});
  RunOptions options;
  options.backend = "cpu";
  // Each value alone is checked as it is set; these two only together.
  FilterSpec bad(edgewise::adaptive_filter());
  ASSERT_EQ(edgewise::set_param(bad, "adapt-min", 0.5), "");
  ASSERT_EQ(edgewise::set_param(bad, "adapt-max", 0.1), "");
  EXPECT_THROW(edgewise::run_filter(bad, image.shape(), image, output, options), std::invalid_argument);
  options.backend = "gpu";
  EXPECT_THROW(edgewise::run_filter(FilterSpec{}, image.shape(), image, output, options), std::invalid_argument);
  options.backend = "cpu";
  EXPECT_THROW(edgewise::run_filter(FilterSpec{}, ImageShape{4, 4, 5}, image, output, options), std::invalid_argument);
  EXPECT_THROW(edgewise::run_filter(FilterSpec{}, ImageShape{0, 4, 3}, image, output, options), std::invalid_argument);
}

}  // namespace
}  // namespace edgewise_test
