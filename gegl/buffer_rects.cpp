#include "buffer_rects.h"

namespace edgewise_gegl {

void BufferRectSource::read(const edgewise::PixelRect& rect, float* dst, size_t row_floats) {
  const GeglRectangle area = {view_.origin_x + rect.x, view_.origin_y + rect.y, rect.width, rect.height};
  gegl_buffer_get(view_.buffer, &area, 1.0 / double(1 << view_.level), view_.format, dst,
                  gint(row_floats * sizeof(float)), GEGL_ABYSS_CLAMP);
}

void NodeRectSource::read(const edgewise::PixelRect& rect, float* dst, size_t row_floats) {
  const GeglRectangle area = {origin_x_ + rect.x, origin_y_ + rect.y, rect.width, rect.height};
  gegl_node_blit(node_, 1.0 / double(1 << level_), &area, format_, dst, gint(row_floats * sizeof(float)),
                 GEGL_BLIT_DEFAULT);
}

void BufferRectSink::write(const edgewise::PixelRect& rect, const float* src, size_t row_floats) {
  const GeglRectangle area = {view_.origin_x + rect.x, view_.origin_y + rect.y, rect.width, rect.height};
  gegl_buffer_set(view_.buffer, &area, view_.level, view_.format, src, gint(row_floats * sizeof(float)));
}

}  // namespace edgewise_gegl
