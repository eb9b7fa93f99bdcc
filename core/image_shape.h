// The size of an image as the engine sees it.
#pragma once

namespace edgewise {

struct ImageShape {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
};

inline bool has_alpha(const ImageShape& shape) { return shape.channels == 2 || shape.channels == 4; }
inline int color_channels(const ImageShape& shape) { return shape.channels >= 3 ? 3 : 1; }

}  // namespace edgewise
