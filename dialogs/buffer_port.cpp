#include "buffer_port.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace edgewise_dialog {

float BufferPort::sample(int x, int y, int c) const {
  const int channels = image_.shape.channels;
  x = std::clamp(x, 0, image_.shape.width - 1);
  y = std::clamp(y, 0, image_.shape.height - 1);
  const size_t at = size_t(x) * size_t(channels) + size_t(c);
  const unsigned char* row = image_.row(y);
  switch (image_.type) {
    case edgewise::SampleType::u8:
      return edgewise::sample_to_float(row[at]);
    case edgewise::SampleType::u16:
      return edgewise::sample_to_float(reinterpret_cast<const uint16_t*>(row)[at]);
    default:
      return reinterpret_cast<const float*>(row)[at];
  }
}

void BufferPort::read(const Rect& rect, double scale, float* dst) {
  const int channels = image_.shape.channels;
  if (scale >= 1.0) {
    // The columns the rectangle touches, clamped, converted a row at a time
    // by core's own BufferSource over a view of just those columns; edge
    // columns are then repeated where the rectangle leaves the image.
    const int width = image_.shape.width, last = width - 1;
    const int first = std::clamp(rect.x, 0, last), end = std::clamp(rect.right() - 1, 0, last) + 1;
    edgewise::ImageBuffer columns = image_;
    columns.data = image_.row(0) + size_t(first) * size_t(channels) * size_t(edgewise::sample_bytes(image_.type));
    columns.shape.width = end - first;
    columns.row_bytes = image_.stride();
    edgewise::BufferSource source(columns);
    std::vector<float> row(size_t(end - first) * size_t(channels));
    for (int y = rect.y; y < rect.bottom(); ++y) {
      source.read_rows(std::clamp(y, 0, image_.shape.height - 1), 1, row.data());
      for (int x = rect.x; x < rect.right(); ++x, dst += channels)
        std::copy_n(row.data() + size_t(std::clamp(x, 0, last) - first) * size_t(channels), channels, dst);
    }
    return;
  }
  // Scaled pixel X covers source columns [X/scale, (X+1)/scale).
  const auto span = [scale](int scaled, int& first, int& last) {
    first = int(std::floor(scaled / scale));
    last = std::max(first + 1, int(std::floor((scaled + 1) / scale)));
  };
  for (int y = rect.y; y < rect.bottom(); ++y) {
    int y0, y1;
    span(y, y0, y1);
    for (int x = rect.x; x < rect.right(); ++x) {
      int x0, x1;
      span(x, x0, x1);
      const float count = float((y1 - y0) * (x1 - x0));
      for (int c = 0; c < channels; ++c) {
        float sum = 0;
        for (int sy = y0; sy < y1; ++sy)
          for (int sx = x0; sx < x1; ++sx) sum += sample(sx, sy, c);
        *dst++ = sum / count;
      }
    }
  }
}

}  // namespace edgewise_dialog
