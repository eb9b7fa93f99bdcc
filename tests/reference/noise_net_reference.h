// The noise network's forward pass (core/noise_net.h) written the naive way
// in double precision, independently of core/: PyTorch's Conv2d (zero
// padding k / 2, bias, NCHW, weights [out][in][ky][kx]) as seven loops, ReLU
// after the layers that have it, the input taken as sample - 0.5.
#pragma once

#include <vector>

namespace edgewise_reference {

struct ConvLayer {
  int in = 0, out = 0, kernel = 1, stride = 1;
  bool relu = false;
  std::vector<double> weights;  // [out][in][ky][kx]
  std::vector<double> bias;     // [out]
};

// A size x size tile of interleaved R'G'B' samples through `layers`: the
// last layer's output, pixel by pixel (row-major), its channels together.
std::vector<double> noise_net_reference(const std::vector<ConvLayer>& layers, const std::vector<double>& tile_rgb,
                                        int size);

}  // namespace edgewise_reference
