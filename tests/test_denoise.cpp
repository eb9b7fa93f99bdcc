// The Denoise front end's core (core/denoise.h): the scaled estimate behind
// Strength, Luminance and Colour, the rule that recommends a method, the
// settings text and the procedure's method numbers; and when a parameter can
// act (core/param_activity.h).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "bilateral.h"
#include "denoise.h"
#include "filter_registry.h"
#include "fourier.h"
#include "learned.h"
#include "nlbayes.h"
#include "nlm.h"
#include "opponent_color.h"
#include "param_activity.h"
#include "pyramid.h"
#include "test_support.h"

namespace {

using edgewise::ChannelNoise;
using edgewise::FilterInfo;
using edgewise::NoiseEstimate;

// A measured-looking colour estimate: luma and chroma of their own levels,
// a noise level function of three bins growing with intensity, a spectrum
// with `white` of its variance white.
NoiseEstimate camera_like(double luma, double chroma, double white) {
  NoiseEstimate estimate = edgewise::white_noise_estimate(1.0, 3);
  const auto fill = [white](ChannelNoise& channel, double sigma) {
    channel.sigma = sigma;
    channel.spectrum.shares = {white, 1.0 - white, 0.0};
    channel.correlation = white < 1 ? 3.0 : 1.0;
    for (int b = 0; b < 3; ++b) {
      edgewise::NoiseLevelBin bin;
      bin.intensity = 40.0 + 80.0 * b;
      bin.sigma = sigma * (0.7 + 0.3 * b);
      bin.reading = 0.5 * bin.sigma;
      bin.texture = 0.8 * bin.sigma;
      bin.blocks = 100;
      bin.valid = true;
      channel.bins.push_back(bin);
    }
  };
  fill(estimate.opponent[0], luma);
  fill(estimate.opponent[1], chroma);
  fill(estimate.opponent[2], chroma);
  // R, G and B of independent opponent parts: sum of m^2 v.
  for (int c = 0; c < 3; ++c) {
    const double variance = (luma * luma) / 3 + chroma * chroma * 2.0 / 3;
    fill(estimate.channels[size_t(c)], std::sqrt(variance));
  }
  return estimate;
}

void expect_same_noise(const ChannelNoise& a, const ChannelNoise& b, double factor) {
  EXPECT_NEAR(a.sigma, factor * b.sigma, 1e-9) << a.name;
  ASSERT_EQ(a.bins.size(), b.bins.size());
  for (size_t i = 0; i < a.bins.size(); ++i) {
    EXPECT_NEAR(a.bins[i].sigma, factor * b.bins[i].sigma, 1e-9) << a.name << " bin " << i;
    EXPECT_NEAR(a.bins[i].reading, factor * b.bins[i].reading, 1e-9);
    EXPECT_NEAR(a.bins[i].texture, factor * b.bins[i].texture, 1e-9);
    EXPECT_EQ(a.bins[i].intensity, b.bins[i].intensity);
  }
  EXPECT_EQ(a.spectrum.shares, b.spectrum.shares);
  EXPECT_EQ(a.correlation, b.correlation);
}

TEST(ScaledNoise, MultipliersOfOneKeepTheEstimate) {
  const NoiseEstimate measured = camera_like(6.0, 9.0, 0.2);
  const NoiseEstimate same = edgewise::scaled_noise(measured, 1, 1, 1);
  for (size_t c = 0; c < 3; ++c) expect_same_noise(same.channels[c], measured.channels[c], 1.0);
  for (size_t c = 0; c < 3; ++c) expect_same_noise(same.opponent[c], measured.opponent[c], 1.0);
}

TEST(ScaledNoise, StrengthScalesEveryChannelAndBin) {
  const NoiseEstimate measured = camera_like(6.0, 9.0, 0.2);
  const NoiseEstimate doubled = edgewise::scaled_noise(measured, 2, 1, 1);
  for (size_t c = 0; c < 3; ++c) expect_same_noise(doubled.channels[c], measured.channels[c], 2.0);
  for (size_t c = 0; c < 3; ++c) expect_same_noise(doubled.opponent[c], measured.opponent[c], 2.0);
  // Equal luminance and colour multipliers are a strength, whatever the parts.
  const NoiseEstimate both = edgewise::scaled_noise(measured, 1, 1.5, 1.5);
  for (size_t c = 0; c < 3; ++c) expect_same_noise(both.channels[c], measured.channels[c], 1.5);
  EXPECT_NEAR(doubled.sigma(), 2 * measured.sigma(), 1e-9);
}

// Luminance scales Y alone and colour C1 and C2; R, G and B get the variance
// their opponent parts give (white parts: 1/3 luma, 2/3 chroma in each).
TEST(ScaledNoise, LuminanceAndColourApart) {
  const NoiseEstimate white = edgewise::white_noise_estimate(10.0, 3);
  const NoiseEstimate luma = edgewise::scaled_noise(white, 1, 2, 1);
  EXPECT_NEAR(luma.opponent[0].sigma, 20.0, 1e-9);
  EXPECT_NEAR(luma.opponent[1].sigma, 10.0, 1e-9);
  EXPECT_NEAR(luma.opponent[2].sigma, 10.0, 1e-9);
  for (const ChannelNoise& channel : luma.channels)
    EXPECT_NEAR(channel.sigma, 10.0 * std::sqrt(4.0 / 3 + 2.0 / 3), 1e-9);
  const NoiseEstimate no_colour = edgewise::scaled_noise(white, 1, 1, 0);
  for (const ChannelNoise& channel : no_colour.channels) EXPECT_NEAR(channel.sigma, 10.0 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(no_colour.opponent[1].sigma, 0.0, 1e-12);

  // Per bin, from the opponent parts at that intensity: chroma noise three
  // times the luma noise makes colour the larger part of every channel.
  const NoiseEstimate measured = camera_like(3.0, 9.0, 0.2);
  const NoiseEstimate less_colour = edgewise::scaled_noise(measured, 1, 1, 0.5);
  for (size_t c = 0; c < 3; ++c)
    for (size_t b = 0; b < 3; ++b) {
      const double intensity = measured.channels[c].bins[b].intensity;
      double whole = 0, scaled = 0;
      for (int k = 0; k < 3; ++k) {
        const double v = std::pow(measured.opponent[size_t(k)].sigma_at(intensity), 2) * edgewise::kOpponent[k][c] *
                         edgewise::kOpponent[k][c];
        whole += v;
        scaled += v * (k == 0 ? 1.0 : 0.25);
      }
      EXPECT_NEAR(less_colour.channels[c].bins[b].sigma, measured.channels[c].bins[b].sigma * std::sqrt(scaled / whole),
                  1e-9);
      EXPECT_LT(less_colour.channels[c].bins[b].sigma, 0.75 * measured.channels[c].bins[b].sigma);
    }
}

TEST(ScaledNoise, GreyIsLuminanceAndTheFallbackStaysSaid) {
  NoiseEstimate grey = edgewise::white_noise_estimate(8.0, 1);
  grey.fallback = true;
  grey.fallback_reason = "too small";
  const NoiseEstimate scaled = edgewise::scaled_noise(grey, 2, 0.5, 3);
  EXPECT_NEAR(scaled.channels[0].sigma, 8.0, 1e-9);
  EXPECT_TRUE(scaled.fallback);
  EXPECT_EQ(scaled.fallback_reason, "too small");
}

// What a method's automatic parameters make of the scaled estimate: the
// bilateral filter's sigma-r is 3 x the noise in rgb mode.
TEST(ScaledNoise, AutoValuesFollowIt) {
  const NoiseEstimate measured = edgewise::white_noise_estimate(6.0, 3);
  edgewise::FilterSpec spec(edgewise::bilateral_filter());
  const double as_measured = edgewise::resolve_noise(spec, measured).get("sigma-r");
  const double stronger = edgewise::resolve_noise(spec, edgewise::scaled_noise(measured, 1.5, 1, 1)).get("sigma-r");
  EXPECT_NEAR(as_measured, 18.0, 1e-4);
  EXPECT_NEAR(stronger, 27.0, 1e-4);
}

TEST(NoiseCharacter, FineCorrelatedColour) {
  const auto fine = edgewise::characterise(edgewise::white_noise_estimate(10.0, 3));
  EXPECT_EQ(fine.kinds, edgewise::kFineNoise);
  EXPECT_EQ(fine.words, "fine, even grain");
  EXPECT_NEAR(fine.luminance, 10.0, 1e-9);
  EXPECT_NEAR(fine.colour, 10.0, 1e-9);
  const auto correlated = edgewise::characterise(camera_like(8.0, 5.0, 0.2));
  EXPECT_EQ(correlated.kinds, edgewise::kCorrelatedNoise);
  EXPECT_NEAR(correlated.fine_share, 0.2, 1e-9);
  EXPECT_EQ(correlated.words, "correlated");
  const auto colour = edgewise::characterise(camera_like(4.0, 9.0, 0.1));
  EXPECT_EQ(colour.kinds, edgewise::kColourNoise | edgewise::kCorrelatedNoise);
  EXPECT_EQ(colour.words, "colour noise, correlated");
  const auto grey = edgewise::characterise(edgewise::white_noise_estimate(5.0, 1));
  EXPECT_EQ(grey.kinds, edgewise::kFineNoise);
  EXPECT_EQ(grey.colour, 0.0);
}

TEST(Recommend, TheBuiltInRule) {
  const auto& registry = edgewise::builtin_registry();
  const auto white = edgewise::recommend_method(edgewise::white_noise_estimate(10.0, 3), registry);
  EXPECT_EQ(white.method, &edgewise::nlm_filter());
  EXPECT_EQ(white.reason, "fine, even grain: Non-local means");
  const auto camera = edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), registry);
  EXPECT_EQ(camera.method, &edgewise::pyramid_filter());
  EXPECT_EQ(camera.reason, "colour noise, correlated: Multiscale");
  EXPECT_EQ(edgewise::recommend_method(camera_like(8.0, 4.0, 0.3), registry).method, &edgewise::pyramid_filter());
  NoiseEstimate unmeasured = edgewise::white_noise_estimate(10.0, 3);
  unmeasured.fallback = true;
  const auto guess = edgewise::recommend_method(unmeasured, registry);
  EXPECT_EQ(guess.method, &edgewise::nlm_filter());  // the highest rank
  EXPECT_EQ(guess.reason, "noise not measured: Non-local means");
}

// The collaborative method is the quality choice, offered by name and never
// recommended: whatever the noise, the recommendation is a method whose
// preview follows the sliders on the CPU (nlbayes: 10 s per 4 MP on 2
// cores). It sets luminance and colour apart through its opponent channels.
TEST(Recommend, BestQualityIsChosenByName) {
  const auto& registry = edgewise::builtin_registry();
  const FilterInfo& best = edgewise::nlbayes_filter();
  EXPECT_STREQ(best.denoise.method, "Best quality (slow)");
  EXPECT_TRUE(best.denoise.separates);
  EXPECT_EQ(edgewise::method_number(&best, registry), 5);
  for (double luma : {1.0, 4.0, 12.0})
    for (double chroma : {0.5, 4.0, 20.0})
      for (double white : {0.1, 0.9}) {
        const auto recommendation = edgewise::recommend_method(camera_like(luma, chroma, white), registry);
        ASSERT_NE(recommendation.method, nullptr);
        EXPECT_NE(recommendation.method, &best) << luma << " " << chroma << " " << white;
      }
  for (int channels : {1, 3})
    EXPECT_NE(edgewise::recommend_method(edgewise::white_noise_estimate(8.0, channels), registry).method, &best);
}

// With a usable GPU the slow methods are quick, so the best for the noise
// that the GPU runs is recommended (issue 36): the learned filter for
// correlated and colour noise (0.82 dB above nlbayes on the camera set),
// nlbayes (24 MP in 0.6 s on an H200) for fine, even grain, where it is
// ahead; the reason's second line says why. Without one the quick method
// stays, and the note says what a GPU would run and what it costs here:
// the method's processor-seconds a megapixel over the threads.
TEST(Recommend, WithAndWithoutAGpu) {
  const auto& registry = edgewise::builtin_registry();
  edgewise::RecommendContext gpu;
  gpu.gpu = true;
  const auto camera = edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), registry, gpu);
  EXPECT_EQ(camera.method, &edgewise::learned_filter());
  EXPECT_EQ(camera.reason, "colour noise, correlated: Learned (slow on a CPU)");
  EXPECT_EQ(camera.note, "The best for this noise: the GPU makes it quick.");
  const auto white = edgewise::recommend_method(edgewise::white_noise_estimate(10.0, 3), registry, gpu);
  EXPECT_EQ(white.method, &edgewise::nlbayes_filter());
  EXPECT_EQ(white.reason, "fine, even grain: Best quality (slow)");
  EXPECT_EQ(edgewise::recommend_method(edgewise::white_noise_estimate(10.0, 1), registry, gpu).method,
            &edgewise::nlbayes_filter());

  edgewise::RecommendContext cpu;
  cpu.megapixels = 24.0;
  cpu.threads = 2;
  const auto quick = edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), registry, cpu);
  EXPECT_EQ(quick.method, &edgewise::pyramid_filter());
  EXPECT_EQ(quick.reason, "colour noise, correlated: Multiscale");
  EXPECT_EQ(quick.note, "With a GPU: Learned (slow on a CPU), which takes about 70 s for this image on this "
                        "processor.");  // 24 x 5.8 / 2 = 69.6
  const auto fine = edgewise::recommend_method(edgewise::white_noise_estimate(10.0, 3), registry, cpu);
  EXPECT_EQ(fine.method, &edgewise::nlm_filter());
  EXPECT_EQ(fine.note, "With a GPU: Best quality (slow), which takes about 122 s for this image on this "
                       "processor.");  // 24 x 10.2 / 2 = 122.4
  // No size given (a caller that does not know it): no note.
  EXPECT_EQ(edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), registry).note, "");
  // The rule reads the rows: without the learned row's GPU rank nlbayes
  // takes every kind of noise on a GPU.
  FilterInfo learned = edgewise::learned_filter();
  learned.denoise.gpu_rank = 0;
  const edgewise::Registry without({&edgewise::pyramid_filter(), &edgewise::nlbayes_filter(), &learned});
  EXPECT_EQ(edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), without, gpu).method, &edgewise::nlbayes_filter());
  EXPECT_EQ(edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), without, cpu).note,
            "With a GPU: Best quality (slow), which takes about 122 s for this image on this processor.");
  // What runs_on_gpu reads: a usable GPU backend for auto or its id, never the CPU.
  EXPECT_FALSE(edgewise::runs_on_gpu("cpu"));
  EXPECT_EQ(edgewise::runs_on_gpu("auto"), edgewise_test::gpu_unavailable_reason().empty());
}

// Luminance and Colour reach nlbayes's noise table apart: colour 0 leaves
// the chroma channels' noise at nothing, the luma channel's as measured.
TEST(ScaledNoise, BestQualityReadsLuminanceAndColourApart) {
  const NoiseEstimate measured = camera_like(4.0, 6.0, 0.9);  // mostly white: variances as measured
  const auto table = [&](double luminance, double colour) {
    const NoiseEstimate scaled = edgewise::scaled_noise(measured, 1.0, luminance, colour);
    return edgewise::nlbayes_noise_table(&scaled, 10.0, 3, 1);
  };
  const auto as_measured = table(1, 1), no_colour = table(1, 0), no_luma = table(0, 1);
  const int mid = as_measured.knots / 2;
  EXPECT_GT(as_measured.channel[0][1].variance[mid], 0.0f);
  // Colour or luminance 0: that channel's noise at the model's floor (half a code value).
  EXPECT_LT(no_colour.channel[0][1].variance[mid], 0.05f * as_measured.channel[0][1].variance[mid]);
  EXPECT_NEAR(no_colour.channel[0][0].variance[mid], as_measured.channel[0][0].variance[mid],
              0.05f * as_measured.channel[0][0].variance[mid]);
  EXPECT_LT(no_luma.channel[0][0].variance[mid], 0.05f * as_measured.channel[0][0].variance[mid]);
}

// The rule reads the rows' fields, never names: a row ranked higher for
// correlated noise takes over, and a registry without a suitable method
// still recommends one.
TEST(Recommend, ReadsTheRowsNotTheNames) {
  FilterInfo better = edgewise::nlm_filter();
  better.name = "better";
  better.denoise.suits = edgewise::kCorrelatedNoise | edgewise::kFineNoise;
  better.denoise.rank = 9;
  const edgewise::Registry with_better({&edgewise::bilateral_filter(), &edgewise::pyramid_filter(), &better});
  EXPECT_EQ(edgewise::recommend_method(camera_like(8.0, 4.0, 0.3), with_better).method, &better);
  EXPECT_EQ(edgewise::recommend_method(edgewise::white_noise_estimate(5, 3), with_better).method, &better);
  // Colour and correlated: no method suits both, one suits either.
  const edgewise::Registry plain({&edgewise::bilateral_filter(), &better});
  EXPECT_EQ(edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), plain).method, &better);
  const edgewise::Registry fine_only({&edgewise::bilateral_filter(), &edgewise::fourier_filter()});
  EXPECT_EQ(edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), fine_only).method, &edgewise::bilateral_filter());
  const edgewise::Registry none({&edgewise::adaptive_filter()});
  EXPECT_EQ(edgewise::recommend_method(camera_like(4.0, 9.0, 0.1), none).method, nullptr);
}

TEST(DenoiseMethods, OfferedWithNamesAndDescriptions) {
  const auto methods = edgewise::denoise_methods(edgewise::builtin_registry());
  ASSERT_GE(methods.size(), 4u);
  for (const FilterInfo* method : methods) {
    EXPECT_STRNE(method->denoise.good_for, "") << method->name;
    for (const auto& control : method->denoise.controls) EXPECT_TRUE(method->find_param(control.flag));
  }
  // The adaptive filter gives the bilateral filter's pixels at its
  // defaults: not a method of its own.
  EXPECT_STREQ(edgewise::adaptive_filter().denoise.method, "");
}

TEST(DenoiseMethods, NumberedByTheRegistry) {
  const auto& registry = edgewise::builtin_registry();
  const FilterInfo* method = &edgewise::bilateral_filter();
  EXPECT_EQ(edgewise::method_for_number(-1, registry, method), "");
  EXPECT_EQ(method, nullptr);
  EXPECT_EQ(edgewise::method_for_number(2, registry, method), "");
  EXPECT_EQ(method, &edgewise::nlm_filter());
  EXPECT_EQ(edgewise::method_number(&edgewise::pyramid_filter(), registry), 4);
  const std::string expected =
      "invalid method 1: expected -1: the one the noise model recommends for the image; "
      "0: Edge-aware, the bilateral filter; 2: Non-local means, the nlm filter; ";
  EXPECT_EQ(edgewise::method_for_number(1, registry, method).rfind(expected, 0), 0u);
  EXPECT_NE(edgewise::method_for_number(99, registry, method), "");
  EXPECT_NE(edgewise::method_for_number(0.5, registry, method), "");
  EXPECT_NE(edgewise::method_for_number(-2, registry, method), "");
}

TEST(DenoiseSettings, ValuesCheckedAndKeptAsText) {
  edgewise::DenoiseSettings denoise = edgewise::default_denoise();
  EXPECT_EQ(denoise.method, nullptr);
  EXPECT_EQ(edgewise::set_denoise_value(denoise, "strength", -1),
            "invalid strength -1: allowed range is 0 to 4 x the measured noise");
  EXPECT_EQ(denoise.strength, 1.0);
  ASSERT_EQ(edgewise::set_denoise_value(denoise, "colour", 2.5), "");
  denoise.method = &edgewise::pyramid_filter();
  denoise.settings = edgewise::choose_filter(denoise.settings, edgewise::pyramid_filter());
  ASSERT_EQ(edgewise::apply_argument(denoise.settings, "coarse-strength", "2"), "");
  const std::string text = edgewise::format_denoise(denoise);
  EXPECT_EQ(text.rfind("--denoise-method pyramid --denoise-strength 1 --denoise-luminance 1 --denoise-colour 2.5 "
                       "--filter pyramid ",
                       0),
            0u)
      << text;
  edgewise::DenoiseSettings read = edgewise::default_denoise();
  EXPECT_TRUE(edgewise::read_denoise(text, read).empty());
  EXPECT_EQ(edgewise::format_denoise(read), text);
  // Bad stored values keep their defaults, one message each.
  edgewise::DenoiseSettings lenient = edgewise::default_denoise();
  const auto problems =
      edgewise::read_denoise("--denoise-method adaptive --denoise-strength 9 --denoise-colour x --sigma-s 2", lenient);
  EXPECT_EQ(problems.size(), 3u);
  EXPECT_EQ(lenient.method, nullptr);
  EXPECT_EQ(lenient.strength, 1.0);
  EXPECT_EQ(lenient.settings.spec.get("sigma-s"), 2.0);
}

TEST(DenoiseSettings, PlanTakesTheRecommendedMethodAndScalesTheNoise) {
  const NoiseEstimate measured = camera_like(4.0, 9.0, 0.1);
  edgewise::DenoiseSettings denoise = edgewise::default_denoise();
  denoise.strength = 2;
  denoise.colour = 0.5;
  const edgewise::DenoiseJob job = edgewise::plan_denoise(denoise, measured, 3);
  EXPECT_EQ(job.method, &edgewise::pyramid_filter());
  EXPECT_EQ(&job.settings.spec.filter(), &edgewise::pyramid_filter());
  EXPECT_EQ(job.reason, "colour noise, correlated: Multiscale");
  EXPECT_NEAR(job.noise.opponent[0].sigma, 8.0, 1e-9);
  EXPECT_NEAR(job.noise.opponent[1].sigma, 9.0, 1e-9);
  // A method that does not separate them takes the strength alone; so does
  // a grey image.
  denoise.method = &edgewise::bilateral_filter();
  const edgewise::DenoiseJob bilateral = edgewise::plan_denoise(denoise, measured, 3);
  EXPECT_EQ(bilateral.reason, "");
  EXPECT_NEAR(bilateral.noise.opponent[1].sigma, 18.0, 1e-9);
  denoise.method = &edgewise::pyramid_filter();
  const edgewise::DenoiseJob grey = edgewise::plan_denoise(denoise, edgewise::white_noise_estimate(5, 1), 1);
  EXPECT_NEAR(grey.noise.channels[0].sigma, 10.0, 1e-9);
  EXPECT_FALSE(edgewise::splits_luminance_colour(edgewise::pyramid_filter(), 1));
  EXPECT_TRUE(edgewise::splits_luminance_colour(edgewise::pyramid_filter(), 3));
  EXPECT_FALSE(edgewise::splits_luminance_colour(edgewise::nlm_filter(), 3));
}

TEST(ParamActivity, FromTheDefLists) {
  edgewise::FilterSpec pyramid(edgewise::pyramid_filter());
  const edgewise::ParamInfo& luma = *pyramid.filter().find_param("luma-strength");
  const edgewise::ParamInfo& chroma = *pyramid.filter().find_param("chroma-strength");
  EXPECT_EQ(edgewise::inactive_reason(pyramid, luma, 3), "acts only when Colour mode is lab");
  ASSERT_EQ(edgewise::set_param(pyramid, "mode", std::string("lab")), "");
  EXPECT_EQ(edgewise::inactive_reason(pyramid, luma, 3), "");
  EXPECT_EQ(edgewise::inactive_reason(pyramid, luma, 1), "");
  EXPECT_EQ(edgewise::inactive_reason(pyramid, chroma, 1), "a grey image has no colour for it to act on");

  edgewise::FilterSpec nlm =
      edgewise::resolve_noise(edgewise::FilterSpec(edgewise::nlm_filter()), edgewise::white_noise_estimate(5, 3));
  const edgewise::ParamInfo& kernel = *nlm.filter().find_param("kernel");
  EXPECT_EQ(edgewise::inactive_reason(nlm, kernel, 3), "no effect while Range sigma is off");
  ASSERT_EQ(edgewise::set_param(nlm, "sigma-r", 30.0), "");
  EXPECT_EQ(edgewise::inactive_reason(nlm, kernel, 3), "");
  EXPECT_TRUE(nlm.filter().find_param("sigma-s")->is_off(100.0));

  edgewise::FilterSpec bilateral(edgewise::bilateral_filter());
  ASSERT_EQ(edgewise::set_param(bilateral, "mode", std::string("lab")), "");
  const edgewise::ParamInfo& space = *bilateral.filter().find_param("working-space");
  EXPECT_EQ(edgewise::inactive_reason(bilateral, space, 3), "no effect when Colour mode is lab");
  EXPECT_EQ(edgewise::inactive_reason(bilateral, space, 1), "");  // a grey image is not converted to Lab
}

TEST(ParamActivity, TheRegistryRefusesUnknownFlags) {
  FilterInfo broken = edgewise::pyramid_filter();
  broken.name = "broken";
  broken.denoise.controls = {{"no-such-flag", "_Broken", "help"}};
  EXPECT_THROW(edgewise::Registry({&broken}), std::logic_error);
  broken.denoise.controls = {{"strength", "no access key", "help"}};
  EXPECT_THROW(edgewise::Registry({&broken}), std::logic_error);
}

}  // namespace
