#include "image_buffer.h"

#include <cstring>

namespace edgewise {

namespace {

template <class T>
void row_to_float(const unsigned char* row, size_t samples, float* dst) {
  const T* src = reinterpret_cast<const T*>(row);
  for (size_t i = 0; i < samples; ++i) dst[i] = sample_to_float(src[i]);
}

}  // namespace

void BufferSource::read_rows(int y, int rows, float* dst) {
  const size_t samples = size_t(buffer_.shape.width) * size_t(buffer_.shape.channels);
  for (int i = 0; i < rows; ++i, dst += samples) {
    const unsigned char* row = buffer_.row(y + i);
    switch (buffer_.type) {
      case SampleType::u8: row_to_float<uint8_t>(row, samples, dst); break;
      case SampleType::u16: row_to_float<uint16_t>(row, samples, dst); break;
      case SampleType::f32: std::memcpy(dst, row, samples * sizeof(float)); break;
    }
  }
}

void BufferSink::write_rows(int y, int rows, const float* src) {
  const size_t samples = size_t(buffer_.shape.width) * size_t(buffer_.shape.channels);
  for (int i = 0; i < rows; ++i, src += samples) {
    unsigned char* row = buffer_.row(y + i);
    switch (buffer_.type) {
      case SampleType::u8:
        for (size_t s = 0; s < samples; ++s) row[s] = float_to_u8(src[s]);
        break;
      case SampleType::u16: {
        uint16_t* out = reinterpret_cast<uint16_t*>(row);
        for (size_t s = 0; s < samples; ++s) out[s] = float_to_u16(src[s]);
        break;
      }
      case SampleType::f32: std::memcpy(row, src, samples * sizeof(float)); break;
    }
  }
}

}  // namespace edgewise
