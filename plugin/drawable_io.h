// The engine's row streams over GeglBuffers. Pixels travel as babl's
// perceptual float formats (R'G'B'(A) / Y'(A) float), which is what the
// engine expects whatever the drawable's precision; GEGL converts from and
// back to 8/16/32-bit, half or float storage, so nothing is lost on the way.
#pragma once

#include <gegl.h>

#include "image_shape.h"
#include "pixel_stream.h"

namespace edgewise_plugin {

// The perceptual float format for a drawable with these channels.
const Babl* float_format(int channels);

// Reads rows of `region` (drawable coordinates). Reads clamp at the buffer's
// edge, as the CLI's borders do.
class GeglRowSource : public edgewise::PixelSource {
 public:
  GeglRowSource(GeglBuffer* buffer, const GeglRectangle& region, int channels);
  void read_rows(int y, int rows, float* dst) override;

 private:
  GeglBuffer* buffer_;
  GeglRectangle region_;
  const Babl* format_;
};

// Receives rows of `region` and writes only their part inside `keep` (the
// selection bounds): the halo around it was read for context, not changed.
class GeglRowSink : public edgewise::PixelSink {
 public:
  GeglRowSink(GeglBuffer* buffer, const GeglRectangle& region, const GeglRectangle& keep, int channels);
  void write_rows(int y, int rows, const float* src) override;

 private:
  GeglBuffer* buffer_;
  GeglRectangle region_, keep_;
  int channels_;
  const Babl* format_;
};

}  // namespace edgewise_plugin
