// Parameters at auto (kNoiseAuto): how they are written and refused, and
// that a run with auto values is the run with the values each filter's rule
// gives for the image's estimated noise, to the last bit.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "bilateral.h"
#include "engine.h"
#include "filter_registry.h"
#include "fourier.h"
#include "nlm.h"
#include "noise_estimate.h"
#include "test_support.h"

namespace {

using edgewise::FilterSpec;
using edgewise::FloatImage;
using edgewise::ImageShape;
using edgewise::kNoiseAuto;
using edgewise_test::bit_identical;
using edgewise_test::run_cpu;

// A smooth image with white noise of `sigma` code values (seeded).
FloatImage noisy_image(std::mt19937_64& rng, const ImageShape& shape, double sigma) {
  FloatImage image(shape);
  std::normal_distribution<double> noise(0.0, sigma / 255.0);
  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x)
      for (int c = 0; c < shape.channels; ++c)
        image.at(x, y, c) = float(0.3 + 0.4 * x / shape.width + 0.1 * c + noise(rng));
  return image;
}

// An estimate of one value on every channel, as a front end may pass one.
edgewise::NoiseEstimate estimate_of(double sigma, int channels = 3) {
  return edgewise::white_noise_estimate(sigma, channels);
}

FilterSpec spec_of(const edgewise::FilterInfo& filter, std::initializer_list<std::pair<const char*, double>> values) {
  FilterSpec spec(filter);
  for (const auto& value : values) edgewise::throw_if_error(edgewise::set_param(spec, value.first, value.second));
  return spec;
}

TEST(AutoParams, WrittenAndRefusedLikeEveryValue) {
  FilterSpec spec(edgewise::bilateral_filter());
  EXPECT_EQ(spec.get("sigma-r"), kNoiseAuto);  // the default
  const edgewise::ParamInfo& sigma_r = *spec.filter().find_param("sigma-r");
  EXPECT_EQ(edgewise::value_text(sigma_r, kNoiseAuto), "auto");
  ASSERT_EQ(edgewise::set_param(spec, "sigma-r", std::string("12.5")), "");
  ASSERT_EQ(edgewise::set_param(spec, "sigma-r", std::string("auto")), "");
  EXPECT_EQ(spec.get("sigma-r"), kNoiseAuto);
  ASSERT_EQ(edgewise::set_param(spec, "sigma-r", -1.0), "");  // the PDB's auto
  // Other negative values and words are refused with the one message.
  EXPECT_EQ(edgewise::set_param(spec, "sigma-r", -2.0).rfind("invalid sigma-r -2: allowed range is 0.001 to ", 0), 0u);
  EXPECT_EQ(edgewise::set_param(spec, "sigma-r", std::string("often")),
            "invalid sigma-r 'often': expected a number or auto");
  // A parameter without auto keeps its messages.
  EXPECT_EQ(edgewise::set_param(spec, "sigma-s", std::string("auto")), "invalid sigma-s 'auto': not a number");
  EXPECT_NE(edgewise::set_param(spec, "sigma-s", -1.0), "");
  EXPECT_EQ(edgewise::validate(spec), "");
  EXPECT_TRUE(edgewise::needs_noise(spec));
  // Planning needs the values themselves.
  EXPECT_THROW(edgewise::make_plan(spec, {8, 8, 3}), std::invalid_argument);
}

// Every filter's rule, as its .def text and the README state it.
TEST(AutoParams, RulesOfEachFilter) {
  const edgewise::NoiseEstimate noise = estimate_of(8.0);
  const FilterSpec bilateral = edgewise::resolve_noise(FilterSpec(edgewise::bilateral_filter()), noise);
  EXPECT_FLOAT_EQ(float(bilateral.get("sigma-r")), 24.0f);  // rgb, the default mode
  FilterSpec per_channel(edgewise::bilateral_filter());
  ASSERT_EQ(edgewise::set_param(per_channel, "mode", std::string("per-channel")), "");
  EXPECT_FLOAT_EQ(float(edgewise::resolve_noise(per_channel, noise).get("sigma-r")), 20.0f);
  FilterSpec lab(edgewise::bilateral_filter());
  ASSERT_EQ(edgewise::set_param(lab, "mode", std::string("lab")), "");
  // lab: a multiple growing with the noise, (1.75 + 0.025 x 8) x its noise as a Delta E.
  EXPECT_FLOAT_EQ(float(edgewise::resolve_noise(lab, noise).get("sigma-r")),
                  float((1.75 + 0.025 * 8.0) * 8.0 * edgewise::kLabPerCode));
  const FilterSpec adaptive = edgewise::resolve_noise(FilterSpec(edgewise::adaptive_filter()), noise);
  // adaptive: eps 0, sigma-r' between 2 and 4 x the noise (normalized).
  EXPECT_FLOAT_EQ(float(adaptive.get("adapt-eps")), 0.0f);
  EXPECT_FLOAT_EQ(float(adaptive.get("adapt-min")), float(16.0 / 255));
  EXPECT_FLOAT_EQ(float(adaptive.get("adapt-max")), float(32.0 / 255));
  EXPECT_FLOAT_EQ(float(adaptive.get("adapt-k")), 1.25f);
  // An explicit partner keeps min <= max.
  const FilterSpec capped = edgewise::resolve_noise(spec_of(edgewise::adaptive_filter(), {{"adapt-max", 0.01}}), noise);
  EXPECT_FLOAT_EQ(float(capped.get("adapt-min")), 0.01f);
  const FilterSpec nlm = edgewise::resolve_noise(FilterSpec(edgewise::nlm_filter()), noise);
  EXPECT_FLOAT_EQ(float(nlm.get("h")), 6.0f);
  EXPECT_FLOAT_EQ(float(nlm.get("sigma-n")), 8.0f);
  EXPECT_EQ(nlm.get("sigma-r"), nlm.filter().find_param("sigma-r")->hard_max);  // the range term off
  const FilterSpec fourier = edgewise::resolve_noise(FilterSpec(edgewise::fourier_filter()), noise);
  EXPECT_FLOAT_EQ(float(fourier.get("sigma-r")), 12.0f);
  EXPECT_GT(edgewise::fourier_terms(fourier), 0);
  // A value the user set is kept.
  const FilterSpec set = edgewise::resolve_noise(spec_of(edgewise::nlm_filter(), {{"h", 3.0}}), noise);
  EXPECT_EQ(set.get("h"), 3.0);
  // The median over channels; no measurable noise is the floor, not zero.
  edgewise::NoiseEstimate mixed = estimate_of(4.0);
  mixed.channels[1].sigma = 6.0;
  mixed.channels[2].sigma = 40.0;
  EXPECT_FLOAT_EQ(float(edgewise::resolve_noise(FilterSpec(edgewise::bilateral_filter()), mixed).get("sigma-r")),
                  18.0f);
  const edgewise::NoiseEstimate none;
  EXPECT_FLOAT_EQ(float(edgewise::resolve_noise(FilterSpec(edgewise::bilateral_filter()), none).get("sigma-r")),
                  float(3.0 * edgewise::kNoiseFloor));
}

// A run at auto is the run at the values the rule gives for the estimate
// of the same image, on every filter whose row says its auto follows
// nothing more (FilterInfo::auto_follows); a row that says it does is held
// to that: its run at auto differs (each filter's own tests check what it
// follows: test_nlm.cpp's NlmCpu.NoiseProfile*, PyramidAuto.* in
// test_pyramid.cpp, test_nlbayes.cpp's MatchesReferenceSignalDependentNoise,
// test_learned.cpp's MatchesTheDoublePipelineOnAPhoto).
TEST(AutoParams, RunAtAutoIsTheRunAtTheEstimatedValues) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{97, 61, 3};
  const FloatImage input = noisy_image(rng, shape, 9.0);
  FloatImage rows = input;  // the estimator reads a PixelSource
  const edgewise::NoiseEstimate noise = edgewise::estimate_noise(rows, shape);
  ASSERT_TRUE(noise.valid());
  EXPECT_NEAR(noise.sigma(), 9.0, 1.5);
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec(*filter);
    if (!edgewise::needs_noise(spec)) continue;
    SCOPED_TRACE(filter->name);
    const FloatImage automatic = run_cpu(spec, input);
    const FloatImage resolved = run_cpu(edgewise::resolve_noise(spec, noise), input);
    if (filter->auto_follows[0] == '\0')
      EXPECT_TRUE(bit_identical(automatic, resolved))
          << "edgewise:" << filter->name << " at auto is not the run at resolve_noise's values: if its auto follows "
          << "more of the estimate, its registry row says what (FilterInfo::auto_follows)";
    else
      EXPECT_FALSE(bit_identical(automatic, resolved))
          << "edgewise:" << filter->name << "'s row says its auto follows " << filter->auto_follows
          << ", yet its run at auto is the run at resolve_noise's values";
  }
  // The report, through the engine's buffer entry.
  std::vector<float> in_samples(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels));
  std::vector<float> out_samples(in_samples.size());
  rows.read_rows(0, shape.height, in_samples.data());
  edgewise::RunOptions options;
  options.backend = "cpu";
  const edgewise::RunReport report = edgewise::run_filter(
      FilterSpec(edgewise::bilateral_filter()), {in_samples.data(), shape, edgewise::SampleType::f32, 0},
      {out_samples.data(), shape, edgewise::SampleType::f32, 0}, options);
  EXPECT_DOUBLE_EQ(report.noise_sigma, noise.sigma());
  EXPECT_EQ(report.auto_values, "sigma-r " + edgewise::value_text(*edgewise::bilateral_filter().find_param("sigma-r"),
                                                                  3.0 * noise.sigma()));
}

// A front end that filters part of an image passes the whole image's
// estimate: the run then follows it, not the part's own noise.
TEST(AutoParams, AGivenEstimateIsUsed) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{40, 33, 3};
  const FloatImage input = noisy_image(rng, shape, 6.0);
  const edgewise::NoiseEstimate given = estimate_of(14.0);
  edgewise::RunOptions options;
  options.noise = &given;
  const FloatImage automatic = run_cpu(FilterSpec(edgewise::bilateral_filter()), input, options);
  const FloatImage explicit_value = run_cpu(spec_of(edgewise::bilateral_filter(), {{"sigma-r", 42.0}}), input);
  EXPECT_TRUE(bit_identical(automatic, explicit_value));
}

}  // namespace
