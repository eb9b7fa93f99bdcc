// The dialog's preview without GTK (dialogs/, library edgewise_preview):
// settings text, region geometry, the promise that a preview at 100% and
// above shows exactly the pixels the CLI would write, the selection, scaled
// previews, BufferPort reads, the worker's cancellation, and CUDA vs CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "buffer_port.h"
#include "preview_region.h"
#include "preview_render.h"
#include "preview_worker.h"
#include "settings.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;
using edgewise_dialog::BufferPort;
using edgewise_dialog::PreviewInput;
using edgewise_dialog::PreviewRegion;
using edgewise_dialog::PreviewResult;
using edgewise_dialog::PreviewWorker;
using edgewise_dialog::Rect;
using edgewise_dialog::View;

const char* const kBackends[] = {"auto", "cpu", "cuda"};

// An 8-bit image as the CLI decodes it: random_image rounded to 8 bits.
struct U8Image {
  ImageShape shape;
  std::vector<uint8_t> samples;
  ImageBuffer buffer() { return {samples.data(), shape, SampleType::u8, 0}; }
  uint8_t at(int x, int y, int c) const {
    return samples[(size_t(y) * size_t(shape.width) + size_t(x)) * size_t(shape.channels) + size_t(c)];
  }
};

U8Image random_u8_image(std::mt19937_64& rng, const ImageShape& shape, Alpha alpha = Alpha::with_zeros) {
  const FloatImage image = random_image(rng, shape, {true, alpha});
  U8Image out{shape, {}};
  for (float v : image.pixels()) out.samples.push_back(float_to_u8(v));
  return out;
}

// The CLI's output: the engine on the whole 8-bit image, on the CPU.
std::vector<uint8_t> run_engine_u8(const FilterSpec& spec, U8Image& image) {
  std::vector<uint8_t> out(image.samples.size());
  RunOptions options;
  options.backend = "cpu";
  run_filter(spec, image.buffer(), {out.data(), image.shape, SampleType::u8, 0}, options);
  return out;
}

std::vector<uint8_t> crop(const std::vector<uint8_t>& samples, const ImageShape& shape, const Rect& rect) {
  std::vector<uint8_t> out;
  const size_t channels = size_t(shape.channels);
  for (int y = rect.y; y < rect.bottom(); ++y) {
    const auto row = samples.begin() + ptrdiff_t((size_t(y) * size_t(shape.width) + size_t(rect.x)) * channels);
    out.insert(out.end(), row, row + ptrdiff_t(size_t(rect.width) * channels));
  }
  return out;
}

struct ByteDifference {
  int max_abs = 0, x = 0, y = 0, c = 0, expected = 0, got = 0;
  size_t count = 0;  // samples that differ
  std::string describe() const {
    std::ostringstream out;
    out << count << " samples differ, max " << max_abs << " at (" << x << "," << y << ") channel " << c << ": expected "
        << expected << ", got " << got;
    return out.str();
  }
};

// x, y relative to the compared rectangle.
ByteDifference compare_bytes(const std::vector<uint8_t>& expected, const std::vector<uint8_t>& got, int width,
                             int channels) {
  ByteDifference d;
  for (size_t i = 0; i < std::min(expected.size(), got.size()); ++i) {
    const int diff = std::abs(int(expected[i]) - int(got[i]));
    if (diff == 0) continue;
    ++d.count;
    if (diff <= d.max_abs) continue;
    const size_t pixel = i / size_t(channels);
    d = {diff,   int(pixel % size_t(width)), int(pixel / size_t(width)), int(i % size_t(channels)), expected[i], got[i],
         d.count};
  }
  return d;
}

std::string describe_shape(const ImageShape& shape) {
  return std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" + std::to_string(shape.channels);
}

std::string describe_region(const View& view, const PreviewRegion& region) {
  std::ostringstream out;
  out << "pane " << view.pane_width << "x" << view.pane_height << (view.fit ? " fit" : " zoom ") << view.zoom
      << " centre (" << view.center_x << "," << view.center_y << ") visible " << region.visible.x << ","
      << region.visible.y << " " << region.visible.width << "x" << region.visible.height << " read " << region.read.x
      << "," << region.read.y << " " << region.read.width << "x" << region.read.height;
  return out.str();
}

Rect whole(const ImageShape& shape) { return {0, 0, shape.width, shape.height}; }

bool inside(const Rect& inner, const Rect& outer) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.right() <= outer.right() && inner.bottom() <= outer.bottom();
}

bool same(const Rect& a, const Rect& b) {
  return a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height;
}

FilterSpec random_spec(std::mt19937_64& rng, ColorMode mode, RangeKernel kernel, bool adaptive) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float sigma_s = 0.5f + 2.5f * unit(rng);
  const int radius = unit(rng) < 0.5f ? 0 : 1 + int(rng() % 5);
  const float sigma_r = mode == ColorMode::lab ? 4.0f + 26.0f * unit(rng) : 8.0f + 52.0f * unit(rng);
  FilterSpec spec = make_spec(mode, kernel, sigma_s, sigma_r, radius, 1 + int(rng() % 3));
  if (adaptive) {
    AdaptiveParameters parameters;
    parameters.adapt_k = 0.3f + unit(rng);
    parameters.adapt_eps = 0.05f * unit(rng);
    spec = adaptive_of(spec, parameters);
  }
  return spec;
}

View random_view(std::mt19937_64& rng, double zoom) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  View view;
  view.zoom = zoom;
  view.center_x = unit(rng);
  view.center_y = unit(rng);
  view.pane_width = 8 + int(rng() % 150);
  view.pane_height = 8 + int(rng() % 150);
  return view;
}

Settings settings_for(const FilterSpec& spec, const char* backend) {
  Settings settings;
  settings.spec = spec;
  settings.backend = backend;
  return settings;
}
Settings cpu_settings(const FilterSpec& spec) { return settings_for(spec, "cpu"); }

// ---------------------------------------------------------------- settings

void expect_same_settings(const Settings& expected, const Settings& got) {
  ASSERT_EQ(&expected.spec.filter(), &got.spec.filter());
  for (const ParamInfo* info : expected.spec.filter().params())
    EXPECT_EQ(get_param(expected.spec, info->cli_flag), get_param(got.spec, info->cli_flag)) << info->cli_flag;
  EXPECT_EQ(expected.backend, got.backend);
}

// Sets adapt-min and adapt-max in order when the spec has them.
void order_adaptive_bounds(FilterSpec& spec) {
  if (!spec.has("adapt-min") || spec.get("adapt-min") <= spec.get("adapt-max")) return;
  const double low = spec.get("adapt-max"), high = spec.get("adapt-min");
  ASSERT_EQ(set_param(spec, "adapt-min", low), "");
  ASSERT_EQ(set_param(spec, "adapt-max", high), "");
}

// Every (filter, parameter) of the built-in registry.
std::vector<std::pair<const FilterInfo*, const ParamInfo*>> all_params() {
  std::vector<std::pair<const FilterInfo*, const ParamInfo*>> pairs;
  for (const FilterInfo* filter : builtin_registry().filters())
    for (const ParamInfo* info : filter->params()) pairs.emplace_back(filter, info);
  return pairs;
}

TEST(PreviewSettings, TextRoundTripsEveryEnumAndAwkwardFloats) {
  EW_SEEDED_RNG(rng);
  // Values chosen per parameter from these when inside its hard range.
  const double awkward[] = {0.0, 1e-4, 0.002, 0.1, 0.3, 1.0 / 3.0, 2.5, 7.123456789, 99.99, 12345.678};
  int cases = 0;
  for (const FilterInfo* filter : builtin_registry().filters())
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels)
        for (const char* backend : kBackends) {
          Settings settings = default_settings(*filter);
          settings.backend = backend;
          // A filter without colour modes and range kernels (nlbayes) runs once.
          if (!settings.spec.has("mode") && (mode != kModes[0] || kernel != kKernels[0])) continue;
          if (settings.spec.has("mode")) {
            ASSERT_EQ(set_param(settings.spec, "mode", double(mode)), "");
          }
          if (settings.spec.has("kernel")) {
            ASSERT_EQ(set_param(settings.spec, "kernel", double(kernel)), "");
          }
          // A mode the filter's own check refuses (the fourier filter's rgb).
          if (!validate(settings.spec).empty()) continue;
          for (const ParamInfo* param : filter->params()) {
            const ParamInfo& info = *param;
            if (info.is_enum()) continue;
            // The hard limits themselves are left to HardLimitsRoundTrip.
            std::vector<double> candidates;
            for (double value : awkward)
              if (value > info.hard_min && value < info.hard_max) candidates.push_back(value);
            double value = candidates[rng() % candidates.size()];
            if (rng() % 3 == 0)  // or uniform inside the slider range
              value = info.slider_min + (info.slider_max - info.slider_min) * double(rng() % 1000 + 1) / 1001.0;
            if (info.is_integer()) value = info.hard_min + double(rng() % size_t(info.slider_max - info.hard_min + 1));
            ASSERT_EQ(set_param(settings.spec, info.cli_flag, value), "") << info.cli_flag << " " << value;
          }
          order_adaptive_bounds(settings.spec);
          // nlm's h: 0 (patch term off) or at least 0.1.
          if (settings.spec.has("h") && get_param(settings.spec, "h") > 0 && get_param(settings.spec, "h") < 0.1) {
            ASSERT_EQ(set_param(settings.spec, "h", 0.3), "");
          }
          if (cases % 5 == 0 && settings.spec.has("radius")) {
            ASSERT_EQ(set_param(settings.spec, "radius", 0.0), "");
          }
          ++cases;
          const std::string text = format_arguments(settings);
          SCOPED_TRACE(text);
          ASSERT_EQ(validate(settings.spec), "");
          Settings parsed;  // defaults, so every field must come from the text
          parsed.backend = std::string(backend) == "cpu" ? "cuda" : "cpu";
          ASSERT_EQ(parse_arguments(text, parsed), "");
          expect_same_settings(settings, parsed);
          EXPECT_EQ(format_arguments(parsed), text);
        }
}

// Floats anywhere in a parameter's range (log-uniform) come back bit for bit.
TEST(PreviewSettings, RandomFloatsRoundTripBitExactly) {
  EW_SEEDED_RNG(rng);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const auto& [filter, param] : all_params()) {
    const ParamInfo& info = *param;
    if (info.is_integer()) continue;
    const double low = std::max(info.hard_min, 1e-3), high = info.hard_max;
    for (int trial = 0; trial < 2000; ++trial) {
      Settings settings = default_settings(*filter);
      if (settings.spec.has("adapt-max")) {
        ASSERT_EQ(set_param(settings.spec, "adapt-max", 10.0), "");
      }
      if (std::string(info.cli_flag) == "adapt-max") {
        ASSERT_EQ(set_param(settings.spec, "adapt-min", low), "");
      }
      const float value = float(low * std::pow(high / low, unit(rng)));
      if (!(value > info.hard_min && value < info.hard_max)) continue;
      if (std::string(info.cli_flag) == "h" && value < 0.1f) continue;  // nlm: 0 or at least 0.1
      ASSERT_EQ(set_param(settings.spec, info.cli_flag, double(value)), "");
      Settings parsed;
      const std::string text = format_arguments(settings);
      ASSERT_EQ(parse_arguments(text, parsed), "") << text;
      ASSERT_EQ(float(get_param(parsed.spec, info.cli_flag)), value) << text;
    }
  }
}

// The documented hard limits are valid values and must survive the text
// (adapt-min 0.0001 is stored as the float 9.9999997e-5, which the validator
// once rejected by comparing it with the double limit).
TEST(PreviewSettings, HardLimitsRoundTrip) {
  for (const auto& [filter, param] : all_params()) {
    const ParamInfo& info = *param;
    if (info.is_enum()) continue;
    for (double value : {info.hard_min, info.hard_max}) {
      Settings settings = default_settings(*filter);
      // So that adapt-min and adapt-max may each take any value.
      if (settings.spec.has("adapt-max")) {
        ASSERT_EQ(set_param(settings.spec, "adapt-max", 10.0), "");
      }
      if (std::string(info.cli_flag) == "adapt-max") {
        ASSERT_EQ(set_param(settings.spec, "adapt-min", 0.0001), "");
      }
      ASSERT_EQ(set_param(settings.spec, info.cli_flag, value), "") << info.cli_flag << " " << value;
      EXPECT_EQ(validate(settings.spec), "") << info.cli_flag << " " << value;
      const std::string text = format_arguments(settings);
      Settings parsed;
      EXPECT_EQ(parse_arguments(text, parsed), "") << text;
    }
  }
}

TEST(PreviewSettings, BadTextReturnsTheMessageAndChangesNothing) {
  Settings settings;
  settings.spec = make_spec(ColorMode::lab, RangeKernel::huber, 2.5f, 0.002f, 7, 2);
  settings.backend = "cpu";
  const std::string before = format_arguments(settings);
  const std::pair<const char*, const char*> cases[] = {
      {"--sigma-s -1", "invalid sigma-s -1"},
      {"--mode rgb --mode foo", "invalid mode 'foo'"},
      {"--nope 1", "unknown option --nope"},
      {"--sigma-s", "needs a value"},
      {"--mode rgb --sigma-s", "needs a value"},
      {"sigma-s 2", "expected an option"},
      {"--radius 2.5", "invalid radius 2.5"},
      {"--sigma-r abc", "invalid sigma-r 'abc': expected a number or auto"},
      {"--sigma-s abc", "invalid sigma-s 'abc': not a number"},
      {"--sigma-s auto", "invalid sigma-s 'auto': not a number"},
      {"--backend gpu", "invalid backend 'gpu'"},
      {"--filter adaptive --adapt-min 0.5 --adapt-max 0.1", "must not exceed adapt-max"},
      {"--filter median", "invalid filter 'median'"},
  };
  for (const auto& [text, message] : cases) {
    Settings parsed = settings;
    const std::string error = parse_arguments(text, parsed);
    EXPECT_NE(error.find(message), std::string::npos) << "'" << text << "' gave '" << error << "'";
    EXPECT_EQ(format_arguments(parsed), before) << text;
  }
}

// ---------------------------------------------------------------- geometry

const ImageShape kAwkwardSizes[] = {{1, 1, 3},    {1, 57, 3}, {61, 1, 3},   {113, 97, 3},
                                    {97, 113, 3}, {7, 5, 3},  {211, 31, 3}, {640, 480, 3}};

TEST(PreviewRegion, GeometryAtZoomOneAndTwo) {
  EW_SEEDED_RNG(rng);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 1.7f, 20.0f, 0, 3);
  const int reach = edgewise::filter_reach(spec);
  EXPECT_EQ(reach, 3 * edgewise::effective_radius(spec));
  for (const ImageShape& image : kAwkwardSizes)
    for (int zoom : {1, 2})
      for (int trial = 0; trial < 20; ++trial) {
        const View view = random_view(rng, zoom);
        const PreviewRegion region = edgewise_dialog::plan_region(view, image, whole(image), spec);
        SCOPED_TRACE(describe_shape(image) + " " + describe_region(view, region));
        EXPECT_EQ(region.scale, 1.0);
        EXPECT_EQ(region.magnify, zoom);
        EXPECT_EQ(region.scaled_width, image.width);
        EXPECT_EQ(region.scaled_height, image.height);
        EXPECT_TRUE(inside(region.visible, whole(image)));
        const int pane_w = (view.pane_width + zoom - 1) / zoom, pane_h = (view.pane_height + zoom - 1) / zoom;
        EXPECT_EQ(region.visible.width, std::min(image.width, pane_w));
        EXPECT_EQ(region.visible.height, std::min(image.height, pane_h));
        // Visible grown by the reach, clipped to the image, computed here.
        const int left = std::max(0, region.visible.x - reach), top = std::max(0, region.visible.y - reach);
        const Rect read{left, top, std::min(image.width, region.visible.right() + reach) - left,
                        std::min(image.height, region.visible.bottom() + reach) - top};
        EXPECT_TRUE(same(region.read, read));
        EXPECT_TRUE(same(region.affected, whole(image)));
        // The view's centre is on show, or the visible part is against the edge.
        const double middle_x = region.visible.x + region.visible.width / 2.0;
        EXPECT_TRUE(std::abs(middle_x - view.center_x * image.width) <= 1.0 || region.visible.x == 0 ||
                    region.visible.right() == image.width);
        if (image.width * zoom <= view.pane_width) {
          EXPECT_EQ(region.visible.x, 0);
          EXPECT_EQ(region.screen_x, (view.pane_width - image.width * zoom) / 2);
        } else {
          EXPECT_EQ(region.screen_x, 0);
        }
        if (image.height * zoom <= view.pane_height) {
          EXPECT_EQ(region.screen_y, (view.pane_height - image.height * zoom) / 2);
        } else {
          EXPECT_EQ(region.screen_y, 0);
        }
      }
}

TEST(PreviewRegion, FitShowsTheWholeImageScaledIntoThePane) {
  EW_SEEDED_RNG(rng);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 3.0f, 20.0f);
  for (const ImageShape& image : kAwkwardSizes)
    for (int trial = 0; trial < 20; ++trial) {
      View view = random_view(rng, 1.0);
      view.fit = true;
      if (trial == 0) view.pane_width = view.pane_height = 500;
      const PreviewRegion region = edgewise_dialog::plan_region(view, image, whole(image), spec);
      SCOPED_TRACE(describe_shape(image) + " " + describe_region(view, region));
      EXPECT_EQ(region.magnify, 1);
      EXPECT_TRUE(same(region.visible, {0, 0, region.scaled_width, region.scaled_height}));
      EXPECT_TRUE(same(region.read, region.visible));
      const bool larger = image.width > view.pane_width || image.height > view.pane_height;
      if (!larger) {
        EXPECT_EQ(region.scale, 1.0);
        EXPECT_TRUE(same(region.visible, whole(image)));
        continue;
      }
      EXPECT_LT(region.scale, 1.0);
      EXPECT_LE(region.scaled_width, view.pane_width);
      EXPECT_LE(region.scaled_height, view.pane_height);
      // One side fills the pane (to a pixel: the other side is floored).
      EXPECT_TRUE(region.scaled_width >= view.pane_width - 1 || region.scaled_height >= view.pane_height - 1);
      EXPECT_TRUE(inside(region.affected, region.visible));
    }
}

TEST(PreviewRegion, PanStaysInsideAndDragsBack) {
  EW_SEEDED_RNG(rng);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 2.0f, 20.0f);
  std::uniform_real_distribution<double> drag(-300.0, 300.0);
  for (const ImageShape& image : kAwkwardSizes)
    for (int zoom : {1, 2})
      for (int trial = 0; trial < 30; ++trial) {
        View view = random_view(rng, zoom);
        if (trial % 10 == 0) view.fit = true;
        const double dx = std::round(drag(rng)), dy = std::round(drag(rng));
        const View moved = edgewise_dialog::pan(view, image, dx, dy);
        const View back = edgewise_dialog::pan(moved, image, -dx, -dy);
        const PreviewRegion start = edgewise_dialog::plan_region(view, image, whole(image), spec);
        const PreviewRegion there = edgewise_dialog::plan_region(moved, image, whole(image), spec);
        const PreviewRegion again = edgewise_dialog::plan_region(back, image, whole(image), spec);
        SCOPED_TRACE(describe_shape(image) + " drag " + std::to_string(dx) + "," + std::to_string(dy) + " " +
                     describe_region(view, start));
        for (const View* v : {&moved, &back}) {
          EXPECT_TRUE(v->center_x >= 0.0 && v->center_x <= 1.0);
          EXPECT_TRUE(v->center_y >= 0.0 && v->center_y <= 1.0);
        }
        EXPECT_TRUE(inside(there.visible, whole(image)));
        EXPECT_TRUE(inside(again.visible, whole(image)));
        // Not at an edge: neither move was stopped by the clamp.
        const double zoom_used = view.fit ? edgewise_dialog::fit_zoom(view, image) : view.zoom;
        const bool free_x = std::abs(moved.center_x - (view.center_x - dx / (zoom_used * image.width))) < 1e-12;
        const bool free_y = std::abs(moved.center_y - (view.center_y - dy / (zoom_used * image.height))) < 1e-12;
        if (free_x && free_y) {
          EXPECT_TRUE(same(again.visible, start.visible)) << describe_region(back, again);
        }
      }
}

// ---------------------------------------------------------------- exactness

struct PreviewCase {
  std::string trace;
  std::vector<uint8_t> expected_original, expected_filtered;
  PreviewResult result;
};

// Renders `view` of `image` through `port` on the CPU and crops the engine's
// whole-image output (`engine`) to the region for comparison.
PreviewCase render_case(edgewise_dialog::ImagePort& port, const U8Image& image, const std::vector<uint8_t>& engine,
                        const FilterSpec& spec, const View& view) {
  PreviewCase c;
  const PreviewRegion region = edgewise_dialog::plan_region(view, image.shape, port.affected(), spec);
  c.trace =
      describe_shape(image.shape) + " " + format_arguments(cpu_settings(spec)) + " " + describe_region(view, region);
  const auto input = edgewise_dialog::read_preview_input(port, region);
  c.result = edgewise_dialog::render_preview(cpu_settings(spec), *input, {});
  c.expected_original = crop(image.samples, image.shape, region.visible);
  c.expected_filtered = crop(engine, image.shape, region.visible);
  return c;
}

TEST(PreviewExactness, MatchesTheWholeImageEngineRunBytes) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 3},   {1, 41, 3},  {43, 1, 3},   {113, 97, 3},
                              {61, 29, 3}, {17, 11, 3}, {127, 83, 3}, {5, 131, 3}};
  const Alpha alphas[] = {Alpha::opaque, Alpha::positive, Alpha::with_zeros};
  int index = 0, cases = 0, cropped = 0;
  for (int adaptive = 0; adaptive < 2; ++adaptive)
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels) {
        ImageShape shape = sizes[size_t(index) % std::size(sizes)];
        shape.channels = 1 + index % 4;
        U8Image image = random_u8_image(rng, shape, alphas[size_t(index) % std::size(alphas)]);
        ++index;
        const FilterSpec spec = random_spec(rng, mode, kernel, adaptive);
        const std::vector<uint8_t> engine = run_engine_u8(spec, image);
        BufferPort port(image.buffer());
        for (int zoom : {1, 1, 2, 2}) {
          const PreviewCase c = render_case(port, image, engine, spec, random_view(rng, zoom));
          SCOPED_TRACE(c.trace);
          ASSERT_EQ(c.result.error, "");
          ASSERT_EQ(c.result.width, c.result.region.visible.width);
          ASSERT_EQ(c.result.height, c.result.region.visible.height);
          ASSERT_EQ(c.result.channels, shape.channels);
          EXPECT_EQ(c.result.original, c.expected_original);
          ASSERT_EQ(c.result.filtered.size(), c.expected_filtered.size());
          const ByteDifference d =
              compare_bytes(c.expected_filtered, c.result.filtered, c.result.width, shape.channels);
          EXPECT_EQ(d.max_abs, 0) << d.describe();
          ++cases;
          cropped += !same(c.result.region.read, whole(shape));
        }
      }
  // Most views read only part of the image, so the halo is what is tested.
  EXPECT_GT(cropped, cases / 3) << cropped << " of " << cases << " views read less than the whole image";
}

// The comparison above notices a missing halo: the same render with read
// cut down to the visible pixels differs from the engine.
TEST(PreviewExactness, NegativeControlWithoutHalo) {
  EW_SEEDED_RNG(rng);
  U8Image image = random_u8_image(rng, {127, 83, 3}, Alpha::opaque);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 3.0f, 40.0f, 0, 2);
  const std::vector<uint8_t> engine = run_engine_u8(spec, image);
  BufferPort port(image.buffer());
  View view;
  view.pane_width = 60;
  view.pane_height = 40;
  PreviewRegion region = edgewise_dialog::plan_region(view, image.shape, whole(image.shape), spec);
  ASSERT_TRUE(inside(edgewise_dialog::grow(region.visible, 1), whole(image.shape)));  // interior
  region.read = region.visible;
  const auto input = edgewise_dialog::read_preview_input(port, region);
  const PreviewResult result = edgewise_dialog::render_preview(cpu_settings(spec), *input, {});
  const ByteDifference d =
      compare_bytes(crop(engine, image.shape, region.visible), result.filtered, result.width, result.channels);
  EXPECT_GT(d.max_abs, 0) << "no halo made no difference";
}

// GIMP's selection: a port whose affected() is a sub-rectangle.
class SelectionPort : public BufferPort {
 public:
  SelectionPort(const ImageBuffer& image, const Rect& selection) : BufferPort(image), selection_(selection) {}
  Rect affected() const override { return selection_; }

 private:
  Rect selection_;
};

TEST(PreviewExactness, OriginalOutsideTheSelection) {
  EW_SEEDED_RNG(rng);
  for (int trial = 0; trial < 8; ++trial) {
    U8Image image = random_u8_image(rng, {89 + trial * 7, 71, 1 + trial % 4});
    const FilterSpec spec = random_spec(rng, kModes[trial % 3], kKernels[trial % 4], trial % 2);
    const int x = int(rng() % 60), y = int(rng() % 50);
    const Rect selection{x, y, 1 + int(rng() % 40), 1 + int(rng() % 30)};
    SelectionPort port(image.buffer(), selection);
    const std::vector<uint8_t> engine = run_engine_u8(spec, image);
    View view = random_view(rng, 1 + trial % 2);  // on the selection's middle
    view.center_x = (selection.x + selection.width / 2.0) / image.shape.width;
    view.center_y = (selection.y + selection.height / 2.0) / image.shape.height;
    const PreviewCase c = render_case(port, image, engine, spec, view);
    SCOPED_TRACE(c.trace);
    ASSERT_EQ(c.result.error, "");
    const Rect& visible = c.result.region.visible;
    const int channels = image.shape.channels;
    for (int py = visible.y; py < visible.bottom(); ++py)
      for (int px = visible.x; px < visible.right(); ++px) {
        const bool selected =
            px >= selection.x && px < selection.right() && py >= selection.y && py < selection.bottom();
        const size_t at = (size_t(py - visible.y) * size_t(visible.width) + size_t(px - visible.x)) * size_t(channels);
        for (int ch = 0; ch < channels; ++ch) {
          const auto& expected = selected ? c.expected_filtered : c.expected_original;
          ASSERT_EQ(c.result.filtered[at + size_t(ch)], expected[at + size_t(ch)])
              << "at (" << px << "," << py << ") channel " << ch << (selected ? " inside" : " outside");
        }
      }
  }
}

// ---------------------------------------------------------------- below 100%

TEST(PreviewScaled, FitOnALargerImageRendersTheScaledImage) {
  EW_SEEDED_RNG(rng);
  for (int trial = 0; trial < 4; ++trial) {
    U8Image image = random_u8_image(rng, {301 + 10 * trial, 203, 1 + trial}, Alpha::positive);
    const FilterSpec spec = random_spec(rng, kModes[trial % 3], kKernels[trial], trial % 2);
    View view;
    view.fit = true;
    view.pane_width = 100 + int(rng() % 60);
    view.pane_height = 80 + int(rng() % 60);
    BufferPort port(image.buffer());
    const PreviewRegion region = edgewise_dialog::plan_region(view, image.shape, port.affected(), spec);
    SCOPED_TRACE(describe_shape(image.shape) + " " + format_arguments(cpu_settings(spec)) + " " +
                 describe_region(view, region));
    ASSERT_LT(region.scale, 1.0);
    const auto input = edgewise_dialog::read_preview_input(port, region);
    const PreviewResult result = edgewise_dialog::render_preview(cpu_settings(spec), *input, {});
    ASSERT_EQ(result.error, "");
    EXPECT_EQ(result.width, region.visible.width);
    EXPECT_EQ(result.height, region.visible.height);
    const size_t samples = size_t(region.visible.width) * size_t(region.visible.height) * size_t(image.shape.channels);
    EXPECT_EQ(result.filtered.size(), samples);
    EXPECT_EQ(result.original.size(), samples);
  }
}

TEST(PreviewScaled, SpecAtScale) {
  FilterSpec spec = make_spec(ColorMode::lab, RangeKernel::tukey, 6.0f, 15.0f, 9, 2);
  const auto at_one = spec_at_scale(spec, 1.0);
  EXPECT_EQ(format_arguments(cpu_settings(at_one)), format_arguments(cpu_settings(spec)));
  const BilateralParameters half = bilateral_of(spec_at_scale(spec, 0.5));
  EXPECT_FLOAT_EQ(half.sigma_s, 3.0f);
  EXPECT_EQ(half.radius, 5);  // lround(4.5)
  EXPECT_EQ(half.sigma_r, bilateral_of(spec).sigma_r);
  EXPECT_EQ(half.iterations, bilateral_of(spec).iterations);
  const FilterSpec tiny = spec_at_scale(spec, 0.01);
  EXPECT_FLOAT_EQ(bilateral_of(tiny).sigma_s, float(spec.filter().find_param("sigma-s")->hard_min));
  EXPECT_EQ(bilateral_of(tiny).radius, 1);
  EXPECT_EQ(validate(tiny), "");
  ASSERT_EQ(set_param(spec, "radius", 0.0), "");
  EXPECT_EQ(bilateral_of(spec_at_scale(spec, 0.01)).radius, 0);
  EXPECT_EQ(bilateral_of(spec_at_scale(spec, 0.25)).radius, 0);
}

TEST(PreviewBufferPort, ClampsAtScaleOneAndAveragesAtHalf) {
  EW_SEEDED_RNG(rng);
  for (int channels = 1; channels <= 4; ++channels) {
    U8Image image = random_u8_image(rng, {23, 14, channels});
    BufferPort port(image.buffer());
    const Rect rect{-3, -2, image.shape.width + 7, image.shape.height + 5};
    std::vector<float> read(size_t(rect.width) * size_t(rect.height) * size_t(channels));
    port.read(rect, 1.0, read.data());
    size_t at = 0;
    for (int y = rect.y; y < rect.bottom(); ++y)
      for (int x = rect.x; x < rect.right(); ++x)
        for (int c = 0; c < channels; ++c, ++at) {
          const int cx = std::clamp(x, 0, image.shape.width - 1), cy = std::clamp(y, 0, image.shape.height - 1);
          ASSERT_EQ(read[at], sample_to_float(image.at(cx, cy, c))) << "(" << x << "," << y << ") channel " << c;
        }

    const Rect half{0, 0, image.shape.width / 2, image.shape.height / 2};
    std::vector<float> scaled(size_t(half.width) * size_t(half.height) * size_t(channels));
    port.read(half, 0.5, scaled.data());
    at = 0;
    for (int y = 0; y < half.height; ++y)
      for (int x = 0; x < half.width; ++x)
        for (int c = 0; c < channels; ++c, ++at) {
          double mean = 0;
          for (int sy = 2 * y; sy < 2 * y + 2; ++sy)
            for (int sx = 2 * x; sx < 2 * x + 2; ++sx) mean += sample_to_float(image.at(sx, sy, c)) / 4.0;
          ASSERT_NEAR(scaled[at], mean, 1e-6) << "(" << x << "," << y << ") channel " << c;
        }
  }
}

// ---------------------------------------------------------------- the worker

// What a worker delivered, for waiting on from the test thread.
struct Deliveries {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<uint64_t> generations;
  std::vector<std::string> settings, errors;

  void add(PreviewResult&& result) {
    std::lock_guard<std::mutex> lock(mutex);
    generations.push_back(result.generation);
    settings.push_back(result.settings);
    errors.push_back(result.error);
    changed.notify_all();
  }
  // No time limit: a request that never arrives is a hang, which ctest's
  // TIMEOUT property ends (a guard against hangs, not a bound on speed).
  void wait_for_generation(uint64_t generation) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return std::find(generations.begin(), generations.end(), generation) != generations.end(); });
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mutex);
    return generations.size();
  }
};

// What the progress callback saw of one request: how many of its bands were
// done, the furthest fraction; and a gate that holds the request after its
// first band until the test opens it, so that what the test does next (a
// cancel, the worker's destruction) happens while the request runs, by
// order, not by how long anyone waited.
struct Bands {
  std::mutex mutex;
  std::condition_variable changed;
  uint64_t watched = 0;  // the generation counted; 0: none yet
  int done = 0;
  double furthest = 0;
  bool gate_open = false;
  void watch(uint64_t g) {
    std::lock_guard<std::mutex> lock(mutex);
    watched = g;
  }
  void note(uint64_t g, double fraction) {
    std::unique_lock<std::mutex> lock(mutex);
    if (g != watched) return;
    ++done;
    furthest = std::max(furthest, fraction);
    changed.notify_all();
    changed.wait(lock, [&] { return gate_open; });
  }
  void wait_for_first_band() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return done > 0; });
  }
  void open_gate() {
    std::lock_guard<std::mutex> lock(mutex);
    gate_open = true;
    changed.notify_all();
  }
};

std::shared_ptr<const PreviewInput> worker_input(std::mt19937_64& rng, int size) {
  U8Image image = random_u8_image(rng, {size, size, 3});
  BufferPort port(image.buffer());
  View view;
  view.pane_width = view.pane_height = size;
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 8.0f, 20.0f, 24);
  return edgewise_dialog::read_preview_input(port,
                                             edgewise_dialog::plan_region(view, image.shape, whole(image.shape), spec));
}

TEST(PreviewWorker, OnlyTheNewestOfManyRequestsIsDelivered) {
  EW_SEEDED_RNG(rng);
  const auto input = worker_input(rng, 600);
  Deliveries deliveries;
  PreviewWorker worker([&](PreviewResult&& result) { deliveries.add(std::move(result)); });
  constexpr int kRequests = 20;
  Settings last;
  uint64_t last_generation = 0;
  for (int i = 0; i < kRequests; ++i) {
    last = cpu_settings(make_spec(ColorMode::rgb, RangeKernel::gaussian, 4.0f, 10.0f + float(i), 10));
    last_generation = worker.submit(last, input);
  }
  EXPECT_EQ(worker.latest(), last_generation);
  deliveries.wait_for_generation(last_generation);
  std::lock_guard<std::mutex> lock(deliveries.mutex);
  EXPECT_EQ(deliveries.generations.back(), worker.latest());
  EXPECT_EQ(deliveries.settings.back(), format_arguments(last));
  EXPECT_EQ(deliveries.errors.back(), "");
  EXPECT_TRUE(std::is_sorted(deliveries.generations.begin(), deliveries.generations.end()));
  EXPECT_EQ(std::adjacent_find(deliveries.generations.begin(), deliveries.generations.end()),
            deliveries.generations.end());
  EXPECT_LT(deliveries.generations.size(), size_t(kRequests));
  std::cout << "[   INFO   ] " << deliveries.generations.size() << " of " << kRequests << " requests delivered"
            << std::endl;
}

// Counted, not timed: destroying the worker cancels the request it runs, so
// the request stops at its next band (it does not run to its last band) and
// delivers nothing. Its first band's progress holds it until the test is
// about to destroy the worker; from there the destructor's first act (under
// the worker's lock) outdates the request, while finishing it would take all
// its other bands.
TEST(PreviewWorker, DestroyingCancelsTheRunningRequest) {
  EW_SEEDED_RNG(rng);
  const auto input = worker_input(rng, 600);
  Deliveries deliveries;
  Bands bands;
  auto worker = std::make_unique<PreviewWorker>([&](PreviewResult&& result) { deliveries.add(std::move(result)); },
                                                [&](uint64_t generation, double f) { bands.note(generation, f); });
  // Radius 24 over 600x600, in bands of 24 rows.
  bands.watch(worker->latest() + 1);
  const uint64_t generation =
      worker->submit(cpu_settings(make_spec(ColorMode::rgb, RangeKernel::gaussian, 8.0f, 20.0f, 24)), input);
  ASSERT_EQ(bands.watched, generation);
  bands.wait_for_first_band();
  bands.open_gate();
  worker.reset();
  EXPECT_EQ(deliveries.count(), 0u) << "the destroyed worker delivered its request";
  std::lock_guard<std::mutex> lock(bands.mutex);
  EXPECT_GE(bands.done, 1);
  EXPECT_LT(bands.furthest, 1.0) << "the request ran to its last band (" << bands.done << " bands) after the destructor";
  std::cout << "[   INFO   ] the destroyed worker's request stopped after " << bands.done << " band(s), at "
            << bands.furthest * 100 << "%" << std::endl;
}

TEST(PreviewWorker, CancelDropsPendingAndRunningRequests) {
  EW_SEEDED_RNG(rng);
  const auto small = worker_input(rng, 48);
  const auto large = worker_input(rng, 600);
  Deliveries deliveries;
  Bands bands;
  // The first delivery holds the worker until the gate opens, so that the
  // next request stays pending meanwhile.
  std::mutex gate_mutex;
  std::condition_variable gate_changed;
  bool held = false, gate_open = false;
  PreviewWorker worker(
      [&](PreviewResult&& result) {
        std::unique_lock<std::mutex> lock(gate_mutex);
        held = true;
        gate_changed.notify_all();
        gate_changed.wait(lock, [&] { return gate_open; });
        deliveries.add(std::move(result));
      },
      [&](uint64_t generation, double f) { bands.note(generation, f); });
  const Settings settings = cpu_settings(make_spec(ColorMode::rgb, RangeKernel::gaussian, 1.0f, 20.0f));
  const uint64_t first = worker.submit(settings, small);
  {
    std::unique_lock<std::mutex> lock(gate_mutex);
    gate_changed.wait(lock, [&] { return held; });
  }
  const uint64_t pending = worker.submit(settings, small);  // pending behind the held delivery
  worker.cancel();
  {
    std::lock_guard<std::mutex> lock(gate_mutex);
    gate_open = true;
  }
  gate_changed.notify_all();
  deliveries.wait_for_generation(first);
  // Nothing is left: had the cancel kept the pending request, the worker
  // would run and deliver it before it is idle.
  worker.wait_until_idle();
  {
    std::lock_guard<std::mutex> lock(deliveries.mutex);
    ASSERT_EQ(deliveries.generations, std::vector<uint64_t>{first}) << "the pending request " << pending << " ran";
  }
  // A long request (many bands), cancelled while its first band's progress
  // holds it: it stops at its next band and delivers nothing.
  bands.watch(worker.latest() + 1);
  const uint64_t running =
      worker.submit(cpu_settings(make_spec(ColorMode::rgb, RangeKernel::gaussian, 8.0f, 20.0f, 24)), large);
  ASSERT_EQ(bands.watched, running);
  bands.wait_for_first_band();
  worker.cancel();
  bands.open_gate();
  worker.wait_until_idle();
  {
    std::lock_guard<std::mutex> lock(deliveries.mutex);
    EXPECT_EQ(deliveries.generations, std::vector<uint64_t>{first}) << "the cancelled running request delivered";
  }
  std::lock_guard<std::mutex> lock(bands.mutex);
  EXPECT_EQ(bands.done, 1) << "bands done after the cancel";
  EXPECT_LT(bands.furthest, 1.0);
}

// ---------------------------------------------------------------- CUDA

TEST(PreviewErrors, CudaWithoutADeviceReportsTheError) {
  const std::string why = gpu_unavailable_reason();
  if (why.empty()) GTEST_SKIP() << "a usable CUDA device exists, so backend cuda does not fail";
  EW_SEEDED_RNG(rng);
  U8Image image = random_u8_image(rng, {37, 29, 4});
  BufferPort port(image.buffer());
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 2.0f, 20.0f);
  View view;
  view.pane_width = view.pane_height = 64;
  const auto input = edgewise_dialog::read_preview_input(
      port, edgewise_dialog::plan_region(view, image.shape, whole(image.shape), spec));
  const PreviewResult result = edgewise_dialog::render_preview(settings_for(spec, "cuda"), *input, {});
  EXPECT_NE(result.error.find("CUDA"), std::string::npos) << result.error;
  EXPECT_TRUE(result.filtered.empty());
  EXPECT_EQ(result.original, image.samples);  // the visible part is the whole image
}

TEST(PreviewCuda, MatchesTheCpuRenderWithinOneCodeValue) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  int worst = 0;
  std::string worst_case;
  for (int trial = 0; trial < 12; ++trial) {
    const ColorMode mode = trial < 4 ? ColorMode::lab : kModes[trial % 3];
    U8Image image = random_u8_image(rng, {151 + trial, 97, 3 + trial % 2}, Alpha::positive);
    const FilterSpec spec = random_spec(rng, mode, kKernels[trial % 4], trial % 2 == 0);
    BufferPort port(image.buffer());
    const View view = random_view(rng, 1 + trial % 2);
    const PreviewRegion region = edgewise_dialog::plan_region(view, image.shape, port.affected(), spec);
    const auto input = edgewise_dialog::read_preview_input(port, region);
    const std::string trace = describe_shape(image.shape) + " " + format_arguments(settings_for(spec, "cuda")) + " " +
                              describe_region(view, region);
    SCOPED_TRACE(trace);
    const PreviewResult cpu = edgewise_dialog::render_preview(cpu_settings(spec), *input, {});
    const PreviewResult gpu = edgewise_dialog::render_preview(settings_for(spec, "cuda"), *input, {});
    ASSERT_EQ(gpu.error, "");
    EXPECT_EQ(gpu.backend.find("cpu"), std::string::npos) << gpu.backend;
    ASSERT_EQ(gpu.filtered.size(), cpu.filtered.size());
    const ByteDifference d = compare_bytes(cpu.filtered, gpu.filtered, cpu.width, cpu.channels);
    EXPECT_LE(d.max_abs, 1) << d.describe();
    if (d.max_abs > worst) worst = d.max_abs, worst_case = trace + ": " + d.describe();
  }
  std::cout << "[   INFO   ] largest CUDA vs CPU difference: " << worst << " code values"
            << (worst_case.empty() ? std::string() : " (" + worst_case + ")") << std::endl;
}

}  // namespace
