// Random noise networks of the training code's architectures, and their
// layers as the double reference takes them
// (tests/reference/noise_net_reference.h).
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "noise_net.h"
#include "reference/noise_net_reference.h"

namespace edgewise_test {

// ---- Networks (their own namespace: the denoiser's support header has
// its own kV1, kSmall and kOdd) ----

namespace noise_nets {

struct Shape {
  int in, out, kernel, stride;
};

// The v1 architecture of the training code.
inline const std::vector<Shape> kV1 = {{3, 16, 3, 1},  {16, 32, 3, 2}, {32, 32, 3, 1}, {32, 48, 3, 2},
                                       {48, 48, 3, 1}, {48, 64, 3, 2}, {64, 64, 3, 1}, {64, 18, 1, 1}};
// Two stride-1 layers (cell 1), one with a 5 x 5 kernel.
inline const std::vector<Shape> kSmall = {{3, 8, 3, 1}, {8, 5, 5, 1}};
// Channel counts that are no multiple of 16, more than 64 outputs (several
// channel ranges), a 5 x 5 kernel with stride 2 and a 1 x 1 one with stride 2.
inline const std::vector<Shape> kOdd = {{3, 20, 5, 2}, {20, 100, 3, 1}, {100, 24, 1, 2}, {24, 7, 3, 1}};

// Random He-scaled weights (variance 2 / fan-in, as PyTorch's
// kaiming_uniform_ with ReLU's gain), so activations stay of order 1
// through the layers; biases in +-0.1.
inline edgewise::NoiseNet random_network(const std::vector<Shape>& shapes, std::mt19937_64& rng, int tile = 64) {
  edgewise::NoiseNet net;
  net.tile = tile;
  net.outputs = shapes.back().out;
  for (int i = 0; i < net.outputs; ++i) net.output_names.push_back("o" + std::to_string(i));
  for (size_t l = 0; l < shapes.size(); ++l) {
    const Shape& s = shapes[l];
    edgewise::NoiseNetLayer layer;
    layer.in = s.in;
    layer.out = s.out;
    layer.kernel = s.kernel;
    layer.stride = s.stride;
    layer.relu = l + 1 < shapes.size();
    const double bound = std::sqrt(6.0 / (s.in * s.kernel * s.kernel));
    std::uniform_real_distribution<float> weight(float(-bound), float(bound)), bias(-0.1f, 0.1f);
    for (int i = 0; i < s.out * s.in * s.kernel * s.kernel; ++i) layer.weights.push_back(weight(rng));
    for (int i = 0; i < s.out; ++i) layer.bias.push_back(bias(rng));
    net.layers.push_back(std::move(layer));
  }
  edgewise::prepare_noise_net(net);
  return net;
}

}  // namespace noise_nets

// ---- The double reference's layers ----

inline std::vector<edgewise_reference::ConvLayer> reference_layers(const edgewise::NoiseNet& net) {
  std::vector<edgewise_reference::ConvLayer> layers;
  for (const edgewise::NoiseNetLayer& layer : net.layers) {
    edgewise_reference::ConvLayer r;
    r.in = layer.in;
    r.out = layer.out;
    r.kernel = layer.kernel;
    r.stride = layer.stride;
    r.relu = layer.relu;
    r.weights.assign(layer.weights.begin(), layer.weights.end());
    r.bias.assign(layer.bias.begin(), layer.bias.end());
    layers.push_back(std::move(r));
  }
  return layers;
}

}  // namespace edgewise_test
