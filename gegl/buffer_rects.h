// The region job's pixels in GeglBuffers (core/region_job.h): image
// coordinates (origin at the input's bounding box, at the mipmap level GEGL
// renders) to the buffer's, in the float format the operation chose in
// prepare(). The plug-in reads and writes its drawables through them too
// (plugin/drawable_io.h: origin 0, level 0).
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

// The image as the node that feeds the operation renders it, read straight
// from that node rather than from the buffer a process() call is given:
// that buffer holds what GEGL computed for the region asked for, not
// necessarily the rest of the input.
class NodeRectSource : public edgewise::RectSource {
 public:
  NodeRectSource(GeglNode* node, const Babl* format, int origin_x, int origin_y, int level)
      : node_(node), format_(format), origin_x_(origin_x), origin_y_(origin_y), level_(level) {}
  void read(const edgewise::PixelRect& rect, float* dst, size_t row_floats) override;

 private:
  GeglNode* node_;
  const Babl* format_;
  int origin_x_, origin_y_;  // the image's (0, 0), at `level`
  int level_;
};

class BufferRectSink : public edgewise::RectSink {
 public:
  explicit BufferRectSink(const BufferView& view) : view_(view) {}
  void write(const edgewise::PixelRect& rect, const float* src, size_t row_floats) override;

 private:
  BufferView view_;
};

}  // namespace edgewise_gegl
