#include "buffer_rects.h"

namespace edgewise_gegl {

void BufferRectSource::read(const edgewise::PixelRect& rect, float* dst, size_t row_floats) {
  const GeglRectangle area = {view_.origin_x + rect.x, view_.origin_y + rect.y, rect.width, rect.height};
  gegl_buffer_get(view_.buffer, &area, 1.0 / double(1 << view_.level), view_.format, dst,
                  gint(row_floats * sizeof(float)), GEGL_ABYSS_CLAMP);
}

void BufferRectSink::write(const edgewise::PixelRect& rect, const float* src, size_t row_floats) {
  const GeglRectangle area = {view_.origin_x + rect.x, view_.origin_y + rect.y, rect.width, rect.height};
  gegl_buffer_set(view_.buffer, &area, view_.level, view_.format, src, gint(row_floats * sizeof(float)));
}

}  // namespace edgewise_gegl
