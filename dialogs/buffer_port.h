// An ImagePort over a whole image in memory (the CLI's decoded file, the
// benchmark's and tests' images). Scaled reads average boxes of pixels.
#pragma once

#include "image_buffer.h"
#include "image_port.h"

namespace edgewise_dialog {

class BufferPort : public ImagePort {
 public:
  explicit BufferPort(const edgewise::ImageBuffer& image) : image_(image) {}
  edgewise::ImageShape shape() const override { return image_.shape; }
  void read(const Rect& rect, double scale, float* dst) override;

 private:
  float sample(int x, int y, int c) const;  // clamped to the image
  edgewise::ImageBuffer image_;
};

}  // namespace edgewise_dialog
