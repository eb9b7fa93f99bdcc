// An interleaved float image in memory that is both a source and a sink:
// the intermediate between iterations, and a convenience for tests.
#pragma once

#include <cstring>
#include <vector>

#include "image_shape.h"
#include "pixel_stream.h"

namespace edgewise {

class FloatImage : public PixelSource, public PixelSink {
 public:
  FloatImage() = default;
  explicit FloatImage(const ImageShape& shape)
      : shape_(shape), pixels_(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels)) {}

  void read_rows(int y, int rows, float* dst) override {
    std::memcpy(dst, pixels_.data() + offset(y), size_t(rows) * row_floats() * sizeof(float));
  }
  void write_rows(int y, int rows, const float* src) override {
    std::memcpy(pixels_.data() + offset(y), src, size_t(rows) * row_floats() * sizeof(float));
  }

  const ImageShape& shape() const { return shape_; }
  std::vector<float>& pixels() { return pixels_; }
  const std::vector<float>& pixels() const { return pixels_; }
  float& at(int x, int y, int c) { return pixels_[offset(y) + size_t(x) * size_t(shape_.channels) + size_t(c)]; }
  float at(int x, int y, int c) const { return pixels_[offset(y) + size_t(x) * size_t(shape_.channels) + size_t(c)]; }

 private:
  size_t row_floats() const { return size_t(shape_.width) * size_t(shape_.channels); }
  size_t offset(int y) const { return size_t(y) * row_floats(); }

  ImageShape shape_;
  std::vector<float> pixels_;
};

}  // namespace edgewise
