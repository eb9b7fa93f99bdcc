// The collaborative denoiser (Non-Local Bayes) on the CPU backend against its
// double reference (tests/reference/nlbayes_reference.h), on fresh random
// images of awkward sizes (1x1, 1xN, Nx1, primes, smaller than a patch,
// smaller than the search window), grey, grey+alpha, RGB and RGBA, white,
// signal-dependent and correlated noise, one to three scales; band-height
// and thread-count invariance; a photo; its noise table, parameters and the
// fallback of a device that lacks it.
//
// Tolerance. The reference computes in double, the CPU in float, and the
// two differ in two ways. Rounding: distances, means and covariances carry
// relative errors near 1e-6, and a group's solve multiplies them by the
// condition number of its system (a noisy group of about as many patches as
// dimensions, or of partly transparent members, is nearly singular: step 1
// divides by the noisy covariance, as IPOL's implementation does). The
// reference estimates, per sample, how far that can move it (condition
// number x dimension x 2^-24 x (the correction + the members' mean, whose
// rounding centring leaves in every deviation), from the Cholesky factor's
// diagonal), capped at 0.025 code values (kMaxRoundingBound says why); a
// sample may differ by kTolerance plus kBoundFactor times that. Hard decisions: the group search
// keeps the K nearest patches and the flat test compares a variance with a
// threshold; where two values are closer than rounding can tell apart
// (NlBayesSettings' margins), float and double may decide differently and
// a whole group's pixels move by code values. The reference flags every
// sample such a near tie could reach and only the others are compared.
// Equal distances are no exception (float values computed differently may
// round apart) unless the two patches are equal in the values both sides
// compute with. So that one step's near ties do not spread through the
// other's search windows, the steps are compared apart: step 1 alone, and
// step 2 on the CPU's own step-1 result, at every scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend.h"
#include "clipped_noise.h"
#include "executor.h"
#include "nlbayes.h"
#include "nlbayes_checks.h"
#include "nlbayes_cpu.h"
#include "noise_models.h"
#include "reference/nlbayes_reference.h"
#include "test_support.h"

#if EDGEWISE_HAVE_CLI_IO
#include "image_file.h"
#endif

namespace {

using namespace edgewise;
using namespace edgewise_test;
using edgewise_reference::NlBayesResult;
using namespace nlbayes_checks;

// Within rounding where no near tie reached; counted in `tally` when given.
void expect_close(const Check& check, Tally* tally) {
  EXPECT_LE(check.max_abs, kTolerance) << check.describe();
  if (tally) {
    tally->compared += check.stable * check.samples;
    tally->samples += check.samples;
  }
}

// A scale's basic estimate as the CPU's second step read it, in double.
edgewise_reference::NlBayesBasic to_basic(const cpu::NlbRows& rows) {
  // One band of the whole image: the second step reads every row of its scale.
  EXPECT_EQ(rows.row0, 0);
  EXPECT_EQ(rows.rows, rows.height);
  edgewise_reference::NlBayesBasic basic;
  basic.width = rows.width;
  basic.height = rows.height;
  basic.planes.resize(size_t(rows.channels));
  for (int c = 0; c < rows.channels; ++c)
    for (int y = rows.row0; y < rows.row0 + rows.rows; ++y)
      basic.planes[size_t(c)].insert(basic.planes[size_t(c)].end(), rows.row(c, y), rows.row(c, y) + rows.width);
  return basic;
}

// The CPU's output and, per scale, the basic estimate its second step read,
// from one run of the band kernel on the whole image.
struct ObservedRun {
  FloatImage output;
  std::vector<edgewise_reference::NlBayesBasic> basics;  // per scale
  int observed = 0;                                      // basic estimates seen
};

ObservedRun run_observed(const NlbPlan& plan, const FloatImage& image) {
  ObservedRun run{FloatImage(image.shape()), {}, 0};
  run.basics.resize(size_t(plan.params.scales));
  const cpu::NlbBasicObserver observe = [&run](int scale, const cpu::NlbRows& rows) {
    SCOPED_TRACE("basic estimate of scale " + std::to_string(scale));
    run.basics.at(size_t(scale)) = to_basic(rows);
    ++run.observed;
  };
  cpu::nlbayes_run_observed(plan, image.pixels().data(), run.output.pixels().data(), 2, observe);
  return run;
}

// The CPU against the reference for a plan, step by step: the first step
// alone on every scale, then both steps with each scale's second step in
// the reference fed the basic estimate the CPU's read, so that neither
// step sees the other's near ties. With several scales this compares the
// scales' machinery too, end to end, counted apart (a near tie of a
// second step still unsettles its whole window, most of a small image);
// BandHeightAndThreadsDoNotChangeOutput runs the bands.
void expect_plan_matches_reference(NlbPlan& plan, const FloatImage& image, Tally& tally) {
  const ReferenceImage input = to_reference(image);
  NlbPlan first = plan;
  first.params.steps = 1;
  edgewise_reference::NlBayesSettings settings = reference_settings(first);
  const FloatImage basic = run_plan(first, image);
  {
    SCOPED_TRACE("first step");
    expect_close(compare_stable(nlbayes_reference(input, settings), basic), &tally);
  }
  settings.steps = 2;
  const FloatImage got = run_plan(plan, image);
  const ObservedRun observed = run_observed(plan, image);
  ASSERT_EQ(observed.observed, plan.params.scales) << "basic estimates observed";
  ASSERT_TRUE(bit_identical(got, observed.output)) << "the observed run differs from the executor's";
  const Check check = compare_stable(nlbayes_reference(input, settings, observed.basics), got);
  if (plan.params.scales == 1) {
    SCOPED_TRACE("second step on the CPU's first");
    expect_close(check, &tally);
  } else {
    SCOPED_TRACE("both steps, each scale's second on the CPU's first");
    expect_close(check, nullptr);
    count_end_to_end(check, tally);
  }
}

// The same for a spec run through the engine as front ends run it.
void expect_matches_reference(const FilterSpec& spec, const FloatImage& image, Tally& tally,
                              const NoiseEstimate* noise = nullptr) {
  const std::unique_ptr<NlbPlan> plan = plan_of(spec, image.shape(), noise);
  RunOptions options;
  options.noise = noise;
  EXPECT_TRUE(bit_identical(run_cpu(spec, image, options), run_plan(*plan, image)));
  expect_plan_matches_reference(*plan, image, tally);
}

NlBayesParameters sweep_case(std::mt19937_64& rng, int index) {
  const float sigmas[] = {0.0f, 3.0f, 12.0f, 30.0f, 60.0f};
  NlBayesParameters n;
  n.sigma_n = sigmas[index % 5];
  n.strength = index % 7 == 3 ? 0.5f : 1.0f;
  n.patch_size = int(rng() % 6);  // 0 (auto) to 5
  n.group_size = index % 3 == 0 ? 0 : int(1 + rng() % 40);
  n.search_radius = 1 + int(rng() % 5);  // small windows keep the reference quick
  n.reference_step = index % 4;          // 0: auto
  n.scales = 1 + index % 3;
  return n;
}

TEST(NlBayesCpu, MatchesReferenceAwkwardSizes) {
  EW_SEEDED_RNG(rng);
  Tally tally;
  const ImageShape sizes[] = {{1, 1, 1},   {1, 23, 1},  {29, 1, 1},  {2, 3, 1}, {13, 7, 1},
                              {31, 17, 1}, {19, 23, 1}, {37, 29, 1}, {11, 9, 1}};
  int index = 0;
  for (int channels = 1; channels <= 4; ++channels)
    for (ImageShape shape : sizes) {
      shape.channels = channels;
      const NlBayesParameters n = sweep_case(rng, index++);
      SCOPED_TRACE(describe(n, shape));
      expect_matches_reference(nlbayes_spec(n), random_image(rng, shape), tally);
    }
}

// sigma-n at auto: the noise table follows the estimate's noise level
// functions (and clipping near 0 and 255).
TEST(NlBayesCpu, MatchesReferenceSignalDependentNoise) {
  EW_SEEDED_RNG(rng);
  Tally tally;
  const ImageShape sizes[] = {{23, 19, 3}, {17, 31, 1}, {29, 13, 4}, {1, 17, 2}};
  int index = 0;
  for (const ImageShape& shape : sizes) {
    FilterSpec spec(nlbayes_filter());
    ASSERT_EQ(set_param(spec, "search-radius", double(2 + index % 3)), "");
    ASSERT_EQ(set_param(spec, "scales", double(1 + index % 2)), "");
    ++index;
    const NoiseEstimate noise = signal_dependent_noise(rng, shape.channels >= 3 ? 3 : 1);
    SCOPED_TRACE(std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                 std::to_string(shape.channels) + ", signal-dependent noise");
    expect_matches_reference(spec, random_image(rng, shape), tally, &noise);
  }
}

// A table with a non-white autocovariance (what issue 26's model will give)
// run through the executor directly: the noise covariance is then a full
// matrix in both steps.
TEST(NlBayesCpu, MatchesReferenceCorrelatedNoise) {
  EW_SEEDED_RNG(rng);
  Tally tally;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const auto& [channels, scales] : kCorrelatedNoiseCases) {
    const ImageShape shape{27, 21, channels};
    NlBayesParameters n;
    n.sigma_n = 10.0f;
    n.patch_size = 3;
    n.group_size = 20;
    n.search_radius = 3;
    n.scales = scales;
    std::unique_ptr<NlbPlan> plan = plan_of(nlbayes_spec(n), shape);
    set_exponential_correlation(*plan, [&](int, int) { return 0.2 + 0.5 * unit(rng); });
    SCOPED_TRACE(describe(n, shape) + ", correlated noise");
    expect_plan_matches_reference(*plan, random_image(rng, shape), tally);
  }
}

TEST(NlBayesCpu, BandHeightAndThreadsDoNotChangeOutput) {
  EW_SEEDED_RNG(rng);
  for (int scales : {1, 2}) {
    NlBayesParameters n;
    n.sigma_n = 15.0f;
    n.search_radius = 4;
    n.scales = scales;
    const FloatImage image = random_image(rng, {83, 131, 4});
    SCOPED_TRACE(describe(n, image.shape()));
    const FilterSpec spec = nlbayes_spec(n);
    RunOptions whole;
    whole.band_rows = image.shape().height;
    whole.backend_options.threads = 1;
    const FloatImage expected = run_cpu(spec, image, whole);
    for (int band_rows : {1, 7, 45}) {
      RunOptions options;
      options.band_rows = band_rows;
      options.backend_options.threads = 2;
      EXPECT_TRUE(bit_identical(expected, run_cpu(spec, image, options))) << "band_rows " << band_rows;
    }
    RunOptions three;
    three.backend_options.threads = 3;
    EXPECT_TRUE(bit_identical(expected, run_cpu(spec, image, three))) << "3 threads";
  }
}

// Issue 37: a band of seconds reports its own progress (after rows of
// reference patches, BandTask::progress): one band gives many fractions
// inside (0, 1), never going back, ending at 1; listening changes no
// pixel; a stop asked for within the band stops the job before its end.
TEST(NlBayesCpu, ProgressWithinOneBandRisesAndStops) {
  EW_SEEDED_RNG(rng);
  NlBayesParameters n;
  n.sigma_n = 12.0f;
  n.search_radius = 4;
  n.scales = 2;
  const FloatImage image = random_image(rng, {96, 160, 3});
  RunOptions quiet;
  quiet.band_rows = image.shape().height;  // one band
  quiet.backend_options.threads = 2;
  const FloatImage expected = run_cpu(nlbayes_spec(n), image, quiet);

  std::vector<double> fractions;
  RunOptions listened = quiet;
  listened.progress = [&fractions](double fraction) {
    fractions.push_back(fraction);
    return true;
  };
  EXPECT_TRUE(bit_identical(expected, run_cpu(nlbayes_spec(n), image, listened)));
  ASSERT_FALSE(fractions.empty());
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_EQ(fractions.back(), 1.0);
  const auto inside = std::count_if(fractions.begin(), fractions.end(), [](double f) { return f > 0 && f < 1; });
  EXPECT_GE(inside, 10) << fractions.size() << " progress calls in one band";

  double last = 0;
  RunOptions stopped = quiet;
  stopped.progress = [&last](double fraction) {
    last = fraction;
    return fraction < 0.3;
  };
  EXPECT_THROW(run_cpu(nlbayes_spec(n), image, stopped), edgewise::Cancelled);
  EXPECT_LT(last, 1.0);
}

// The engine's two paths (whole buffers in memory; rows streamed) agree.
TEST(NlBayesCpu, BuffersAgreeWithStreamedRows) {
  EW_SEEDED_RNG(rng);
  NlBayesParameters n;
  n.sigma_n = 8.0f;
  n.search_radius = 3;
  const FloatImage image = random_image(rng, {61, 47, 3});
  const FloatImage streamed = run_cpu(nlbayes_spec(n), image);
  const FloatImage buffered = run_cpu_buffers(nlbayes_spec(n), image);
  EXPECT_TRUE(bit_identical(streamed, buffered)) << max_difference(streamed, buffered).describe();
}

// Strength 0 (or no noise) leaves every estimate its noisy patch: the
// output is the input up to the float division of the sums.
TEST(NlBayesCpu, NoNoiseLeavesTheImage) {
  EW_SEEDED_RNG(rng);
  for (int channels : {1, 2, 3, 4}) {
    const FloatImage image = random_image(rng, {29, 23, channels});
    NlBayesParameters strength_zero;
    strength_zero.sigma_n = 20.0f;
    strength_zero.strength = 0.0f;
    NlBayesParameters sigma_zero;
    sigma_zero.sigma_n = 0.0f;
    for (const NlBayesParameters& n : {strength_zero, sigma_zero}) {
      const Difference d = max_difference(image, run_cpu(nlbayes_spec(n), image));
      EXPECT_LE(d.max_abs, 1e-5) << describe(n, image.shape()) << ": " << d.describe();
    }
  }
}

#if EDGEWISE_HAVE_CLI_IO

// A crop of a test photo with white noise: the CPU matches the reference,
// and denoises (blind, sigma-n at auto) well beyond the noisy input.
TEST(NlBayesCpu, PhotoMatchesReferenceAndDenoises) {
  EW_SEEDED_RNG(rng);
  Tally tally;
  std::normal_distribution<double> gauss(0.0, 20.0);
  for (const char* name : {"astronaut.png", "camera.png"}) {
    const edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/") + name);
    // The whole photo with 8-bit noise, for the estimate (as the plug-in
    // measures the whole drawable); a crop of it filtered.
    const ImageShape whole{file.width, file.height, file.channels};
    FloatImage noisy_whole(whole);
    for (size_t i = 0; i < noisy_whole.pixels().size(); ++i)
      noisy_whole.pixels()[i] = float(std::clamp(std::round(double(file.bytes[i]) + gauss(rng)), 0.0, 255.0) / 255.0);
    const NoiseEstimate noise = estimate_noise(noisy_whole, whole);
    const int width = 72, height = 64, x0 = 96, y0 = 40;
    FloatImage clean({width, height, file.channels}), noisy({width, height, file.channels});
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < file.channels; ++c) {
          const size_t i = (size_t(y0 + y) * size_t(file.width) + size_t(x0 + x)) * size_t(file.channels) + size_t(c);
          clean.at(x, y, c) = float(file.bytes[i] / 255.0);
          noisy.at(x, y, c) = noisy_whole.pixels()[i];
        }
    SCOPED_TRACE(name);
    FilterSpec spec(nlbayes_filter());
    ASSERT_EQ(set_param(spec, "search-radius", 5.0), "");
    expect_matches_reference(spec, noisy, tally, &noise);
    RunOptions options;
    options.noise = &noise;
    const FloatImage denoised = run_cpu(spec, noisy, options);
    auto psnr = [&](const FloatImage& image) {
      double sum = 0.0;
      for (size_t i = 0; i < image.pixels().size(); ++i) {
        const double d = 255.0 * (double(image.pixels()[i]) - double(clean.pixels()[i]));
        sum += d * d;
      }
      return 10.0 * std::log10(255.0 * 255.0 * double(image.pixels().size()) / sum);
    };
    // Noisy about 22.3 dB; denoised 28-30 dB on these crops.
    EXPECT_GT(psnr(denoised), psnr(noisy) + 5.0);
  }
}

#endif

// The one function that says what the noise is: white noise independent
// between R, G and B, in the orthonormal opponent space, per scale, with
// the variance clipping leaves near 0 and 255.
TEST(NlBayesNoise, TableFromSigmaAndEstimate) {
  const NlbNoiseTable white = nlbayes_noise_table(nullptr, 12.0, 3, 3);
  ASSERT_GT(white.knots, 8);
  EXPECT_TRUE(white.white);
  for (int scale = 0; scale < 3; ++scale)
    for (int c = 0; c < 3; ++c) {
      const NlbNoiseChannel& noise = white.channel[scale][c];
      for (int k = 0; k < white.knots; ++k) {
        const double level = noise.intensity[k];
        const double share = std::max(unclip(level, 12.0, {true, true}).share, 0.02);
        EXPECT_NEAR(noise.variance[k], share * 144.0 / std::pow(4.0, scale), 1e-3) << scale << " " << c << " " << k;
        if (level > 60 && level < 195) {
          EXPECT_NEAR(noise.variance[k], 144.0 / std::pow(4.0, scale), 1e-3);
        }
      }
      for (int i = 0; i < kNlbCovarianceSide * kNlbCovarianceSide; ++i)
        EXPECT_EQ(noise.autocovariance[i], i == (kNlbMaxPatch - 1) * (kNlbCovarianceSide + 1) ? 1.0f : 0.0f);
    }
  // Channels of different noise: Var(Y) = mean, Var(C1) = (R + B) / 2, Var(C2) = (R + 4G + B) / 6.
  NoiseEstimate estimate;
  for (double sigma : {4.0, 8.0, 12.0}) {
    ChannelNoise channel;
    channel.valid = true;
    channel.sigma = sigma;
    NoiseLevelBin bin;
    bin.intensity = 128;
    bin.sigma = sigma;
    bin.valid = true;
    bin.blocks = 100;
    channel.bins.push_back(bin);
    estimate.channels.push_back(channel);
  }
  const NlbNoiseTable measured = nlbayes_noise_table(&estimate, 8.0, 3, 1);
  int mid = 0;
  while (measured.channel[0][0].intensity[mid] < 128) ++mid;
  EXPECT_NEAR(measured.channel[0][0].variance[mid], (16.0 + 64.0 + 144.0) / 3.0, 1e-3);
  EXPECT_NEAR(measured.channel[0][1].variance[mid], (16.0 + 144.0) / 2.0, 1e-3);
  EXPECT_NEAR(measured.channel[0][2].variance[mid], (16.0 + 4.0 * 64.0 + 144.0) / 6.0, 1e-3);
  const NlbNoiseTable grey = nlbayes_noise_table(nullptr, 5.0, 1, 1);
  EXPECT_NEAR(grey.channel[0][0].variance[mid], 25.0, 1e-4);
}

// From the noise model: each opponent channel's own measured level, and
// its spectrum's covariance of 2^s x 2^s means (what scale s denoises):
// correlated chroma keeps more of its variance on a coarser scale than
// white noise's 4^-s, and its patches see the correlation.
ChannelNoise flat_channel(double sigma, std::array<double, kSpectrumParts> shares) {
  ChannelNoise channel;
  channel.valid = true;
  channel.sigma = sigma;
  NoiseLevelBin bin;
  bin.intensity = 128;
  bin.sigma = sigma;
  bin.valid = true;
  bin.blocks = 100;
  channel.bins.push_back(bin);
  channel.spectrum.shares = shares;
  return channel;
}

TEST(NlBayesNoise, TableFromTheModelsOpponentChannelsAndSpectra) {
  NoiseEstimate estimate = white_noise_estimate(8.0, 3);
  estimate.opponent = {flat_channel(5.0, {1.0, 0.0, 0.0}), flat_channel(12.0, {0.0, 0.0, 1.0}),
                       flat_channel(12.0, {0.5, 0.5, 0.0})};
  const NlbNoiseTable table = nlbayes_noise_table(&estimate, 8.0, 3, 3);
  EXPECT_FALSE(table.white);
  int mid = 0;
  while (table.channel[0][0].intensity[mid] < 128) ++mid;
  // The finest scale: the measured levels (no clipping at mid-grey).
  EXPECT_NEAR(table.channel[0][0].variance[mid], 25.0, 1e-3);
  EXPECT_NEAR(table.channel[0][1].variance[mid], 144.0, 1e-3);
  EXPECT_NEAR(table.channel[0][2].variance[mid], 144.0, 1e-3);
  auto at = [](const NlbNoiseChannel& noise, int dx, int dy) {
    return noise.autocovariance[nlb_autocovariance_index(dx, dy)];
  };
  for (int scale = 0; scale < 3; ++scale) {
    SCOPED_TRACE("scale " + std::to_string(scale));
    // White luma: 4^-s of the variance, a delta autocovariance.
    EXPECT_NEAR(table.channel[scale][0].variance[mid], 25.0 / std::pow(4.0, scale), 1e-3);
    EXPECT_EQ(at(table.channel[scale][0], 1, 0), 0.0f);
    EXPECT_EQ(at(table.channel[scale][0], 0, 0), 1.0f);
    // Blurred chroma: each scale's own covariance, by the spectrum's definition.
    const double keep = part_covariance(2, scale, 0, 0);
    if (scale > 0) {
      EXPECT_GT(keep, 2.0 / std::pow(4.0, scale));
    }
    EXPECT_NEAR(table.channel[scale][1].variance[mid], 144.0 * keep, 1e-3 * 144.0 * keep);
    EXPECT_NEAR(at(table.channel[scale][1], 1, 0), part_covariance(2, scale, 1, 0) / keep, 1e-5);
    EXPECT_NEAR(at(table.channel[scale][1], 1, 1), part_covariance(2, scale, 1, 1) / keep, 1e-5);
    EXPECT_EQ(at(table.channel[scale][1], -2, 1), at(table.channel[scale][1], 2, -1));
    // A mixture: its parts' covariances by their shares.
    const double mixed = 0.5 * part_covariance(0, scale, 0, 0) + 0.5 * part_covariance(1, scale, 0, 0);
    EXPECT_NEAR(table.channel[scale][2].variance[mid], 144.0 * mixed, 1e-3 * 144.0 * mixed);
  }
  EXPECT_GT(at(table.channel[0][1], 1, 0), 0.5f) << "a 1.2 px blur correlates neighbours";
  // White spectra everywhere keep the diagonal path.
  NoiseEstimate white = white_noise_estimate(8.0, 3);
  EXPECT_TRUE(nlbayes_noise_table(&white, 8.0, 3, 3).white);
  // Grey: its one channel's level and spectrum.
  NoiseEstimate grey;
  grey.channels = {flat_channel(6.0, {0.0, 1.0, 0.0})};
  const NlbNoiseTable grey_table = nlbayes_noise_table(&grey, 6.0, 1, 2);
  EXPECT_FALSE(grey_table.white);
  EXPECT_NEAR(grey_table.channel[1][0].variance[mid], 36.0 * part_covariance(1, 1, 0, 0), 1e-3);
}

// The GPU keeps a member's column in registers with the fixed-size solve;
// it must give the generic solve's result to the bit, for the sizes the
// GPU fixes and a size that ends in a partial four.
template <int D>
void check_fixed_solve(std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int stride = D | 1;
  std::vector<float> matrix(static_cast<size_t>(D * stride), 0.0f);
  for (int i = 0; i < D; ++i)  // A = B B^T + D I: positive definite
    for (int j = 0; j <= i; ++j) {
      float sum = i == j ? float(D) : 0.0f;
      for (int k = 0; k < D; ++k) sum += std::sin(float(i * D + k)) * std::sin(float(j * D + k));
      matrix[size_t(i * stride + j)] = matrix[size_t(j * stride + i)] = sum;
    }
  nlb_cholesky(matrix.data(), D, stride, 0.5f);
  float generic[D], fixed[D];
  for (int i = 0; i < D; ++i) generic[i] = fixed[i] = 10.0f * normal(rng);
  nlb_cholesky_solve(matrix.data(), D, stride, generic);
  float inverse[D];
  for (int i = 0; i < D; ++i) inverse[i] = nlb_inverse_diagonal(matrix.data(), stride, i);
  nlb_cholesky_solve_fixed<D>(matrix.data(), stride, inverse, fixed);
  for (int i = 0; i < D; ++i) EXPECT_EQ(float_bits(fixed[i]), float_bits(generic[i])) << "D " << D << ", x[" << i << "]";
}

TEST(NlBayesMath, FixedSizeSolveIsTheGenericSolveToTheBit) {
  EW_SEEDED_RNG(rng);
  for (int round = 0; round < 4; ++round) {
    check_fixed_solve<9>(rng);
    check_fixed_solve<16>(rng);
    check_fixed_solve<25>(rng);
    check_fixed_solve<27>(rng);
    check_fixed_solve<7>(rng);
  }
}

// --scales auto (0): the model's coarse-scale gain, the variance of 2 x 2
// means over white noise's 4^-1 share, per channel from its spectrum and
// weighted by its variance; a second scale above kNlbAutoScaleGain.
TEST(NlBayesScales, AutoFollowsTheModelsCoarseScaleGain) {
  // sigma-n given as a number (no estimate), and white noise: one scale.
  EXPECT_EQ(nlbayes_auto_scales(nullptr, 3), 1);
  EXPECT_EQ(nlbayes_auto_scales(nullptr, 1), 1);
  for (int channels : {1, 3}) {
    const NoiseEstimate white = white_noise_estimate(12.0, channels);
    EXPECT_DOUBLE_EQ(nlbayes_coarse_gain(white, channels, 1), 1.0);
    EXPECT_EQ(nlbayes_auto_scales(&white, channels), 1) << channels << " channels";
  }
  // Noise wholly of the model's widest part (a 1.2 px blur, as it reads
  // noise blurred by a pixel or more): 3.4 at scale 1, two scales (the
  // cap, though scale 2 gains 2.4 times more again).
  const double widest = 4.0 * part_covariance(2, 1, 0, 0);
  NoiseEstimate blurred = white_noise_estimate(12.0, 3);
  blurred.opponent = {flat_channel(10.0, {0.0, 0.0, 1.0}), flat_channel(8.0, {0.0, 0.0, 1.0}),
                      flat_channel(8.0, {0.0, 0.0, 1.0})};
  EXPECT_NEAR(nlbayes_coarse_gain(blurred, 3, 1), widest, 1e-9);
  EXPECT_GT(nlbayes_coarse_gain(blurred, 3, 2), kNlbAutoScaleGain * widest);
  EXPECT_EQ(nlbayes_auto_scales(&blurred, 3), kNlbAutoMaxScales);
  EXPECT_EQ(kNlbAutoMaxScales, 2);
  // The threshold, on one grey channel mixing white and blurred parts.
  const double at_threshold = (kNlbAutoScaleGain - 1.0) / (widest - 1.0);
  for (double share : {at_threshold - 0.01, at_threshold + 0.01}) {
    NoiseEstimate grey;
    grey.channels = {flat_channel(9.0, {1.0 - share, 0.0, share})};
    EXPECT_NEAR(nlbayes_coarse_gain(grey, 1, 1), 1.0 + share * (widest - 1.0), 1e-9);
    EXPECT_EQ(nlbayes_auto_scales(&grey, 1), share > at_threshold ? 2 : 1) << "share " << share;
  }
  // Weighted by variance: weak blurred chroma beside strong white luma
  // stays one scale (the image's noise is mostly white); strong, two.
  for (double chroma : {2.0, 12.0}) {
    NoiseEstimate colour = white_noise_estimate(10.0, 3);
    colour.opponent = {flat_channel(10.0, {1.0, 0.0, 0.0}), flat_channel(chroma, {0.0, 0.0, 1.0}),
                       flat_channel(chroma, {0.0, 0.0, 1.0})};
    EXPECT_EQ(nlbayes_auto_scales(&colour, 3), chroma > 10.0 ? 2 : 1) << "chroma sigma " << chroma;
  }
  // A channel without a measure counts for nothing.
  NoiseEstimate unmeasured = blurred;
  for (ChannelNoise& channel : unmeasured.opponent) channel.valid = false;
  EXPECT_EQ(nlbayes_auto_scales(&unmeasured, 3), 1);
}

// The same from images the model measures: white noise on a smooth image
// gets one scale, noise blurred by 1.5 px (grey) and 1 px (colour) two
// (measured gains 2.8-3.4). Not 2 px: the model reads noise blurred by
// 2 px as white noise of sigma 0.3 for a true 10 (docs/quality.md,
// "Scales at auto"), so no rule on its reading can give it a scale more.
TEST(NlBayesScales, AutoOnMeasuredNoise) {
  EW_SEEDED_RNG(rng);
  const int width = 320, height = 240;
  struct Case {
    int channels;
    double blur;  // 0: white
    int scales;
  };
  for (const Case& c : {Case{1, 0.0, 1}, Case{3, 0.0, 1}, Case{1, 1.5, 2}, Case{3, 1.0, 2}}) {
    SCOPED_TRACE(std::to_string(c.channels) + " channels, blur " + std::to_string(c.blur));
    std::mt19937 field_rng{unsigned(rng())};
    const edgewise_noise::Field field =
        edgewise_noise::correlated_field(width, height, c.channels, c.blur, 10.0, field_rng);
    std::vector<uint8_t> samples(field.values.size());
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int k = 0; k < c.channels; ++k)
          samples[(size_t(y) * width + x) * c.channels + k] = uint8_t(60 + x / 4 + y / 6 + 10 * k);
    edgewise_noise::add_field(samples.data(), field);
    const NoiseEstimate estimate =
        estimate_noise(ImageBuffer{samples.data(), {width, height, c.channels}, SampleType::u8, 0});
    ASSERT_TRUE(estimate.measured());
    const double gain = nlbayes_coarse_gain(estimate, c.channels, 1);
    EXPECT_EQ(nlbayes_auto_scales(&estimate, c.channels), c.scales) << "coarse-scale gain " << gain;
  }
}

// The plan holds the scales auto chose, which both backends read: its
// reach, noise table and output are those of the explicit value; sigma-n
// given as a number is white noise, one scale.
TEST(NlBayesScales, PlanHoldsTheResolvedScales) {
  EW_SEEDED_RNG(rng);
  NoiseEstimate correlated = white_noise_estimate(12.0, 3);
  correlated.opponent = {flat_channel(12.0, {0.0, 0.0, 1.0}), flat_channel(12.0, {0.0, 0.0, 1.0}),
                         flat_channel(12.0, {0.0, 0.0, 1.0})};
  const NoiseEstimate white = white_noise_estimate(12.0, 3);
  const ImageShape shape{57, 43, 3};
  const FloatImage image = random_image(rng, shape);
  auto spec_of = [](double sigma, int scales) {
    FilterSpec spec(nlbayes_filter());
    EXPECT_EQ(set_param(spec, "sigma-n", sigma), "");
    EXPECT_EQ(set_param(spec, "search-radius", 3.0), "");
    EXPECT_EQ(set_param(spec, "scales", double(scales)), "");
    return spec;
  };
  struct Case {
    const NoiseEstimate* noise;
    double sigma;
    int scales;
  };
  for (const Case& c : {Case{&correlated, kNoiseAuto, 2}, Case{&white, kNoiseAuto, 1}, Case{&correlated, 12.0, 1}}) {
    SCOPED_TRACE("sigma-n " + std::to_string(c.sigma) + (c.noise == &white ? ", white" : ", correlated"));
    const std::unique_ptr<NlbPlan> automatic = plan_of(spec_of(c.sigma, 0), shape, c.noise);
    const std::unique_ptr<NlbPlan> fixed = plan_of(spec_of(c.sigma, c.scales), shape, c.noise);
    EXPECT_EQ(automatic->params.scales, c.scales);
    // The run report names the choice where it followed the noise.
    EXPECT_EQ(automatic->auto_choices, c.sigma == kNoiseAuto ? "scales " + std::to_string(c.scales) : "");
    EXPECT_EQ(fixed->auto_choices, "");
    EXPECT_EQ(automatic->reach, fixed->reach);
    EXPECT_EQ(automatic->reach, nlbayes_reach(automatic->params));
    for (int scale = 0; scale < kNlbMaxScales; ++scale)
      EXPECT_EQ(automatic->noise.channel[scale][1].variance[10], fixed->noise.channel[scale][1].variance[10]) << scale;
    RunOptions options;
    options.noise = c.noise;
    EXPECT_TRUE(bit_identical(run_cpu(spec_of(c.sigma, 0), image, options),
                              run_cpu(spec_of(c.sigma, c.scales), image, options)));
  }
  // An explicit value is kept whatever the noise.
  EXPECT_EQ(plan_of(spec_of(kNoiseAuto, 1), shape, &correlated)->params.scales, 1);
  EXPECT_EQ(plan_of(spec_of(kNoiseAuto, 3), shape, &white)->params.scales, 3);
}

// Before the noise is known (a region's reach and grid), auto stands for
// the most scales it can choose, and for one with sigma-n given as a number.
TEST(NlBayesScales, ReachAndRegionGridBoundAuto) {
  auto spec_of = [](double sigma, int scales) {
    FilterSpec spec(nlbayes_filter());
    EXPECT_EQ(set_param(spec, "sigma-n", sigma), "");
    EXPECT_EQ(set_param(spec, "scales", double(scales)), "");
    return spec;
  };
  const FilterInfo& row = nlbayes_filter();
  EXPECT_EQ(filter_reach(spec_of(kNoiseAuto, 0)), filter_reach(spec_of(kNoiseAuto, kNlbAutoMaxScales)));
  EXPECT_EQ(row.region_grid(spec_of(kNoiseAuto, 0)), row.region_grid(spec_of(kNoiseAuto, kNlbAutoMaxScales)));
  EXPECT_GT(filter_reach(spec_of(kNoiseAuto, 0)), filter_reach(spec_of(kNoiseAuto, 1)));
  EXPECT_EQ(filter_reach(spec_of(20.0, 0)), filter_reach(spec_of(20.0, 1)));
  EXPECT_EQ(row.region_grid(spec_of(20.0, 0)), row.region_grid(spec_of(20.0, 1)));
  // Every scale count auto may choose starts on the bound's grid.
  for (int scales = 1; scales <= kNlbAutoMaxScales; ++scales)
    EXPECT_EQ(row.region_grid(spec_of(kNoiseAuto, 0)) % row.region_grid(spec_of(kNoiseAuto, scales)), 0) << scales;
}

TEST(NlBayesSpec, ValidatorReachAndRow) {
  FilterSpec spec(nlbayes_filter());
  EXPECT_NE(set_param(spec, "patch-size", 8.0).find("invalid patch-size 8"), std::string::npos);
  // 0 is auto, the default; 1 to 4 as before.
  EXPECT_EQ(spec.get("scales"), 0.0);
  EXPECT_EQ(NlBayesParameters{}.scales, 0);
  for (double scales : {0.0, 1.0, 4.0}) EXPECT_EQ(set_param(spec, "scales", scales), "") << scales;
  EXPECT_NE(set_param(spec, "scales", 5.0).find("invalid scales 5"), std::string::npos);
  EXPECT_NE(set_param(spec, "scales", -1.0).find("invalid scales -1"), std::string::npos);
  EXPECT_EQ(std::string(nlbayes_filter().pdb_procedure), "plug-in-edgewise-nlbayes");
  NlBayesParameters n;
  n.sigma_n = 20.0f;
  n.patch_size = 5;
  n.search_radius = 6;
  // Each step: 2 R + p - 1 rows.
  EXPECT_EQ(filter_reach(nlbayes_spec(n)), 2 * (2 * 6 + 5 - 1));
  // Two scales: twice the coarse scale's, and the 2 rows of the fine rows
  // under the coarse taps (measured: test_nlbayes_schedule; it was 3 before
  // the schedule, one row more than any output row depends on).
  n.scales = 2;
  EXPECT_EQ(filter_reach(nlbayes_spec(n)), 2 * 2 * (2 * 6 + 5 - 1) + 2);
  // At auto, an upper bound for any noise.
  FilterSpec automatic(nlbayes_filter());
  EXPECT_GE(filter_reach(automatic), filter_reach(resolve_noise(automatic, NoiseEstimate{})));
}

// A device backend that has no kernel for a family says so (as the CUDA
// backend does for this filter's groups too large for its shared memory): auto then runs the job on the CPU, with a
// notice and no error; asking for that backend by name is an error.
class FamilyLimitedBackend : public Backend {
 public:
  explicit FamilyLimitedBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return "limited device"; }
  std::string unsupported(const Plan& plan) const override {
    return plan.family == "bilateral" ? "" : "the limited device has no kernel for the " + plan.family + " filters";
  }
  BandBudget budget(const Plan& plan) const override { return inner_->budget(plan); }
  std::unique_ptr<BandRunner> prepare(const Plan& plan, int band_rows, int slots) override {
    return inner_->prepare(plan, band_rows, slots);
  }

 private:
  std::unique_ptr<Backend> inner_;
};

class FamilyLimitedProvider : public BackendProvider {
 public:
  explicit FamilyLimitedProvider(std::shared_ptr<const BackendProvider> cpu) : cpu_(std::move(cpu)) {}
  std::string id() const override { return "device"; }
  std::string name() const override { return "Device"; }
  std::string label() const override { return "Device"; }
  bool usable(std::string& description) const override {
    description = "a test device";
    return true;
  }
  std::unique_ptr<Backend> make(const BackendOptions& options) const override {
    return std::make_unique<FamilyLimitedBackend>(cpu_->make(options));
  }

 private:
  std::shared_ptr<const BackendProvider> cpu_;
};

TEST(NlBayesEngine, AutoRunsOnTheCpuWhereTheDeviceLacksTheFilter) {
  EW_SEEDED_RNG(rng);
  std::shared_ptr<const BackendProvider> cpu;
  for (const auto& provider : installed_backends())
    if (provider->is_fallback()) cpu = provider;
  ASSERT_TRUE(cpu);
  const BackendList list = {std::make_shared<FamilyLimitedProvider>(cpu), cpu};
  NlBayesParameters n;
  n.sigma_n = 10.0f;
  n.search_radius = 3;
  const FloatImage image = random_image(rng, {33, 21, 3});
  RunOptions options;
  options.backends = &list;
  std::vector<std::string> notices;
  options.notice = [&](const std::string& text) { notices.push_back(text); };
  FloatImage source = image, output(image.shape());
  const RunReport report = run_filter(nlbayes_spec(n), image.shape(), source, output, options);
  EXPECT_EQ(report.backend.rfind("cpu", 0), 0u) << report.backend;
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("no kernel for the nlbayes filters; using the CPU"), std::string::npos) << notices[0];
  EXPECT_TRUE(bit_identical(run_cpu(nlbayes_spec(n), image), output));
  options.backend = "device";
  FloatImage again(image.shape());
  EXPECT_THROW(run_filter(nlbayes_spec(n), image.shape(), source, again, options), BackendError);
}

}  // namespace
