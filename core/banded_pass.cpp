#include "banded_pass.h"

#include <algorithm>
#include <vector>

namespace edgewise {

size_t padded_band_floats(const Plan& plan) {
  return size_t(plan.band_rows + 2 * plan.radius) * size_t(plan.padded_width()) *
             size_t(plan.shape.channels) +
         kBandOverhangFloats;
}

size_t output_band_floats(const Plan& plan) {
  return size_t(plan.band_rows) * size_t(plan.shape.width) * size_t(plan.shape.channels);
}

PaddedBand describe_padded_band(const Plan& plan, int y0, int rows, float* data) {
  PaddedBand band;
  band.y0 = y0;
  band.rows = rows;
  band.width = plan.padded_width();
  band.planes = plan.shape.channels;
  band.plane_stride = size_t(rows + 2 * plan.radius) * size_t(band.width);
  band.data = data;
  return band;
}

OutputBand describe_output_band(const Plan& plan, int y0, int rows, float* data) {
  OutputBand band;
  band.y0 = y0;
  band.rows = rows;
  band.width = plan.shape.width;
  band.planes = plan.shape.channels;
  band.plane_stride = size_t(rows) * size_t(band.width);
  band.data = data;
  return band;
}

BandGatherer::BandGatherer(const Plan& plan, ParallelRows parallel)
    : plan_(plan), parallel_(std::move(parallel)) {
  staging_.resize(size_t(plan.band_rows + 2 * plan.radius) * size_t(plan.shape.width) *
                  size_t(plan.shape.channels));
}

void BandGatherer::gather(PixelSource& source, int y0, int rows, PaddedBand& band) {
  const int r = plan_.radius, width = plan_.shape.width, height = plan_.shape.height;
  const int channels = plan_.shape.channels;
  const int first = std::max(0, y0 - r);
  const int last = std::min(height, y0 + rows + r);  // exclusive
  source.read_rows(first, last - first, staging_.data());

  band = describe_padded_band(plan_, y0, rows, band.data);
  for_rows(rows + 2 * r, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const int y = std::clamp(y0 - r + i, 0, height - 1);
      const float* src_row = staging_.data() + size_t(y - first) * size_t(width) * size_t(channels);
      for (int c = 0; c < channels; ++c) {
        float* dst = band.plane(c) + size_t(i) * size_t(band.width);
        const float left = src_row[c], right = src_row[size_t(width - 1) * size_t(channels) + size_t(c)];
        for (int x = 0; x < r; ++x) dst[x] = left;
        for (int x = 0; x < width; ++x) dst[r + x] = src_row[size_t(x) * size_t(channels) + size_t(c)];
        for (int x = 0; x < r; ++x) dst[r + width + x] = right;
      }
    }
  });
}

void BandGatherer::for_rows(int count, const std::function<void(int, int)>& body) const {
  if (parallel_)
    parallel_(count, body);
  else
    body(0, count);
}

void BandGatherer::scatter(const OutputBand& band, PixelSink& sink) {
  const int channels = band.planes;
  for_rows(band.rows, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      float* dst_row = staging_.data() + size_t(i) * size_t(band.width) * size_t(channels);
      for (int c = 0; c < channels; ++c) {
        const float* src = band.plane(c) + size_t(i) * size_t(band.width);
        for (int x = 0; x < band.width; ++x) dst_row[size_t(x) * size_t(channels) + size_t(c)] = src[x];
      }
    }
  });
  sink.write_rows(band.y0, band.rows, staging_.data());
}

// Each band's output is handed to the sink only after the next band has been
// gathered. With bands of at least r rows this lets a pass read and write the
// same image (iterations), because no band reads rows that are already
// overwritten.
void run_banded_pass(const Plan& plan, PixelSource& source, PixelSink& sink, BandFilter& filter,
                     const ProgressFn& progress, double progress_base, double progress_span,
                     const ParallelRows& parallel) {
  BandGatherer gatherer(plan, parallel);
  std::vector<float> padded(padded_band_floats(plan));
  std::vector<float> output(output_band_floats(plan));
  PaddedBand input;
  input.data = padded.data();
  OutputBand pending;
  bool has_pending = false;

  const int height = plan.shape.height;
  for (int y0 = 0; y0 < height; y0 += plan.band_rows) {
    const int rows = std::min(plan.band_rows, height - y0);
    gatherer.gather(source, y0, rows, input);
    if (has_pending) gatherer.scatter(pending, sink);
    pending = describe_output_band(plan, y0, rows, output.data());
    filter.filter_band(plan, input, pending);
    has_pending = true;
    if (progress && !progress(progress_base + progress_span * double(y0 + rows) / double(height)))
      throw Cancelled{};
  }
  if (has_pending) gatherer.scatter(pending, sink);
}

}  // namespace edgewise
