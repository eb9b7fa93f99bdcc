#include "drawable_port.h"

#include "drawable_io.h"

namespace edgewise_plugin {

DrawablePort::DrawablePort(gint32 drawable) : buffer_(gimp_drawable_get_buffer(drawable)) {
  shape_ = drawable_shape(drawable);
  edgewise_dialog::Rect selection;
  if (gimp_drawable_mask_intersect(drawable, &selection.x, &selection.y, &selection.width, &selection.height))
    affected_ = selection;
  else
    affected_ = {0, 0, 0, 0};  // the selection misses this drawable: the filter changes nothing
}

DrawablePort::~DrawablePort() { g_object_unref(buffer_); }

void DrawablePort::read(const edgewise_dialog::Rect& rect, double scale, float* dst) {
  const GeglRectangle area = {rect.x, rect.y, rect.width, rect.height};
  gegl_buffer_get(buffer_, &area, scale, float_format(shape_.channels), dst, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_CLAMP);
}

}  // namespace edgewise_plugin
