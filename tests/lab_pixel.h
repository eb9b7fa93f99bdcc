// One pixel of an interleaved RGB float image in L*a*b* (the pyramid's lab
// strength tests, CPU and GPU).
#pragma once

#include "color_lab.h"
#include "float_image.h"

namespace edgewise_test {

inline void lab_pixel(const edgewise::FloatImage& image, int x, int y, float out[3]) {
  const float* px = &image.pixels()[(size_t(y) * size_t(image.shape().width) + size_t(x)) * 3];
  edgewise::rgb_to_lab(px[0], px[1], px[2], out[0], out[1], out[2]);
}

}  // namespace edgewise_test
