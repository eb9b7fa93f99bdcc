// The region job's pixels in GeglBuffers: image coordinates (origin at the
// input's bounding box, at the mipmap level GEGL renders) to the buffer's,
// in the float format the operation chose in prepare().
#pragma once

#include <gegl.h>

#include "region_job.h"

namespace edgewise_gegl {

struct BufferView {
  GeglBuffer* buffer = nullptr;
  const Babl* format = nullptr;
  int origin_x = 0, origin_y = 0;  // the image's (0, 0) in the buffer, at `level`
  int level = 0;
};

class BufferRectSource : public edgewise::RectSource {
 public:
  explicit BufferRectSource(const BufferView& view) : view_(view) {}
  void read(const edgewise::PixelRect& rect, float* dst, size_t row_floats) override;

 private:
  BufferView view_;
};

class BufferRectSink : public edgewise::RectSink {
 public:
  explicit BufferRectSink(const BufferView& view) : view_(view) {}
  void write(const edgewise::PixelRect& rect, const float* src, size_t row_floats) override;

 private:
  BufferView view_;
};

}  // namespace edgewise_gegl
