// A whole image in host memory, interleaved, 8/16-bit or float samples:
// what the CLI decodes into and what a GPU can upload without converting on
// the host. Adapters turn it into the engine's row streams.
#pragma once

#include <cstddef>

#include "image_shape.h"
#include "pixel_stream.h"
#include "sample_convert.h"

namespace edgewise {

struct ImageBuffer {
  void* data = nullptr;
  ImageShape shape;
  SampleType type = SampleType::u8;
  size_t row_bytes = 0;  // 0: tightly packed

  size_t stride() const {
    return row_bytes ? row_bytes : size_t(shape.width) * size_t(shape.channels) * size_t(sample_bytes(type));
  }
  unsigned char* row(int y) const { return static_cast<unsigned char*>(data) + size_t(y) * stride(); }
};

class BufferSource : public PixelSource {
 public:
  explicit BufferSource(const ImageBuffer& buffer) : buffer_(buffer) {}
  void read_rows(int y, int rows, float* dst) override;

 private:
  ImageBuffer buffer_;
};

class BufferSink : public PixelSink {
 public:
  explicit BufferSink(const ImageBuffer& buffer) : buffer_(buffer) {}
  void write_rows(int y, int rows, const float* src) override;

 private:
  ImageBuffer buffer_;
};

}  // namespace edgewise
