#include "operation.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "buffer_rects.h"
#include "op_properties.h"
#include "region_job.h"

namespace edgewise_gegl {

namespace {

using edgewise::FilterInfo;
using edgewise::FilterSpec;
using edgewise::ImageShape;
using edgewise::NoiseEstimate;
using edgewise::ParamInfo;
using edgewise::PixelRect;

// The input's noise, measured on the whole input at one mipmap level for
// automatic parameters, and kept per input: the node that feeds the
// operation, its extent, the level and the working format. Its content
// changing reaches the operation as get_invalidated_by_change (GEGL turns a
// buffer's "changed" signal and any change upstream into an invalidation
// down the graph), which drops the reading. Not the buffer process() is
// given: that is whatever the feeding node's cache or a temporary holds
// for the region asked for, so its identity does not name the input, and
// a hash of the pixels would read the whole input to find out whether to
// read the whole input.
struct KeptNoise {
  bool valid = false;
  GeglNode* source = nullptr;
  GeglRectangle bounds{};
  int level = 0;
  const Babl* format = nullptr;
  int channels = 0;
  NoiseEstimate estimate;
};

// What an instance holds besides GEGL's fields.
struct OperationState {
  std::mutex mutex;            // properties may be set while GEGL renders on another thread
  std::vector<double> values;  // the filter's parameters, in FilterInfo::params() order
  int backend = 0;             // index into backend_choices()
  KeptNoise noise;
  std::set<std::string> warned;  // each message is logged once per instance, not once per tile
};

struct Operation {
  GeglOperationAreaFilter parent_instance;
  OperationState* state;
};

struct OperationClass {
  GeglOperationAreaFilterClass parent_class;
  const FilterInfo* filter;
  GObjectClass* parent;
};

const FilterInfo& filter_of(gpointer instance) {
  return *reinterpret_cast<OperationClass*>(G_OBJECT_GET_CLASS(instance))->filter;
}

OperationState* state_of(gpointer instance) { return reinterpret_cast<Operation*>(instance)->state; }

// The properties as a spec, or why they make none.
struct Settings {
  FilterSpec spec;
  std::string error;
  std::string backend = "auto";
};

Settings settings_of(GeglOperation* operation) {
  const FilterInfo& filter = filter_of(operation);
  Settings settings{FilterSpec(filter), "", "auto"};
  OperationState* state = state_of(operation);
  if (!state) {
    settings.error = "the operation could not be set up";
    return settings;
  }
  std::vector<double> values;
  int backend = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    values = state->values;
    backend = state->backend;
  }
  const std::vector<const ParamInfo*> params = filter.params();
  for (size_t i = 0; i < params.size() && settings.error.empty(); ++i)
    settings.error = edgewise::set_param(settings.spec, params[i]->cli_flag, values[i]);
  if (settings.error.empty()) settings.error = edgewise::validate(settings.spec);
  const std::vector<std::string> choices = edgewise::backend_choices(edgewise::installed_backends());
  if (backend >= 0 && size_t(backend) < choices.size()) settings.backend = choices[size_t(backend)];
  return settings;
}

void warn_once(GeglOperation* operation, const std::string& message) {
  OperationState* state = state_of(operation);
  if (state) {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (!state->warned.insert(message).second) return;
  }
  g_warning("%s: %s", operation_name(filter_of(operation)).c_str(), message.c_str());
}

int channels_of(GeglOperation* operation) {
  const Babl* format = gegl_operation_get_format(operation, "output");
  return format ? babl_format_get_n_components(format) : 4;
}

ImageShape shape_of(const GeglRectangle& bounds, int channels) { return {bounds.width, bounds.height, channels}; }

PixelRect relative(const GeglRectangle& rect, const GeglRectangle& bounds) {
  return {rect.x - bounds.x, rect.y - bounds.y, rect.width, rect.height};
}

GeglRectangle absolute(const PixelRect& rect, const GeglRectangle& bounds) {
  return {bounds.x + rect.x, bounds.y + rect.y, rect.width, rect.height};
}

// A rectangle at mipmap level `level`, as GEGL's area filters take it.
GeglRectangle at_level(const GeglRectangle& rect, int level) {
  GeglRectangle scaled;
  scaled.x = rect.x >> level;
  scaled.y = rect.y >> level;
  scaled.width = ((rect.x + rect.width) >> level) - scaled.x;
  scaled.height = ((rect.y + rect.height) >> level) - scaled.y;
  return scaled;
}

// GEGL's own thread count, so that the engine's CPU threads take the
// cores GEGL would use and no more (the operation itself is not split
// across GEGL's threads: `threaded` is off).
int gegl_threads() {
  gint threads = 0;
  g_object_get(gegl_config(), "threads", &threads, nullptr);
  return std::max(1, int(threads));
}

// The installed backends, wrapped by the test hooks the CLI has too:
// EDGEWISE_INJECT_GPU_FAILURE=oom|launch (the GPU fails part-way, the
// engine reruns on the CPU) and, for this front end only,
// EDGEWISE_INJECT_HOST_FAILURE=1 (every backend runs out of host memory
// part-way: the input is passed through).
edgewise::BackendList backends_for_run() {
  edgewise::BackendList list = edgewise::installed_backends();
  const char* gpu = std::getenv("EDGEWISE_INJECT_GPU_FAILURE");
  if (gpu && *gpu) list = edgewise::with_injected_failure(list, edgewise::parse_injected_failure(gpu));
  const char* host = std::getenv("EDGEWISE_INJECT_HOST_FAILURE");
  if (host && *host) list = edgewise::with_host_memory_failure(list);
  return list;
}

// The noise of the whole input at this level, read once per input (see
// KeptNoise) from the node that feeds the operation, in bands: whatever
// part of the image a process() call filters (a tile, a selection), the
// reading is the whole input's, so parts agree with the whole where they
// overlap, and a tile requires only its own part grown by the reach.
NoiseEstimate input_noise(GeglOperation* operation, const GeglRectangle& bounds, int level, const Babl* format,
                          int channels) {
  OperationState* state = state_of(operation);
  GeglNode* source = gegl_operation_get_source_node(operation, "input");
  if (!state || !source) throw std::runtime_error("the input could not be read for its noise");
  std::lock_guard<std::mutex> lock(state->mutex);
  KeptNoise& kept = state->noise;
  if (!kept.valid || kept.source != source || !gegl_rectangle_equal(&kept.bounds, &bounds) || kept.level != level ||
      kept.format != format || kept.channels != channels) {
    kept.valid = false;
    const GeglRectangle image = at_level(bounds, level);
    NodeRectSource whole(source, format, image.x, image.y, level);
    kept.estimate = edgewise::estimate_image_noise(whole, shape_of(image, channels), gegl_threads());
    kept.source = source;
    kept.bounds = bounds;
    kept.level = level;
    kept.format = format;
    kept.channels = channels;
    kept.valid = true;
    // tests/gegl counts these: one per input, however many tiles.
    g_debug("%s: read the whole input (%dx%d, level %d) for its noise", operation_name(filter_of(operation)).c_str(),
            image.width, image.height, level);
  }
  return kept.estimate;
}

bool bounded(const GeglRectangle* bounds) {
  return bounds && !gegl_rectangle_is_empty(bounds) && !gegl_rectangle_is_infinite_plane(bounds);
}

// --- GObject

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  OperationState* state = state_of(object);
  const std::vector<const ParamInfo*> params = filter_of(object).params();
  if (id == 0 || id > params.size() + 1) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    return;
  }
  if (!state) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (id <= params.size())
    state->values[id - 1] = spec_number(*params[id - 1], value);
  else
    state->backend = g_value_get_enum(value);
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  OperationState* state = state_of(object);
  const std::vector<const ParamInfo*> params = filter_of(object).params();
  if (id == 0 || id > params.size() + 1) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    return;
  }
  if (!state) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (id <= params.size())
    set_gvalue(*params[id - 1], state->values[id - 1], value);
  else
    g_value_set_enum(value, state->backend);
}

void instance_init(GTypeInstance* instance, gpointer klass) {
  Operation* operation = reinterpret_cast<Operation*>(instance);
  operation->state = nullptr;
  try {
    auto state = std::make_unique<OperationState>();
    state->values = FilterSpec(*reinterpret_cast<OperationClass*>(klass)->filter).values();
    operation->state = state.release();
  } catch (const std::exception& error) {
    g_warning("edgewise: an operation could not be set up: %s", error.what());
  }
}

void finalize(GObject* object) {
  Operation* operation = reinterpret_cast<Operation*>(object);
  delete operation->state;
  operation->state = nullptr;
  reinterpret_cast<OperationClass*>(G_OBJECT_GET_CLASS(object))->parent->finalize(object);
}

// --- GeglOperation

// The working format: R'G'B' floats (grey when the input is grey, alpha
// when it has alpha), in the input's colour space, so the samples are
// those the CLI reads from the same file. The engine wants R'G'B' for every
// working space: a filter working in linear light decodes in its kernels,
// as for the CLI and the plug-in (docs/architecture.md, Working spaces).
void prepare(GeglOperation* operation) {
  const Babl* source = gegl_operation_get_source_format(operation, "input");
  const Babl* space = gegl_operation_get_source_space(operation, "input");
  const bool grey = source && (babl_get_model_flags(babl_format_get_model(source)) & BABL_MODEL_FLAG_GRAY);
  const bool alpha = !source || babl_format_has_alpha(source);
  const char* encoding = grey ? (alpha ? "Y'A float" : "Y' float") : (alpha ? "R'G'B'A float" : "R'G'B' float");
  const Babl* format = babl_format_with_space(encoding, space);
  gegl_operation_set_format(operation, "input", format);
  gegl_operation_set_format(operation, "output", format);
  // The margins GEGL reads for an area filter: the reach, as the region plan grows by.
  GeglOperationAreaFilter* area = GEGL_OPERATION_AREA_FILTER(operation);
  int reach = 0;
  try {
    const Settings settings = settings_of(operation);
    const GeglRectangle* bounds = gegl_operation_source_get_bounding_box(operation, "input");
    if (settings.error.empty() && bounded(bounds))
      reach = edgewise::filter_reach(edgewise::spec_for_image(settings.spec, shape_of(*bounds, 4)));
  } catch (...) {
  }
  area->left = area->right = area->top = area->bottom = reach;
}

// The input's extent: the area filter's default grows it by the margins,
// which would make the output larger than the input (gegl:gaussian-blur's
// clip-extent, always on).
GeglRectangle get_bounding_box(GeglOperation* operation) {
  const GeglRectangle* bounds = gegl_operation_source_get_bounding_box(operation, "input");
  return bounds ? *bounds : GeglRectangle{0, 0, 0, 0};
}

// What filter_region reads for this output: the part grown by the reach,
// on the filter's grid, within the input. Automatic values need the whole
// input's noise too, but that is read once per input from the feeding node
// (input_noise), not required by every tile.
GeglRectangle get_required_for_output(GeglOperation* operation, const gchar*, const GeglRectangle* roi) {
  const GeglRectangle* bounds = gegl_operation_source_get_bounding_box(operation, "input");
  if (!bounds || gegl_rectangle_is_empty(bounds)) return {0, 0, 0, 0};
  if (gegl_rectangle_is_infinite_plane(bounds)) return *roi;
  GeglRectangle wanted;
  if (!gegl_rectangle_intersect(&wanted, roi, bounds)) return {0, 0, 0, 0};
  try {
    const Settings settings = settings_of(operation);
    if (!settings.error.empty()) return wanted;
    const edgewise::RegionPlan plan =
        edgewise::plan_region(settings.spec, shape_of(*bounds, channels_of(operation)), relative(wanted, *bounds));
    return absolute(plan.read, *bounds);
  } catch (...) {
    return wanted;
  }
}

// An output pixel depends on the input within the reach; with automatic
// values on all of it, through the noise (measured again after any change).
GeglRectangle get_invalidated_by_change(GeglOperation* operation, const gchar*, const GeglRectangle* changed) {
  if (OperationState* state = state_of(operation)) {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->noise.valid = false;
  }
  const GeglRectangle* bounds = gegl_operation_source_get_bounding_box(operation, "input");
  if (!bounded(bounds)) return *changed;
  try {
    const Settings settings = settings_of(operation);
    if (!settings.error.empty()) return *changed;
    if (edgewise::needs_noise(settings.spec)) return *bounds;
    const int reach = edgewise::filter_reach(edgewise::spec_for_image(settings.spec, shape_of(*bounds, 4)));
    const GeglRectangle grown = {changed->x - reach, changed->y - reach, changed->width + 2 * reach,
                                 changed->height + 2 * reach};
    GeglRectangle inside;
    return gegl_rectangle_intersect(&inside, &grown, bounds) ? inside : GeglRectangle{0, 0, 0, 0};
  } catch (...) {
    return *bounds;
  }
}

gboolean process(GeglOperation* operation, GeglBuffer* input, GeglBuffer* output, const GeglRectangle* result,
                 gint level) {
  const GeglRectangle* bounds = gegl_operation_source_get_bounding_box(operation, "input");
  if (!input || !bounds || gegl_rectangle_is_empty(bounds)) return TRUE;
  const Babl* format = gegl_operation_get_format(operation, "output");
  const int channels = channels_of(operation);
  const GeglRectangle image = at_level(*bounds, level), part = at_level(*result, level);
  const BufferView in{input, format, image.x, image.y, level}, out{output, format, image.x, image.y, level};
  BufferRectSource source(in);
  BufferRectSink sink(out);
  const ImageShape shape = shape_of(image, channels);
  const PixelRect wanted = relative(part, image);
  auto pass = [&](const std::string& why) noexcept {
    const std::string copy_error = edgewise::pass_through(source, sink, shape, wanted);
    try {
      warn_once(operation,
                why + "; the input is passed through unchanged" + (copy_error.empty() ? "" : ": " + copy_error));
    } catch (...) {
    }
  };
  try {
    if (gegl_rectangle_is_infinite_plane(bounds)) {
      warn_once(operation,
                "an input without bounds (an infinite plane, such as gegl:color's) is not filtered: "
                "crop it first (gegl:crop)");
      gegl_buffer_copy(input, result, GEGL_ABYSS_NONE, output, result);
      return TRUE;
    }
    Settings settings = settings_of(operation);
    if (!settings.error.empty()) {
      pass(settings.error);
      return TRUE;
    }
    // Mipmap levels (a zoomed-out preview) filter the reduced image as the
    // dialog's preview does: lengths scaled with it.
    if (level > 0) settings.spec = edgewise::spec_at_scale(settings.spec, 1.0 / double(1 << level));
    edgewise::RegionJob job;
    job.spec = settings.spec;
    job.image = shape;
    job.wanted = wanted;
    job.backend = settings.backend;
    job.threads = gegl_threads();
    const edgewise::BackendList backends = backends_for_run();
    job.backends = &backends;
    job.progress = [operation](double fraction) {
      static gchar empty[] = "";
      gegl_operation_progress(operation, fraction, empty);
      return true;
    };
    NoiseEstimate noise;
    if (edgewise::needs_noise(job.spec)) {
      noise = input_noise(operation, *bounds, level, format, channels);
      job.noise = &noise;
    }
    const edgewise::RegionOutcome outcome = edgewise::filter_region(job, source, sink);
    for (const std::string& notice : outcome.notices) warn_once(operation, notice);
    if (!outcome.filtered && !outcome.error.empty())
      warn_once(operation, outcome.error + "; the input is passed through unchanged");
    g_debug("%s: %s %dx%d at %d,%d (level %d)%s%s", operation_name(filter_of(operation)).c_str(),
            outcome.filtered ? "filtered" : "passed through", wanted.width, wanted.height, wanted.x, wanted.y, level,
            outcome.filtered ? " on " : "", outcome.report.backend.c_str());
  } catch (const std::exception& error) {
    pass(error.what());
  } catch (...) {
    pass("unknown error");
  }
  return TRUE;
}

// --- the class, from the registry row

void class_init(gpointer klass, gpointer class_data) {
  const FilterInfo& filter = *static_cast<const FilterInfo*>(class_data);
  OperationClass* operation_class = reinterpret_cast<OperationClass*>(klass);
  operation_class->filter = &filter;
  operation_class->parent = G_OBJECT_CLASS(g_type_class_peek_parent(klass));

  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;

  GeglOperationClass* gegl_class = GEGL_OPERATION_CLASS(klass);
  gegl_class->prepare = prepare;
  gegl_class->get_bounding_box = get_bounding_box;
  gegl_class->get_required_for_output = get_required_for_output;
  gegl_class->get_invalidated_by_change = get_invalidated_by_change;
  gegl_class->threaded = FALSE;  // the engine spreads its work over GEGL's thread count itself
  gegl_class->want_in_place = FALSE;
  gegl_class->opencl_support = FALSE;
  gegl_class->cache_policy = GEGL_CACHE_POLICY_ALWAYS;  // a render is costly: keep it until something changes
  GEGL_OPERATION_FILTER_CLASS(klass)->process = process;

  try {
    const std::vector<const ParamInfo*> params = filter.params();
    for (size_t i = 0; i < params.size(); ++i)
      g_object_class_install_property(object_class, guint(i + 1), param_property(*params[i]));
    g_object_class_install_property(object_class, guint(params.size() + 1),
                                    backend_property(edgewise::installed_backends()));
    std::string label;
    for (const char* c = filter.menu_label; *c; ++c)
      if (*c != '_') label += *c;
    const std::string name = operation_name(filter);
    gegl_operation_class_set_keys(gegl_class, "name", name.c_str(), "title", filter.title, "categories",
                                  "enhance:noise-reduction", "description", filter.pdb_blurb, "gimp:menu-path",
                                  "<Image>/Filters/Enhance/Noise", "gimp:menu-label", label.c_str(), nullptr);
  } catch (const std::exception& error) {
    g_warning("%s: its properties could not be made: %s", operation_name(filter).c_str(), error.what());
  }
}

}  // namespace

std::string operation_name(const FilterInfo& filter) { return std::string("edgewise:") + filter.name; }

GType register_operation(GTypeModule* module, const FilterInfo& filter) {
  GTypeInfo info{};
  info.class_size = sizeof(OperationClass);
  info.class_init = class_init;
  info.class_data = &filter;
  info.instance_size = sizeof(Operation);
  info.instance_init = instance_init;
  const std::string type = type_name("EdgewiseOp", filter.name);
  return gegl_module_register_type(module, GEGL_TYPE_OPERATION_AREA_FILTER, type.c_str(), &info, GTypeFlags(0));
}

}  // namespace edgewise_gegl
