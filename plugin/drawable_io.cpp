#include "drawable_io.h"

namespace edgewise_plugin {

const Babl* float_format(int channels) {
  switch (channels) {
    case 1:
      return babl_format("Y' float");
    case 2:
      return babl_format("Y'A float");
    case 3:
      return babl_format("R'G'B' float");
    default:
      return babl_format("R'G'B'A float");
  }
}

edgewise::ImageShape drawable_shape(gint32 drawable) {
  return {gimp_drawable_width(drawable), gimp_drawable_height(drawable),
          (gimp_drawable_is_gray(drawable) ? 1 : 3) + (gimp_drawable_has_alpha(drawable) ? 1 : 0)};
}

edgewise_gegl::BufferView drawable_view(GeglBuffer* buffer, int channels) {
  edgewise_gegl::BufferView view;
  view.buffer = buffer;
  view.format = float_format(channels);
  return view;  // the drawable's (0, 0) at the buffer's, level 0
}

}  // namespace edgewise_plugin
