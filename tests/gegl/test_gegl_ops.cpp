// The GEGL operations inside a GEGL process, as GIMP runs them: registered
// here from builtin_registry() as the module registers them, and a made-up
// filter beside them (tests/registry/smudge_filter.h), so a filter nothing
// in gegl/ names becomes an operation too. Checked: every filter is an
// operation with its parameters as properties (ranges, defaults, choices,
// auto as -1) and GIMP's keys; a render, whole or in tiles of any size, is
// the engine's result on the whole input, at the input's extent; a render
// is kept until a property or the input changes, and automatic values follow
// the changed input; at auto a selection gets the whole input's pixels and
// the whole input is read once per input; every input format GEGL may hand over, grey included;
// odd regions (1x1, outside the input, empty, an input without bounds); and
// failures (the GPU, host memory, a bad spec, an absent backend) leave the
// process alive and the output defined, with a warning. The module itself
// is loaded by the gegl command in tests/gegl/run_gegl_tool.sh.
#include <gegl-plugin.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "op_properties.h"
#include "operation.h"
#include "region_support.h"
#include "registry/smudge_filter.h"
#include "test_support.h"

// LeakSanitizer, in the sanitizer build (read only where it is linked):
// babl keeps allocations past babl_exit() (install/test.sh suppresses it
// too), and GEGL's gegl-common module leaks 8 bytes in a constructor as it
// is loaded (gegl_init and gegl_exit alone show it) and is then unloaded,
// so only the loader's frame (_dl_init) names it, and only in a full stack.
extern "C" const char* __lsan_default_suppressions() { return "leak:libbabl\nleak:_dl_init\n"; }
extern "C" const char* __lsan_default_options() { return "fast_unwind_on_malloc=0"; }

namespace edgewise_test {
namespace {

using edgewise::FilterInfo;
using edgewise::NoiseEstimate;
using edgewise::ParamInfo;

// The operations' log (domain Edgewise): a debug line per process() call,
// warnings for failures, and apart from them the noise reading's notices:
// that the learned reading is unsure (these small test images hold too few
// 64x64 tiles) and that auto fell back on the rough noise rule (random test
// images have no flat blocks).
struct Log {
  std::vector<std::string> debug, warnings, noise_notices;
  int filtered() const { return count(" filtered "); }
  // The operation's readings of its whole input for the noise (input_noise).
  int whole_input_reads() const { return count(": read the whole input "); }
  int count(const char* what) const {
    int found = 0;
    for (const std::string& line : debug) found += line.find(what) != std::string::npos;
    return found;
  }
  void clear() { debug.clear(), warnings.clear(), noise_notices.clear(); }
};
Log& log() {
  static Log entries;
  return entries;
}

void on_log(const gchar*, GLogLevelFlags level, const gchar* message, gpointer) {
  const std::string text = message;
  const bool noise_notice = text.find("the noise could not be measured") != std::string::npos ||
                            text.find("the learned noise reading is unsure") != std::string::npos;
  ((level & G_LOG_LEVEL_DEBUG) ? log().debug : noise_notice ? log().noise_notices : log().warnings).push_back(message);
}

// A GTypeModule that stays loaded: the test registers the operations into
// it as gegl_module_register does.
gboolean module_load(GTypeModule*) { return TRUE; }
void module_unload(GTypeModule*) {}
void module_class_init(gpointer klass, gpointer) {
  G_TYPE_MODULE_CLASS(klass)->load = module_load;
  G_TYPE_MODULE_CLASS(klass)->unload = module_unload;
}

class GeglEnvironment : public testing::Environment {
 public:
  void SetUp() override {
    gegl_init(nullptr, nullptr);
    g_log_set_handler("Edgewise", GLogLevelFlags(G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE), on_log,
                      nullptr);
    const GType type = g_type_register_static_simple(G_TYPE_TYPE_MODULE, "EdgewiseTestModule", sizeof(GTypeModuleClass),
                                                     module_class_init, sizeof(GTypeModule), nullptr, GTypeFlags(0));
    GTypeModule* module = G_TYPE_MODULE(g_object_new(type, nullptr));
    g_type_module_use(module);
    edgewise_gegl::register_enum_types(module, edgewise::builtin_registry(), edgewise::installed_backends());
    edgewise_gegl::register_enum_types(module, smudge_registry(), edgewise::installed_backends());
    for (const FilterInfo* filter : edgewise::builtin_registry().filters())
      ASSERT_NE(edgewise_gegl::register_operation(module, *filter), 0u) << filter->name;
    ASSERT_NE(edgewise_gegl::register_operation(module, smudge_filter()), 0u);
  }
  void TearDown() override { gegl_exit(); }
};
const testing::Environment* const kEnvironment = testing::AddGlobalTestEnvironment(new GeglEnvironment);

// Every builtin filter, then the made-up one.
std::vector<const FilterInfo*> all_filters() {
  std::vector<const FilterInfo*> filters = edgewise::builtin_registry().filters();
  filters.push_back(&smudge_filter());
  return filters;
}

const Babl* working_format(int channels) {
  static const char* const names[] = {"Y' float", "Y'A float", "R'G'B' float", "R'G'B'A float"};
  return babl_format(names[channels - 1]);
}

// A GeglBuffer of `format` at (x, y) holding `image` (R'G'B'(A) or Y'(A) floats).
GeglBuffer* buffer_of(const FloatImage& image, const Babl* format, int x = 0, int y = 0) {
  const GeglRectangle extent{x, y, image.shape().width, image.shape().height};
  GeglBuffer* buffer = gegl_buffer_new(&extent, format);
  gegl_buffer_set(buffer, &extent, 0, working_format(image.shape().channels), image.pixels().data(),
                  GEGL_AUTO_ROWSTRIDE);
  return buffer;
}

FloatImage read_buffer(GeglBuffer* buffer, int channels) {
  const GeglRectangle* extent = gegl_buffer_get_extent(buffer);
  FloatImage image({extent->width, extent->height, channels});
  gegl_buffer_get(buffer, extent, 1.0, working_format(channels), image.pixels().data(), GEGL_AUTO_ROWSTRIDE,
                  GEGL_ABYSS_NONE);
  return image;
}

// buffer-source -> the filter's operation, its properties from `spec`.
class Graph {
 public:
  // `computed`: the input passes through gegl:multiply by 1 first (in
  // linear RGBA, so not to the bit), an operation GEGL computes only where
  // it is asked to (a buffer source has every pixel anyway), so what the
  // operation requires must be right.
  Graph(GeglBuffer* input, const FilterSpec& spec, const std::string& backend = "auto", bool computed = false) {
    graph_ = gegl_node_new();
    source_ = gegl_node_new_child(graph_, "operation", "gegl:buffer-source", "buffer", input, nullptr);
    op_ = gegl_node_new_child(graph_, "operation", edgewise_gegl::operation_name(spec.filter()).c_str(), nullptr);
    feed_ = source_;
    if (computed) {
      feed_ = gegl_node_new_child(graph_, "operation", "gegl:multiply", "value", 1.0, nullptr);
      gegl_node_link(source_, feed_);
    }
    gegl_node_link(feed_, op_);
    set(spec);
    const std::vector<std::string> choices = edgewise::backend_choices(edgewise::installed_backends());
    for (size_t i = 0; i < choices.size(); ++i)
      if (choices[i] == backend) gegl_node_set(op_, "backend", gint(i), nullptr);
  }
  ~Graph() { g_object_unref(graph_); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  void set(const FilterSpec& spec) {
    GObjectClass* klass = G_OBJECT_GET_CLASS(gegl_node_get_gegl_operation(op_));
    for (const ParamInfo* param : spec.filter().params()) {
      GParamSpec* pspec = g_object_class_find_property(klass, param->cli_flag);
      ASSERT_NE(pspec, nullptr) << param->cli_flag;
      GValue value = G_VALUE_INIT;
      g_value_init(&value, G_PARAM_SPEC_VALUE_TYPE(pspec));
      edgewise_gegl::set_gvalue(*param, spec.get(param->cli_flag), &value);
      gegl_node_set_property(op_, param->cli_flag, &value);
      g_value_unset(&value);
    }
  }
  GeglNode* op() const { return op_; }

  // What the operation is given, in the working format, over its whole extent.
  FloatImage input(int channels) const {
    const GeglRectangle box = gegl_node_get_bounding_box(feed_);
    FloatImage image({box.width, box.height, channels});
    gegl_node_blit(feed_, 1.0, &box, working_format(channels), image.pixels().data(), GEGL_AUTO_ROWSTRIDE,
                   GEGL_BLIT_DEFAULT);
    return image;
  }

  // The output over `rect` in the working format, blitted in tiles of
  // `tile` pixels (0: at once).
  FloatImage render(const GeglRectangle& rect, int channels, int tile = 0) const {
    FloatImage image({rect.width, rect.height, channels});
    const int step_x = tile ? tile : std::max(1, rect.width), step_y = tile ? tile : std::max(1, rect.height);
    for (int y = 0; y < rect.height; y += step_y)
      for (int x = 0; x < rect.width; x += step_x) {
        const GeglRectangle part{rect.x + x, rect.y + y, std::min(step_x, rect.width - x),
                                 std::min(step_y, rect.height - y)};
        std::vector<float> pixels(size_t(part.width) * size_t(part.height) * size_t(channels));
        gegl_node_blit(op_, 1.0, &part, working_format(channels), pixels.data(), GEGL_AUTO_ROWSTRIDE,
                       GEGL_BLIT_DEFAULT);
        for (int row = 0; row < part.height; ++row)
          std::copy_n(&pixels[size_t(row) * size_t(part.width) * size_t(channels)],
                      size_t(part.width) * size_t(channels), &image.at(x, y + row, 0));
      }
    return image;
  }

 private:
  GeglNode* graph_ = nullptr;
  GeglNode* source_ = nullptr;
  GeglNode* op_ = nullptr;
  GeglNode* feed_ = nullptr;
};

// The engine on the whole image, its noise measured on the whole image.
FloatImage engine_result(const FilterSpec& spec, const FloatImage& image) {
  const NoiseEstimate noise = edgewise::estimate_noise(const_cast<FloatImage&>(image), image.shape());
  edgewise::RunOptions options;
  options.noise = &noise;
  return run_cpu(spec, image, options);
}

double tolerance(const FilterSpec& spec) { return std::string(spec.filter().name) == "fourier" ? 2e-5 : 0.0; }

double max_difference_all(const FloatImage& a, const FloatImage& b) {
  return max_difference_in(a, b, {0, 0, a.shape().width, a.shape().height});
}

bool all_finite(const FloatImage& image) {
  for (float v : image.pixels())
    if (!std::isfinite(v)) return false;
  return true;
}

// --- the operations and their properties

TEST(GeglOps, EveryFilterIsAnOperationWithItsParameters) {
  for (const FilterInfo* filter : all_filters()) {
    const std::string name = edgewise_gegl::operation_name(*filter);
    SCOPED_TRACE(name);
    ASSERT_TRUE(gegl_has_operation(name.c_str()));
    EXPECT_STREQ(gegl_operation_get_key(name.c_str(), "title"), filter->title);
    EXPECT_STREQ(gegl_operation_get_key(name.c_str(), "categories"), "enhance:noise-reduction");
    EXPECT_STREQ(gegl_operation_get_key(name.c_str(), "description"), filter->pdb_blurb);
    EXPECT_STREQ(gegl_operation_get_key(name.c_str(), "gimp:menu-path"), "<Image>/Filters/Enhance/Noise");
    std::string label = filter->menu_label;
    label.erase(std::remove(label.begin(), label.end(), '_'), label.end());
    EXPECT_EQ(gegl_operation_get_key(name.c_str(), "gimp:menu-label"), label);
    guint count = 0;
    GParamSpec** pspecs = gegl_operation_list_properties(name.c_str(), &count);
    EXPECT_EQ(count, filter->params().size() + 1);  // and the backend
    g_free(pspecs);
    const FilterSpec defaults(*filter);
    for (const ParamInfo* param : filter->params()) {
      SCOPED_TRACE(param->cli_flag);
      GParamSpec* pspec = gegl_operation_find_property(name.c_str(), param->cli_flag);
      ASSERT_NE(pspec, nullptr);
      std::string nick = param->mnemonic_label;
      nick.erase(std::remove(nick.begin(), nick.end(), '_'), nick.end());
      EXPECT_EQ(g_param_spec_get_nick(pspec), nick);
      const std::string blurb = g_param_spec_get_blurb(pspec);
      if (param->is_enum()) {
        ASSERT_TRUE(G_IS_PARAM_SPEC_ENUM(pspec));
        GEnumClass* choices = G_PARAM_SPEC_ENUM(pspec)->enum_class;
        ASSERT_EQ(choices->n_values, param->tokens.size());
        for (size_t i = 0; i < param->tokens.size(); ++i) EXPECT_EQ(choices->values[i].value_nick, param->tokens[i]);
        EXPECT_EQ(G_PARAM_SPEC_ENUM(pspec)->default_value, gint(defaults.get(param->cli_flag)));
      } else if (param->is_integer()) {
        ASSERT_TRUE(GEGL_IS_PARAM_SPEC_INT(pspec));
        EXPECT_EQ(G_PARAM_SPEC_INT(pspec)->minimum, gint(param->hard_min));
        EXPECT_EQ(G_PARAM_SPEC_INT(pspec)->maximum, gint(param->hard_max));
        EXPECT_EQ(G_PARAM_SPEC_INT(pspec)->default_value, gint(defaults.get(param->cli_flag)));
        EXPECT_EQ(GEGL_PARAM_SPEC_INT(pspec)->ui_minimum, gint(param->slider_min));
        EXPECT_EQ(GEGL_PARAM_SPEC_INT(pspec)->ui_maximum, gint(param->slider_max));
        if (param->auto_meaning[0]) {
          EXPECT_NE(blurb.find(std::string("0 = auto: ") + param->auto_meaning), std::string::npos);
        }
      } else {
        ASSERT_TRUE(GEGL_IS_PARAM_SPEC_DOUBLE(pspec));
        const double automatic = param->takes_noise_auto() ? edgewise::kNoiseAuto : param->hard_min;
        EXPECT_EQ(G_PARAM_SPEC_DOUBLE(pspec)->minimum, automatic);
        EXPECT_EQ(G_PARAM_SPEC_DOUBLE(pspec)->maximum, param->hard_max);
        EXPECT_FLOAT_EQ(float(G_PARAM_SPEC_DOUBLE(pspec)->default_value), float(defaults.get(param->cli_flag)));
        EXPECT_EQ(GEGL_PARAM_SPEC_DOUBLE(pspec)->ui_minimum,
                  param->takes_noise_auto() ? edgewise::kNoiseAuto : param->slider_min);
        EXPECT_EQ(GEGL_PARAM_SPEC_DOUBLE(pspec)->ui_maximum, param->slider_max);
        if (param->takes_noise_auto()) {
          EXPECT_NE(blurb.find("-1 (any negative value) = auto"), std::string::npos);
        }
      }
      if (param->help[0]) {
        EXPECT_NE(blurb.find(param->help + 1), std::string::npos) << blurb;
      }
    }
    GParamSpec* backend = gegl_operation_find_property(name.c_str(), "backend");
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(G_PARAM_SPEC_ENUM(backend)->enum_class->n_values,
              edgewise::backend_choices(edgewise::installed_backends()).size());
  }
}

// --- pixels

// Every filter (defaults, then drawn values) on RGBA and grey inputs at an
// offset origin: the output's extent is the input's, and a render at once
// or in tiles of 64 and 23 pixels (these from a computed input) is the
// engine's whole-image result.
TEST(GeglOps, RendersInAnyTilesAreTheEngineResult) {
  EW_SEEDED_RNG(rng);
  for (const FilterInfo* filter : all_filters())
    for (const ImageShape shape : {ImageShape{71, 59, 4}, ImageShape{45, 37, 1}}) {
      const FloatImage image = random_image(rng, shape, {true, Alpha::with_zeros});
      GeglBuffer* input = buffer_of(image, working_format(shape.channels), -13, 7);
      for (int draw = 0; draw < 2; ++draw) {
        const FilterSpec spec = draw == 0 ? FilterSpec(*filter) : random_spec(rng, *filter);
        SCOPED_TRACE(describe(spec, shape));
        const FloatImage expected = engine_result(spec, image);
        for (const int tile : {0, 64, 23}) {
          if (draw > 0 && tile == 64) continue;  // the drawn specs' time goes to the odd tiles
          Graph graph(input, spec, "auto", tile == 23);
          const GeglRectangle box = gegl_node_get_bounding_box(graph.op());
          EXPECT_TRUE(box.x == -13 && box.y == 7 && box.width == shape.width && box.height == shape.height);
          const FloatImage got = graph.render(box, shape.channels, tile);
          const FloatImage wanted = tile == 23 ? engine_result(spec, graph.input(shape.channels)) : expected;
          EXPECT_LE(max_difference_all(got, wanted), tolerance(spec)) << "tile " << tile;
        }
      }
      g_object_unref(input);
    }
  EXPECT_TRUE(log().warnings.empty()) << log().warnings.front();
}

// The formats GEGL may hand over (8/16-bit, half, float, double; linear and
// perceptual; grey, premultiplied, CMYK): the operation works on what GEGL
// converts them to, R'G'B'(A) or Y'(A) floats, as the engine would.
TEST(GeglOps, EveryInputFormat) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {71, 53, 4}, {true, Alpha::positive});
  const FilterSpec spec;  // the default filter, at auto
  for (const char* name :
       {"RGBA u8", "R'G'B'A u8", "R'G'B' u16", "RGB float", "R'G'B'A half", "RGBA double", "RaGaBaA float",
        "R'aG'aB'aA float", "Y' u8", "Y'A float", "YA u16", "Y u32", "CMYK float", "CMYKA u16"}) {
    SCOPED_TRACE(name);
    const Babl* format = babl_format(name);
    GeglBuffer* input = buffer_of(image, format);
    const bool grey = babl_get_model_flags(babl_format_get_model(format)) & BABL_MODEL_FLAG_GRAY;
    const int channels = (grey ? 1 : 3) + (babl_format_has_alpha(format) ? 1 : 0);
    const FloatImage converted = read_buffer(input, channels);
    Graph graph(input, spec);
    const FloatImage got = graph.render(*gegl_buffer_get_extent(input), channels, 32);
    EXPECT_TRUE(all_finite(got));
    EXPECT_LE(max_difference_all(got, engine_result(spec, converted)), 0.0);
    g_object_unref(input);
  }
}

// --- caching and invalidation

TEST(GeglOps, KeptUntilAPropertyOrTheInputChanges) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{80, 60, 3};
  FloatImage image = random_image(rng, shape);
  GeglBuffer* input = buffer_of(image, working_format(3));
  const FilterSpec spec;  // sigma-r at auto: the output follows the input's noise
  ASSERT_TRUE(edgewise::needs_noise(spec));
  Graph graph(input, spec);
  const GeglRectangle box{0, 0, shape.width, shape.height};
  log().clear();
  const FloatImage first = graph.render(box, 3);
  EXPECT_GT(log().filtered(), 0);
  log().clear();
  EXPECT_EQ(max_difference_all(graph.render(box, 3), first), 0.0);
  EXPECT_EQ(log().filtered(), 0) << "an unchanged graph was filtered again";

  // A property: filtered again, with the new value.
  FilterSpec wider = spec;
  ASSERT_EQ(edgewise::set_param(wider, "sigma-s", 3.0), "");
  graph.set(wider);
  log().clear();
  EXPECT_EQ(max_difference_all(graph.render(box, 3), engine_result(wider, image)), 0.0);
  EXPECT_GT(log().filtered(), 0);

  // The input: more noise in one corner; the automatic sigma-r follows the
  // whole changed input, everywhere.
  std::normal_distribution<float> noise(0.0f, 0.2f);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x)
      for (int c = 0; c < 3; ++c) image.at(x, y, c) = std::clamp(image.at(x, y, c) + noise(rng), 0.0f, 1.0f);
  const GeglRectangle corner{0, 0, 40, 30};
  FloatImage patch({40, 30, 3});
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x)
      for (int c = 0; c < 3; ++c) patch.at(x, y, c) = image.at(x, y, c);
  gegl_buffer_set(input, &corner, 0, working_format(3), patch.pixels().data(), GEGL_AUTO_ROWSTRIDE);
  log().clear();
  const FloatImage changed = graph.render(box, 3);
  EXPECT_GT(log().filtered(), 0);
  EXPECT_EQ(max_difference_all(changed, engine_result(wider, image)), 0.0);
  g_object_unref(input);
}

// A selection (GIMP's filter tools ask for its bounding box only) at auto:
// the noise is the whole input's, so the selection's pixels are those of
// the whole layer filtered; the whole input is read once per input however
// many tiles are processed, and read again only when it changes. The input
// is computed (gegl:multiply), so GEGL holds only what was asked for and
// the reading must come from the feeding node, not the tile's buffer.
TEST(GeglOps, ASelectionIsTheWholeInputsPixelsAndTheInputIsReadOnce) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{97, 83, 3};
  FloatImage image = random_image(rng, shape);
  const GeglRectangle box{0, 0, shape.width, shape.height}, selection{29, 17, 41, 33};
  for (const FilterInfo* filter : all_filters()) {
    const FilterSpec spec(*filter);
    if (!edgewise::needs_noise(spec)) continue;
    SCOPED_TRACE(filter->name);
    GeglBuffer* input = buffer_of(image, working_format(3));
    Graph whole(input, spec, "auto", true);
    log().clear();
    const FloatImage whole_output = whole.render(box, 3, 32);
    EXPECT_GE(log().filtered(), 9) << "in tiles";
    EXPECT_EQ(log().whole_input_reads(), 1);
    EXPECT_LE(max_difference_all(whole_output, engine_result(spec, whole.input(3))), tolerance(spec));

    Graph selected(input, spec, "auto", true);
    log().clear();
    const FloatImage part = selected.render(selection, 3, 16);
    EXPECT_GE(log().filtered(), 6) << "in tiles";
    EXPECT_EQ(log().whole_input_reads(), 1);
    double worst = 0.0;
    for (int y = 0; y < selection.height; ++y)
      for (int x = 0; x < selection.width; ++x)
        for (int c = 0; c < 3; ++c)
          worst = std::max(worst,
                           double(std::fabs(part.at(x, y, c) - whole_output.at(selection.x + x, selection.y + y, c))));
    EXPECT_LE(worst, tolerance(spec)) << "the selection against the whole layer";

    // The input changes: read again, once.
    const GeglRectangle corner{0, 0, 20, 20};
    std::vector<float> flat(size_t(20 * 20 * 3), 0.5f);
    gegl_buffer_set(input, &corner, 0, working_format(3), flat.data(), GEGL_AUTO_ROWSTRIDE);
    log().clear();
    selected.render(selection, 3, 16);
    EXPECT_EQ(log().whole_input_reads(), 1) << "after the input changed";
    g_object_unref(input);
  }
  EXPECT_TRUE(log().warnings.empty()) << log().warnings.front();
}

// --- odd regions

TEST(GeglOps, OddRegions) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{50, 40, 4};
  const FloatImage image = random_image(rng, shape);
  GeglBuffer* input = buffer_of(image, working_format(4));
  for (const FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec(*filter);
    SCOPED_TRACE(filter->name);
    const FloatImage whole = engine_result(spec, image);
    {
      Graph graph(input, spec);  // one pixel
      const FloatImage pixel = graph.render({17, 23, 1, 1}, 4);
      for (int c = 0; c < 4; ++c) EXPECT_LE(std::fabs(pixel.at(0, 0, c) - whole.at(17, 23, c)), tolerance(spec));
    }
    {
      Graph graph(input, spec);  // half outside: zeros there, the filter inside
      const FloatImage part = graph.render({40, 30, 20, 20}, 4);
      for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 20; ++x)
          for (int c = 0; c < 4; ++c) {
            const float want = (x < 10 && y < 10) ? whole.at(40 + x, 30 + y, c) : 0.0f;
            EXPECT_LE(std::fabs(part.at(x, y, c) - want), tolerance(spec)) << x << "," << y;
          }
    }
    {
      Graph graph(input, spec);  // all outside, and empty: nothing filtered
      log().clear();
      const FloatImage outside = graph.render({500, -300, 16, 16}, 4);
      for (float v : outside.pixels()) EXPECT_EQ(v, 0.0f);
      graph.render({10, 10, 0, 0}, 4);
      EXPECT_EQ(log().filtered(), 0);
    }
  }
  g_object_unref(input);

  // An input of no pixels, and one without bounds (gegl:color): no
  // filtering, the input's pixels, a warning for the second.
  const GeglRectangle nothing{0, 0, 0, 0};
  GeglBuffer* empty = gegl_buffer_new(&nothing, working_format(4));
  {
    Graph graph(empty, FilterSpec());
    EXPECT_TRUE(gegl_rectangle_is_empty(GEGL_RECTANGLE(0, 0, 0, 0)));
    const GeglRectangle box = gegl_node_get_bounding_box(graph.op());
    EXPECT_TRUE(gegl_rectangle_is_empty(&box));
    graph.render({0, 0, 8, 8}, 4);
  }
  g_object_unref(empty);
  GeglNode* graph = gegl_node_new();
  GeglColor* grey = gegl_color_new("rgb(0.5, 0.5, 0.5)");
  GeglNode* color = gegl_node_new_child(graph, "operation", "gegl:color", "value", grey, nullptr);
  GeglNode* op = gegl_node_new_child(graph, "operation", "edgewise:bilateral", nullptr);
  gegl_node_link(color, op);
  log().clear();
  std::vector<float> pixels(16 * 16 * 4);
  const GeglRectangle rect{100, 100, 16, 16};
  gegl_node_blit(op, 1.0, &rect, babl_format("RGBA float"), pixels.data(), GEGL_AUTO_ROWSTRIDE, GEGL_BLIT_DEFAULT);
  for (size_t i = 0; i < pixels.size(); i += 4) EXPECT_NEAR(pixels[i], 0.5f, 1e-6);
  ASSERT_FALSE(log().warnings.empty());
  EXPECT_NE(log().warnings.front().find("without bounds"), std::string::npos) << log().warnings.front();
  g_object_unref(grey);
  g_object_unref(graph);
}

// --- failures

// Each failure case: the render completes, the output is the input or the
// filter's result, and the reason is logged once.
struct FailureCase {
  const char* what;
  const char* variable;  // environment test hook, or null
  const char* value;
  const char* backend;
  bool filtered;        // else the input passes through
  const char* warning;  // a piece of the expected warning
};

TEST(GeglOps, FailuresLeaveTheOutputDefined) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{64, 150, 4};
  const FloatImage image = random_image(rng, shape);
  GeglBuffer* input = buffer_of(image, working_format(4));
  std::string why_not;
  const bool cuda = edgewise::find_backend(edgewise::installed_backends(), "cuda")->usable(why_not);
  const std::vector<FailureCase> cases = {
      {"the GPU fails part-way", "EDGEWISE_INJECT_GPU_FAILURE", "launch", "auto", true, "rerunning on the"},
      {"the GPU runs out of memory", "EDGEWISE_INJECT_GPU_FAILURE", "oom", "auto", true, "rerunning on the"},
      {"host memory runs out", "EDGEWISE_INJECT_HOST_FAILURE", "1", "auto", false, "out of memory"},
      {"host memory runs out on the CPU", "EDGEWISE_INJECT_HOST_FAILURE", "1", "cpu", false, "out of memory"},
  };
  for (const FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec(*filter);
    const FloatImage filtered = engine_result(spec, image);
    for (const FailureCase& failure : cases) {
      SCOPED_TRACE(std::string(filter->name) + ": " + failure.what);
      g_setenv(failure.variable, failure.value, TRUE);
      log().clear();
      {
        Graph graph(input, spec, failure.backend);
        const FloatImage got = graph.render({0, 0, shape.width, shape.height}, 4, 64);
        EXPECT_LE(max_difference_all(got, failure.filtered ? filtered : image), failure.filtered ? tolerance(spec) : 0);
      }
      g_unsetenv(failure.variable);
      ASSERT_FALSE(log().warnings.empty());
      EXPECT_NE(log().warnings.front().find(failure.warning), std::string::npos) << log().warnings.front();
      EXPECT_EQ(log().warnings.size(), 1u) << "once per operation, not per tile";
      EXPECT_LE(log().noise_notices.size(), 1u) << "once per operation, not per tile";
    }
  }
  // A backend named that cannot run here, and a spec the filter refuses.
  if (!cuda) {
    log().clear();
    Graph graph(input, FilterSpec(), "cuda");
    EXPECT_EQ(max_difference_all(graph.render({0, 0, shape.width, shape.height}, 4), image), 0.0);
    ASSERT_FALSE(log().warnings.empty());
    EXPECT_NE(log().warnings.front().find("CUDA backend requested but unavailable"), std::string::npos);
  }
  if (const FilterInfo* fourier = edgewise::builtin_registry().find("fourier")) {
    FilterSpec refused(*fourier);
    ASSERT_EQ(edgewise::set_param(refused, "mode", "rgb"), "");
    log().clear();
    Graph graph(input, refused);
    EXPECT_EQ(max_difference_all(graph.render({0, 0, shape.width, shape.height}, 4), image), 0.0);
    ASSERT_FALSE(log().warnings.empty());
    EXPECT_NE(log().warnings.front().find(edgewise::validate(refused)), std::string::npos);
  }
  g_object_unref(input);
}

// --- GEGL's threads and mipmap levels

TEST(GeglOps, ThreadCountDoesNotChangeOutput) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {96, 64, 4});
  GeglBuffer* input = buffer_of(image, working_format(4));
  for (const FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec(*filter);
    std::vector<FloatImage> outputs;
    gint before = 0;
    g_object_get(gegl_config(), "threads", &before, nullptr);
    for (const int threads : {1, 3}) {
      g_object_set(gegl_config(), "threads", threads, nullptr);
      Graph graph(input, spec);
      outputs.push_back(graph.render({0, 0, 96, 64}, 4, 50));
    }
    g_object_set(gegl_config(), "threads", before, nullptr);
    EXPECT_EQ(max_difference_all(outputs[0], outputs[1]), 0.0) << filter->name;
  }
  g_object_unref(input);
}

// A zoomed-out preview with mipmap rendering on: the half-size image GEGL
// hands over filtered as the dialog's preview filters a reduced image,
// with lengths scaled (spec_at_scale), on its own noise.
TEST(GeglOps, MipmapLevels) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {128, 96, 4});
  GeglBuffer* input = buffer_of(image, working_format(4));
  const GeglRectangle rect{0, 0, 64, 48};
  FloatImage half({64, 48, 4});
  gegl_buffer_get(input, &rect, 0.5, working_format(4), half.pixels().data(), GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_set(gegl_config(), "mipmap-rendering", TRUE, nullptr);
  for (const FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const FilterSpec spec(*filter);
    Graph graph(input, spec);
    FloatImage got({64, 48, 4});
    log().clear();
    gegl_node_blit(graph.op(), 0.5, &rect, working_format(4), got.pixels().data(), GEGL_AUTO_ROWSTRIDE,
                   GEGL_BLIT_DEFAULT);
    ASSERT_EQ(log().filtered(), 1) << filter->name;
    EXPECT_EQ(log().whole_input_reads(), 1) << filter->name;
    for (const std::string& line : log().debug)  // the tile and the noise reading, both of the reduced image
      EXPECT_NE(line.find("level 1)"), std::string::npos) << line;
    EXPECT_LE(max_difference_all(got, engine_result(edgewise::spec_at_scale(spec, 0.5), half)), tolerance(spec))
        << filter->name;
    EXPECT_TRUE(log().warnings.empty()) << filter->name << ": " << log().warnings.front();
    // The half-size image (64x48) is too small for the learned reading: the
    // operation says so in one line, that the statistical reading is used
    // or, where that finds no flat blocks either (it depends on the drawn
    // image), that the noise could not be measured.
    ASSERT_EQ(log().noise_notices.size(), 1u) << filter->name;
    const std::string& said = log().noise_notices.front();
    EXPECT_TRUE(said.find("the learned noise reading is unsure (only 0 opaque tiles of 64x64 pixels fit in the image "
                          "(64x48)") != std::string::npos ||
                said.find("the noise could not be measured") != std::string::npos)
        << filter->name << ": " << said;
  }
  g_object_set(gegl_config(), "mipmap-rendering", FALSE, nullptr);
  g_object_unref(input);
}

}  // namespace
}  // namespace edgewise_test
