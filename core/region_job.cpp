#include "region_job.h"

#include <algorithm>
#include <exception>
#include <new>

namespace edgewise {

namespace {

// Rows of one rectangle of the image, as the engine reads them.
class RectRows : public PixelSource {
 public:
  RectRows(RectSource& source, const PixelRect& rect, int channels)
      : source_(source), rect_(rect), row_floats_(size_t(rect.width) * size_t(channels)) {}
  void read_rows(int y, int rows, float* dst) override {
    source_.read({rect_.x, rect_.y + y, rect_.width, rows}, dst, row_floats_);
  }

 private:
  RectSource& source_;
  PixelRect rect_;
  size_t row_floats_;
};

// Rows of the part read, of which only the wanted part is written: the
// halo around it was read for context.
class WantedRows : public PixelSink {
 public:
  WantedRows(RectSink& sink, const PixelRect& read, const PixelRect& wanted, int channels)
      : sink_(sink), read_(read), wanted_(wanted), channels_(size_t(channels)) {}
  void write_rows(int y, int rows, const float* src) override {
    const PixelRect band = intersect({read_.x, read_.y + y, read_.width, rows}, wanted_);
    if (band.empty()) return;
    const size_t row_floats = size_t(read_.width) * channels_;
    const float* first = src + size_t(band.y - read_.y - y) * row_floats + size_t(band.x - read_.x) * channels_;
    sink_.write(band, first, row_floats);
  }

 private:
  RectSink& sink_;
  PixelRect read_, wanted_;
  size_t channels_;
};

// The input copied to the output, a few rows at a time (within 16 MiB;
// one row when even that cannot be had), where filtering failed: a defined
// result, never a half-written one.
void copy_unchanged(RectSource& source, RectSink& sink, const PixelRect& part, int channels) {
  const size_t row_floats = size_t(part.width) * size_t(channels);
  int band_rows = int(std::clamp<size_t>((size_t(16) << 20) / (row_floats * sizeof(float)), 1, size_t(part.height)));
  std::vector<float> rows;
  try {
    rows.resize(row_floats * size_t(band_rows));
  } catch (const std::bad_alloc&) {
    band_rows = 1;
    rows.resize(row_floats);
  }
  for (int y = part.y; y < part.bottom(); y += band_rows) {
    const PixelRect band{part.x, y, part.width, std::min(band_rows, part.bottom() - y)};
    source.read(band, rows.data(), row_floats);
    sink.write(band, rows.data(), row_floats);
  }
}

std::string message_of(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Cancelled&) {
    return "cancelled";
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& error) {
    return error.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

std::string pass_through(RectSource& source, RectSink& sink, const ImageShape& image,
                         const PixelRect& wanted) noexcept {
  try {
    const PixelRect part = intersect(wanted, {0, 0, image.width, image.height});
    if (!part.empty()) copy_unchanged(source, sink, part, image.channels);
    return "";
  } catch (...) {
    try {
      return "the input could not be copied either (" + message_of(std::current_exception()) + ")";
    } catch (...) {
      return "the input could not be copied either";
    }
  }
}

NoiseEstimate estimate_image_noise(RectSource& source, const ImageShape& image, int threads) {
  RectRows rows(source, {0, 0, image.width, image.height}, image.channels);
  NoiseEstimateOptions options;
  options.threads = threads;
  return estimate_noise(rows, image, options);
}

RegionOutcome filter_region(const RegionJob& job, RectSource& source, RectSink& sink) noexcept {
  RegionOutcome outcome;
  const PixelRect part = intersect(job.wanted, {0, 0, job.image.width, job.image.height});
  if (part.empty()) return outcome;
  std::exception_ptr failure;
  try {
    const RegionPlan plan = plan_region(job.spec, job.image, part);
    outcome.read = plan.read;
    NoiseEstimate measured;
    RunOptions options;
    options.backend = job.backend;
    options.backend_options.threads = job.threads;
    options.backends = job.backends;
    options.progress = job.progress;
    options.observer = job.observer;
    options.notice = [&outcome, &job](const std::string& text) {
      outcome.notices.push_back(text);
      if (job.notice) job.notice(text);
    };
    if (needs_noise(plan.spec)) {
      if (!job.noise) measured = estimate_image_noise(source, job.image, job.threads);
      options.noise = job.noise ? job.noise : &measured;
    }
    const ImageShape shape{plan.read.width, plan.read.height, job.image.channels};
    RectRows input(source, plan.read, job.image.channels);
    WantedRows output(sink, plan.read, part, job.image.channels);
    outcome.report = run_filter(plan.spec, shape, input, output, options);
    outcome.filtered = true;
    return outcome;
  } catch (...) {
    failure = std::current_exception();
  }
  // Messages are short strings; should even they fail, the outcome still
  // says it was not filtered.
  try {
    outcome.error = message_of(failure);
  } catch (...) {
  }
  const std::string copy_error = pass_through(source, sink, job.image, part);
  try {
    if (!copy_error.empty()) outcome.error += "; " + copy_error;
  } catch (...) {
  }
  return outcome;
}

}  // namespace edgewise
