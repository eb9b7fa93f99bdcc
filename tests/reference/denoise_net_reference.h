// The learned denoiser's forward pass (core/denoise_net.h) written the
// naive way in double precision, independently of core/: the program's
// steps on NCHW planes, convolutions by noise_net_reference's rules (zero
// padding k / 2, bias, stride 1), PyTorch's pixel_unshuffle and
// pixel_shuffle orders, the map appended after the image's channels.
#pragma once

#include <vector>

#include "noise_net_reference.h"

namespace edgewise_reference {

struct NetStep {
  enum Kind { conv, unshuffle, shuffle, map, save, add, residual } kind = conv;
  int factor = 0;  // unshuffle, shuffle: the factor; map: its channels
  ConvLayer layer;  // conv
};

// width x height interleaved R'G'B' samples (0..1) and the map (its
// channels interleaved, at the resolution the map step sees) through the
// program: width x height x 3 outputs.
std::vector<double> denoise_net_reference(const std::vector<NetStep>& steps, const std::vector<double>& rgb,
                                          const std::vector<double>& map, int width, int height);

}  // namespace edgewise_reference
