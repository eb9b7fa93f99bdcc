// The dialog's only view of the image it edits, so that the same dialog
// serves the GIMP plug-in (a drawable read through GEGL) and the CLI (a
// decoded file). The host applies the returned settings itself, through its
// own sink: the CLI's atomic file writer, the plug-in's shadow buffer.
#pragma once

#include "image_shape.h"

namespace edgewise_dialog {

struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
  bool empty() const { return width <= 0 || height <= 0; }
  int right() const { return x + width; }
  int bottom() const { return y + height; }
};

Rect intersect(const Rect& a, const Rect& b);
Rect grow(const Rect& rect, int margin);

class ImagePort {
 public:
  virtual ~ImagePort() = default;
  // Width, height and channels (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA).
  virtual edgewise::ImageShape shape() const = 0;
  // Fills dst with `rect` of the image scaled by `scale` (0 < scale <= 1),
  // rect in scaled coordinates, as GEGL's gegl_buffer_get takes them:
  // interleaved engine floats (R'G'B' or Y' in 0..1, then alpha), pixels
  // outside the image clamped to its edge. Called on the UI thread only,
  // since GIMP's plug-in protocol is not thread-safe.
  virtual void read(const Rect& rect, double scale, float* dst) = 0;
  // The part of the image the filter changes (GIMP: the selection's
  // bounds); the preview shows the original elsewhere.
  virtual Rect affected() const {
    const edgewise::ImageShape image = shape();
    return {0, 0, image.width, image.height};
  }
};

}  // namespace edgewise_dialog
