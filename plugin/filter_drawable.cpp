#include "filter_drawable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "drawable_io.h"
#include "pdb_layout.h"
#include "progress.h"
#include "region_job.h"

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

// The largest change of any sample of `part` between two buffers, in
// code values of the 8-bit scale.
double largest_change(GeglBuffer* before, GeglBuffer* after, const edgewise::PixelRect& part, int channels) {
  edgewise_gegl::BufferRectSource from(drawable_view(before, channels)), to(drawable_view(after, channels));
  const size_t row = size_t(part.width) * size_t(channels);
  std::vector<float> a(row), b(row);
  double largest = 0;
  for (int y = part.y; y < part.bottom(); ++y) {
    from.read({part.x, y, part.width, 1}, a.data(), row);
    to.read({part.x, y, part.width, 1}, b.data(), row);
    for (size_t i = 0; i < row; ++i) largest = std::max(largest, double(std::abs(a[i] - b[i])));
  }
  return 255.0 * largest;
}

// GIMP's progress bar, per band and within a slow band (BandTask::progress):
// on a 24 MP photo the slowest method's bands take seconds each. GIMP is
// told of each hundredth, and of any step at most ten times a second (a
// band of nlbayes reports every row of reference patches). One per run,
// lent to the job by reference: the engine copies its progress function.
class ProgressBar {
 public:
  bool update(double fraction) {
    const double at = now();
    if (fraction >= 1.0 || fraction - shown_ >= 0.01 || (fraction > shown_ && at - shown_at_ >= 0.1)) {
      progress_update(fraction);
      shown_ = fraction;
      shown_at_ = at;
    }
    return true;  // GIMP cancels a plug-in by ending its process
  }

 private:
  double shown_ = -1, shown_at_ = 0;
};

}  // namespace

std::string measure_drawable_noise(gint32 drawable, edgewise::NoiseEstimate& noise) {
  const edgewise::ImageShape image = drawable_shape(drawable);
  GeglBuffer* buffer = gimp_drawable_get_buffer(drawable);
  edgewise_gegl::BufferRectSource whole(drawable_view(buffer, image.channels));
  std::string error;
  try {
    noise = edgewise::estimate_image_noise(whole, image, 0);
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  g_object_unref(buffer);
  return error;
}

std::string filter_drawable(gint32 drawable, const edgewise::Settings& settings, const edgewise::NoiseEstimate* noise,
                            const std::string& progress) {
  edgewise::PixelRect selection;
  if (!gimp_drawable_mask_intersect(drawable, &selection.x, &selection.y, &selection.width, &selection.height))
    return "";  // the selection does not touch this drawable: nothing to do
  const edgewise::ImageShape image = drawable_shape(drawable);

  const bool timing = std::getenv("EDGEWISE_TIMING") != nullptr;
  Timing times;
  const double start = now();
  Buffers buffers;
  buffers.source = gimp_drawable_get_buffer(drawable);
  buffers.shadow = gimp_drawable_get_shadow_buffer(drawable);
  edgewise_gegl::BufferRectSource source(drawable_view(buffers.source, image.channels));
  edgewise_gegl::BufferRectSink sink(drawable_view(buffers.shadow, image.channels));

  // The selection's bounds filtered as the whole drawable filters them
  // (core/region_job.h grows them by the reach, clamped to the drawable
  // where the CLI clamps too). Auto values follow the whole drawable's
  // noise, as the dialog's preview does, not the selection's: a small
  // selection shows too little to measure.
  edgewise::RegionJob job;
  job.spec = settings.spec;
  job.image = image;
  job.wanted = selection;
  job.backend = settings.backend;
  job.noise = noise;
  edgewise::NoiseEstimate measured;
  if (!noise && edgewise::needs_noise(settings.spec)) {
    progress_init(kMeasuringNoise);
    progress_pulse();
    const std::string error = measure_drawable_noise(drawable, measured);
    if (!error.empty()) return error;
    job.noise = &measured;
  }
  if (timing) job.observer = &times;
  ProgressBar bar;
  job.progress = [&bar](double fraction) { return bar.update(fraction); };
  job.notice = [](const std::string& text) {
    gimp_progress_set_text(text.c_str());
    g_message("%s", text.c_str());
  };
  progress_init(progress.empty() ? progress_text(settings) : progress);
  const edgewise::RegionOutcome outcome = edgewise::filter_region(job, source, sink);
  // On failure the shadow holds the input (filter_region never leaves it
  // half-written) and is never merged: the drawable is unchanged.
  if (!outcome.filtered) return outcome.error;
  edgewise::RunReport report = outcome.report;
  const double filtered = now();
  // The shadow's tiles must reach GIMP before it merges them: flushed here,
  // and again by the unref.
  gegl_buffer_flush(buffers.shadow);
  // A run at auto that changed nothing visible says so (never a silent
  // no-op): the selection's samples before and after.
  if (!report.auto_values.empty()) {
    report.largest_change = largest_change(buffers.source, buffers.shadow, selection, image.channels);
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
                 outcome.read.width, outcome.read.height, image.channels, report.backend.c_str(), times.read,
                 filtered - start - times.read - times.written, times.written, now() - filtered);
  return "";
}

}  // namespace edgewise_plugin
