// The one band loop. Every filter on every backend runs through it: the
// image is cut into horizontal bands whose halo is the filter's reach, each
// band's input rows are handed to the backend's runner and its output rows
// to the sink, with as many bands in flight as the backend keeps. The
// result does not depend on the band height: every output pixel sees the
// same clamped neighbourhood.
#pragma once

#include <cstddef>
#include <vector>

#include "backend.h"
#include "band.h"
#include "image_buffer.h"
#include "pixel_stream.h"
#include "plan.h"

namespace edgewise {

// Rows the executor reads: an image in memory is read in place, a stream
// into staging memory the executor provides.
class RowInput {
 public:
  virtual ~RowInput() = default;
  // Image rows [first, first + rows); may fill `staging` (staged_row_bytes() per row).
  virtual RowSpan read(int first, int rows, void* staging) = 0;
  virtual size_t staged_row_bytes() const = 0;  // 0: reads in place
};

class RowOutput {
 public:
  virtual ~RowOutput() = default;
  // Where band rows [y0, y0 + rows) are to be written: in place, or `staging`.
  virtual RowSpan target(int y0, int rows, void* staging) = 0;
  // Those rows are complete (called in band order).
  virtual void deliver(const RowSpan& rows) = 0;
  virtual size_t staged_row_bytes() const = 0;  // 0: written in place
};

// An image in memory, read or written in place. When the output overlaps
// the input both are staged: a band's input rows are copied before the
// bands above it are delivered, so a job may filter a buffer in place.
class BufferInput : public RowInput {
 public:
  BufferInput(const ImageBuffer& buffer, bool staged) : buffer_(buffer), staged_(staged) {}
  RowSpan read(int first, int rows, void* staging) override;
  size_t staged_row_bytes() const override;

 private:
  ImageBuffer buffer_;
  bool staged_;
};

class BufferOutput : public RowOutput {
 public:
  BufferOutput(const ImageBuffer& buffer, bool staged) : buffer_(buffer), staged_(staged) {}
  RowSpan target(int y0, int rows, void* staging) override;
  void deliver(const RowSpan& rows) override;
  size_t staged_row_bytes() const override;

 private:
  ImageBuffer buffer_;
  bool staged_;
};

// Row streams (GEGL buffers, float images): float rows through staging.
class StreamInput : public RowInput {
 public:
  StreamInput(PixelSource& source, const ImageShape& shape) : source_(source), shape_(shape) {}
  RowSpan read(int first, int rows, void* staging) override;
  size_t staged_row_bytes() const override { return size_t(shape_.width) * size_t(shape_.channels) * sizeof(float); }

 private:
  PixelSource& source_;
  ImageShape shape_;
};

class StreamOutput : public RowOutput {
 public:
  StreamOutput(PixelSink& sink, const ImageShape& shape) : sink_(sink), shape_(shape) {}
  RowSpan target(int y0, int rows, void* staging) override;
  void deliver(const RowSpan& rows) override;
  size_t staged_row_bytes() const override { return size_t(shape_.width) * size_t(shape_.channels) * sizeof(float); }

 private:
  PixelSink& sink_;
  ImageShape shape_;
};

// Sees a run from outside the compute path: the plug-in's timing, tests.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void rows_read(int /*rows*/, double /*seconds*/) {}
  virtual void rows_written(int /*rows*/, double /*seconds*/) {}
  virtual void backend_used(const std::string& /*name*/) {}
};

struct ExecuteOptions {
  int band_rows = 0;  // 0: from the backend's budget; at least the plan's reach either way
  ProgressFn progress;
  double progress_base = 0, progress_span = 1;
  RunObserver* observer = nullptr;
};

struct BandLayout {
  int rows = 0;   // output rows per band
  int slots = 1;  // bands in flight
};

// Band height and bands in flight for this backend's budget: the most
// slots the budget holds bands of at least the reach for (up to the
// backend's), and the tallest such band, no taller than the image's share
// the backend asks for. `requested` rows (at least the reach and the
// backend's minimum) replace the height when not 0. Throws BackendError
// when not even one band fits.
BandLayout choose_bands(const Plan& plan, const BandBudget& budget, int requested);

// Runs `plan` over the whole image. Throws BackendError from the backend,
// Cancelled when progress says stop; nothing is delivered twice.
void execute(const Plan& plan, Backend& backend, RowInput& input, RowOutput& output,
             const std::vector<RowOutput*>& extras, const ExecuteOptions& options);

}  // namespace edgewise
