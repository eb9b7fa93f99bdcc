#include "drawable_io.h"

#include <algorithm>

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

GeglRowSource::GeglRowSource(GeglBuffer* buffer, const GeglRectangle& region, int channels)
    : buffer_(buffer), region_(region), format_(float_format(channels)) {}

void GeglRowSource::read_rows(int y, int rows, float* dst) {
  const GeglRectangle rect = {region_.x, region_.y + y, region_.width, rows};
  gegl_buffer_get(buffer_, &rect, 1.0, format_, dst, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_CLAMP);
}

GeglRowSink::GeglRowSink(GeglBuffer* buffer, const GeglRectangle& region, const GeglRectangle& keep, int channels)
    : buffer_(buffer), region_(region), keep_(keep), channels_(channels), format_(float_format(channels)) {}

void GeglRowSink::write_rows(int y, int rows, const float* src) {
  const int top = std::max(region_.y + y, keep_.y);
  const int bottom = std::min(region_.y + y + rows, keep_.y + keep_.height);
  if (top < bottom) {
    const int row_floats = region_.width * channels_;
    const float* first = src + size_t(top - region_.y - y) * row_floats + size_t(keep_.x - region_.x) * channels_;
    const GeglRectangle rect = {keep_.x, top, keep_.width, bottom - top};
    gegl_buffer_set(buffer_, &rect, 0, format_, first, int(row_floats * sizeof(float)));
  }
}

}  // namespace edgewise_plugin
