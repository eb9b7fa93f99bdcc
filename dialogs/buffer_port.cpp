#include "buffer_port.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

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
    for (int y = rect.y; y < rect.bottom(); ++y)
      for (int x = rect.x; x < rect.right(); ++x)
        for (int c = 0; c < channels; ++c) *dst++ = sample(x, y, c);
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
