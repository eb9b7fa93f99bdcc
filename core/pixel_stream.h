// How the engine reads and writes pixels without holding a whole image:
// rows of interleaved float samples, R'G'B' (or grey) in 0..1 followed by
// alpha when present. The CLI converts from 8/16-bit buffers on the fly, the
// GIMP plug-in from GeglBuffers.
#pragma once

#include <functional>
#include <string>

namespace edgewise {

class PixelSource {
 public:
  virtual ~PixelSource() = default;
  // Fills rows [y, y + rows) into dst, width * channels floats per row.
  virtual void read_rows(int y, int rows, float* dst) = 0;
};

class PixelSink {
 public:
  virtual ~PixelSink() = default;
  // Receives rows [y, y + rows), width * channels floats per row. Every row
  // of a pass is written exactly once, in increasing order.
  virtual void write_rows(int y, int rows, const float* src) = 0;
};

// Called after each band with the fraction of the whole job done; returning
// false cancels the job.
using ProgressFn = std::function<bool(double fraction)>;

// Thrown when the progress callback asks to stop.
struct Cancelled {};

}  // namespace edgewise
