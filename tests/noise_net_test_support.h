// The noise network's layers as the double reference takes them
// (tests/reference/noise_net_reference.h).
#pragma once

#include <vector>

#include "noise_net.h"
#include "reference/noise_net_reference.h"

namespace edgewise_test {

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
