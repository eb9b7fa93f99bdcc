#include "filter_drawable.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "drawable_io.h"
#include "engine.h"
#include "pdb_layout.h"
#include "progress.h"
#include "region.h"

namespace edgewise_plugin {

namespace {

double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// EDGEWISE_TIMING=1: the time spent reading the drawable, filtering,
// writing the shadow buffer and merging it, on stderr (bench/gimp).
class Timing : public edgewise::RunObserver {
 public:
  void rows_read(int, double seconds) override { read += seconds; }
  void rows_written(int, double seconds) override { written += seconds; }
  double read = 0, written = 0;
};

struct Buffers {  // releases the GeglBuffers on every path out
  GeglBuffer* source = nullptr;
  GeglBuffer* shadow = nullptr;
  ~Buffers() {
    if (source) g_object_unref(source);
    if (shadow) g_object_unref(shadow);
  }
};

// A libgimp call that writes failed: its PDB error (the plug-in handles PDB
// errors itself, see main.cpp) as part of the message.
std::string write_failed(const char* what, gint32 drawable) {
  const char* error = gimp_get_pdb_error();  // before any other PDB call replaces it
  const std::string why = error ? error : "";
  gchar* name = gimp_item_get_name(drawable);
  std::string message = std::string("GIMP did not accept the result (") + what + ") for '" + (name ? name : "") + "'";
  g_free(name);
  return why.empty() ? message : message + ": " + why;
}

// The largest change of any sample of `region` between two buffers, in
// code values of the 8-bit scale.
double largest_change(GeglBuffer* before, GeglBuffer* after, const GeglRectangle& region, int channels) {
  GeglRowSource from(before, region, channels), to(after, region, channels);
  const size_t row = size_t(region.width) * size_t(channels);
  std::vector<float> a(row), b(row);
  double largest = 0;
  for (int y = 0; y < region.height; ++y) {
    from.read_rows(y, 1, a.data());
    to.read_rows(y, 1, b.data());
    for (size_t i = 0; i < row; ++i) largest = std::max(largest, double(std::abs(a[i] - b[i])));
  }
  return 255.0 * largest;
}

int drawable_channels(gint32 drawable) {
  return (gimp_drawable_is_gray(drawable) ? 1 : 3) + (gimp_drawable_has_alpha(drawable) ? 1 : 0);
}

}  // namespace

std::string measure_drawable_noise(gint32 drawable, edgewise::NoiseEstimate& noise) {
  const int channels = drawable_channels(drawable);
  const int width = gimp_drawable_width(drawable), height = gimp_drawable_height(drawable);
  GeglBuffer* buffer = gimp_drawable_get_buffer(drawable);
  GeglRowSource whole(buffer, {0, 0, width, height}, channels);
  std::string error;
  try {
    noise = edgewise::estimate_noise(whole, {width, height, channels});
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  g_object_unref(buffer);
  return error;
}

std::string filter_drawable(gint32 drawable, const edgewise::Settings& settings, const edgewise::NoiseEstimate* noise,
                            const std::string& progress) {
  GeglRectangle selection{};
  if (!gimp_drawable_mask_intersect(drawable, &selection.x, &selection.y, &selection.width, &selection.height))
    return "";  // the selection does not touch this drawable: nothing to do
  const int channels = drawable_channels(drawable);
  // The selection grown by the filter's reach (clamped to the drawable,
  // where the CLI clamps too), on the filter's grid and planned for the
  // whole drawable (core/region.h): the selection's pixels are then those
  // of filtering the whole drawable.
  edgewise::RegionPlan plan;
  try {
    plan =
        edgewise::plan_region(settings.spec, {gimp_drawable_width(drawable), gimp_drawable_height(drawable), channels},
                              {selection.x, selection.y, selection.width, selection.height});
  } catch (const std::exception& error) {
    return error.what();
  }
  const GeglRectangle region = {plan.read.x, plan.read.y, plan.read.width, plan.read.height};

  const bool timing = std::getenv("EDGEWISE_TIMING") != nullptr;
  Timing times;
  const double start = now();
  Buffers buffers;
  buffers.source = gimp_drawable_get_buffer(drawable);
  buffers.shadow = gimp_drawable_get_shadow_buffer(drawable);
  GeglRowSource source(buffers.source, region, channels);
  GeglRowSink sink(buffers.shadow, region, selection, channels);

  edgewise::RunOptions options;
  options.backend = settings.backend;
  // Auto values follow the whole drawable's noise, as the dialog's preview
  // does, not the selection's: a small selection shows too little to measure.
  edgewise::NoiseEstimate measured;
  if (noise) {
    options.noise = noise;
  } else if (edgewise::needs_noise(settings.spec)) {
    progress_init(kMeasuringNoise);
    progress_pulse();
    const std::string error = measure_drawable_noise(drawable, measured);
    if (!error.empty()) return error;
    options.noise = &measured;
  }
  if (timing) options.observer = &times;
  // Per band, and within a slow band (BandTask::progress): on a 24 MP
  // photo the slowest method's bands take seconds each.
  // GIMP is told of each hundredth, and of any step at most ten times a
  // second (a band of nlbayes reports every row of reference patches).
  double shown = -1, shown_at = 0;
  options.progress = [&shown, &shown_at](double fraction) {
    const double at = now();
    if (fraction >= 1.0 || fraction - shown >= 0.01 || (fraction > shown && at - shown_at >= 0.1)) {
      progress_update(fraction);
      shown = fraction;
      shown_at = at;
    }
    return true;  // GIMP cancels a plug-in by ending its process
  };
  options.notice = [](const std::string& text) {
    gimp_progress_set_text(text.c_str());
    g_message("%s", text.c_str());
  };
  progress_init(progress.empty() ? progress_text(settings) : progress);
  edgewise::RunReport report;
  try {
    report = edgewise::run_filter(plan.spec, {region.width, region.height, channels}, source, sink, options);
  } catch (const edgewise::Cancelled&) {
    return "cancelled";
  } catch (const std::exception& error) {
    return error.what();
  }
  const double filtered = now();
  // The shadow's tiles must reach GIMP before it merges them: flushed here,
  // and again by the unref.
  gegl_buffer_flush(buffers.shadow);
  // A run at auto that changed nothing visible says so (never a silent
  // no-op): the selection's samples before and after.
  if (!report.auto_values.empty()) {
    report.largest_change = largest_change(buffers.source, buffers.shadow, selection, channels);
    const std::string unchanged = edgewise::unchanged_notice(report);
    if (!unchanged.empty()) g_message("%s", unchanged.c_str());
  }
  g_object_unref(buffers.shadow);
  buffers.shadow = nullptr;
  // One undo step, blended through the selection mask. GIMP refuses it for
  // what check_drawable refuses up front (and anything it adds): that is an
  // error, and the drawable is unchanged.
  if (!gimp_drawable_merge_shadow(drawable, TRUE)) return write_failed("merging the shadow buffer", drawable);
  if (!gimp_drawable_update(drawable, selection.x, selection.y, selection.width, selection.height))
    return write_failed("updating the drawable", drawable);
  progress_update(1.0);
  if (timing)
    std::fprintf(stderr, "edgewise timing: %dx%dx%d on %s: read %.3f s, filter %.3f s, write %.3f s, merge %.3f s\n",
                 region.width, region.height, channels, report.backend.c_str(), times.read,
                 filtered - start - times.read - times.written, times.written, now() - filtered);
  return "";
}

}  // namespace edgewise_plugin
