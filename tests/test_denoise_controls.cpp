// Issue 30: every control of the Denoise dialog that is sensitive changes
// the preview for some value, and every insensitive one carries its reason
// in its tooltip. The dialog greys out a row exactly when row_state says it
// cannot act (param_controls.cpp, refresh_row: "No effect now: <why>"),
// hides Luminance and Colour for a method that does not set them apart, and
// previews plan_denoise's job; so for each method at the Denoise defaults,
// on a photo with camera-like noise, each row of the method (its plain
// controls and its Advanced rows, as describe_dialog makes them) is tried
// at the values its widgets offer (each end of the slider and of the valid
// range, Auto, Off, every choice) through the same job.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "camera_pipeline.h"
#include "control_rows.h"
#include "denoise.h"
#include "engine.h"
#include "noise_curves.h"
#include "noise_estimate.h"

namespace {

using edgewise_quality::Photo8;

struct Photo {
  Photo8 noisy;
  edgewise::NoiseEstimate measured;
};

const Photo& phone_photo() {
  static const Photo photo = [] {
    // A gradient with edges and texture, 96 x 96, given a phone's noise.
    Photo8 scene{96, 96, 3, std::vector<uint8_t>(96 * 96 * 3)};
    for (int y = 0; y < 96; ++y)
      for (int x = 0; x < 96; ++x)
        for (int c = 0; c < 3; ++c)
          scene.pixels[size_t((y * 96 + x) * 3 + c)] =
              uint8_t(40 + (x + y) + (x > 48 ? 50 : 0) + ((x / 6 + y / 6) % 2) * 12 * c);
    Photo result;
    result.noisy = edgewise_quality::develop(scene, edgewise_quality::camera_case(2, 1, true)).noisy;
    const edgewise::ImageBuffer in{result.noisy.pixels.data(), {96, 96, 3}, edgewise::SampleType::u8, 0};
    result.measured = edgewise::estimate_noise(in);
    return result;
  }();
  return photo;
}

std::vector<uint8_t> preview(const edgewise::DenoiseSettings& denoise) {
  const Photo& photo = phone_photo();
  const edgewise::DenoiseJob job = edgewise::plan_denoise(denoise, photo.measured, 3);
  std::vector<uint8_t> out(photo.noisy.pixels.size());
  const edgewise::ImageShape shape{96, 96, 3};
  const edgewise::ImageBuffer in{const_cast<uint8_t*>(photo.noisy.pixels.data()), shape, edgewise::SampleType::u8, 0};
  const edgewise::ImageBuffer result{out.data(), shape, edgewise::SampleType::u8, 0};
  edgewise::RunOptions options;
  options.backend = "cpu";
  options.noise = &job.noise;
  edgewise::run_filter(job.settings.spec, in, result, options);
  return out;
}

// The values a row's widgets can give it.
std::vector<double> offered(const edgewise_dialog::ControlRow& row) {
  std::vector<double> values;
  if (row.choice) {
    for (size_t i = 0; i < row.choices.size(); ++i) values.push_back(double(i));
    return values;
  }
  values = {row.hard_min, row.slider_min, (row.slider_min + row.slider_max) / 2, row.slider_max, row.hard_max};
  if (row.automatic) values.push_back(0);
  if (row.noise_auto) values.push_back(edgewise::kNoiseAuto);
  return values;
}

class DenoiseControls : public ::testing::TestWithParam<const edgewise::FilterInfo*> {};

TEST_P(DenoiseControls, SensitiveRowsChangeThePreviewInsensitiveOnesSayWhy) {
  const edgewise::FilterInfo& method = *GetParam();
  const edgewise::Registry& registry = edgewise::builtin_registry();
  edgewise::DenoiseSettings base = edgewise::default_denoise();
  base.method = &method;
  base.settings = edgewise::plan_denoise(base, phone_photo().measured, 3).settings;
  const std::vector<uint8_t> at_defaults = preview(base);
  const edgewise::NoiseEstimate noise = edgewise::plan_denoise(base, phone_photo().measured, 3).noise;
  const edgewise::ImageShape shape{96, 96, 3};

  // Strength always; Luminance and Colour where the dialog shows them.
  const bool apart = edgewise::splits_luminance_colour(method, 3);
  for (const char* flag : {"strength", "luminance", "colour"}) {
    bool changes = false;
    for (double value : {0.0, 0.5, 2.0, 4.0}) {
      edgewise::DenoiseSettings changed = base;
      ASSERT_EQ(edgewise::set_denoise_value(changed, flag, value), "");
      changes = changes || preview(changed) != at_defaults;
    }
    if (std::string(flag) == "strength" || apart)
      EXPECT_TRUE(changes) << method.name << ": " << flag << " is shown and changes nothing";
    else
      EXPECT_FALSE(changes) << method.name << ": " << flag << " is hidden but acts";
  }

  const edgewise_dialog::DialogLayout layout = edgewise_dialog::describe_dialog(registry, edgewise::installed_backends(), nullptr);
  int rows = 0;
  for (const edgewise_dialog::ControlBlock& block : layout.blocks)
    for (const edgewise_dialog::ControlRow& row : block.rows) {
      if (!row.param || method.find_param(row.param->cli_flag) != row.param) continue;  // another method's row
      ++rows;
      const edgewise_dialog::RowState state = edgewise_dialog::row_state(row, base.settings, &noise, shape);
      if (!state.acts) {
        EXPECT_FALSE(state.why.empty()) << method.name << " " << row.param->cli_flag << ": greyed out without a reason";
        continue;
      }
      bool changes = false;
      for (double value : offered(row)) {
        if (changes) break;
        edgewise::DenoiseSettings changed = base;
        edgewise_dialog::set_row_value(row, value, changed.settings);
        if (!edgewise::validate(changed.settings.spec).empty()) continue;  // refused: OK is greyed out
        changes = preview(changed) != at_defaults;
      }
      EXPECT_TRUE(changes) << method.name << " " << row.param->cli_flag << " is sensitive and changes nothing";
    }
  EXPECT_GT(rows, 0) << method.name;
}

std::string method_name(const ::testing::TestParamInfo<const edgewise::FilterInfo*>& info) {
  return info.param->name;
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, DenoiseControls,
                         ::testing::ValuesIn(edgewise::denoise_methods(edgewise::builtin_registry())), method_name);

// The dialog's luminance and colour noise are in per-channel code values:
// for white noise of sigma independent between channels they add up, in
// quadrature, to sigma (the Auto button's number), luminance being a third
// of the variance.
TEST(DenoiseNoiseShown, LuminanceAndColourAddUpToThePerChannelNoise) {
  const edgewise::NoiseEstimate white = edgewise::white_noise_estimate(12.0, 3);
  const std::vector<edgewise_dialog::NoiseCurve> curves = edgewise_dialog::noise_curves(white);
  ASSERT_EQ(curves.size(), 2u);
  const double luminance = curves[0].points.front().second, colour = curves[1].points.front().second;
  EXPECT_NEAR(luminance * luminance + colour * colour, 144.0, 1e-6);
  EXPECT_NEAR(luminance, 12.0 / std::sqrt(3.0), 1e-9);
  // One figure first (the one Auto follows), then the plot's two parts.
  const std::string caption = edgewise_dialog::noise_caption(white);
  EXPECT_EQ(caption.rfind("Noise 12.0 (", 0), 0u) << caption;
  EXPECT_NE(caption.find("luminance 6.9, colour 9.8 per channel"), std::string::npos) << caption;
}

}  // namespace
