#include "noise_net_reference.h"

#include <algorithm>

namespace edgewise_reference {

std::vector<double> noise_net_reference(const std::vector<ConvLayer>& layers, const std::vector<double>& tile_rgb,
                                        int size) {
  // Planes [channel][y][x].
  int channels = 3, height = size, width = size;
  std::vector<double> planes(size_t(channels) * size_t(height) * size_t(width));
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        planes[(size_t(c) * height + y) * width + x] = tile_rgb[(size_t(y) * width + x) * 3 + c] - 0.5;
  for (const ConvLayer& layer : layers) {
    const int k = layer.kernel, pad = k / 2, s = layer.stride;
    // PyTorch: floor((H + 2 pad - k) / s) + 1.
    const int out_height = (height + 2 * pad - k) / s + 1, out_width = (width + 2 * pad - k) / s + 1;
    std::vector<double> next(size_t(layer.out) * size_t(out_height) * size_t(out_width));
    for (int o = 0; o < layer.out; ++o)
      for (int y = 0; y < out_height; ++y)
        for (int x = 0; x < out_width; ++x) {
          double sum = layer.bias[size_t(o)];
          for (int i = 0; i < layer.in; ++i)
            for (int ky = 0; ky < k; ++ky)
              for (int kx = 0; kx < k; ++kx) {
                const int iy = y * s + ky - pad, ix = x * s + kx - pad;
                if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;  // zero padding
                sum += layer.weights[((size_t(o) * layer.in + i) * k + ky) * k + kx] *
                       planes[(size_t(i) * height + iy) * width + ix];
              }
          next[(size_t(o) * out_height + y) * out_width + x] = layer.relu ? std::max(sum, 0.0) : sum;
        }
    planes.swap(next);
    channels = layer.out;
    height = out_height;
    width = out_width;
  }
  std::vector<double> out(planes.size());
  for (int c = 0; c < channels; ++c)
    for (int p = 0; p < height * width; ++p) out[size_t(p) * channels + c] = planes[size_t(c) * height * width + p];
  return out;
}

}  // namespace edgewise_reference
