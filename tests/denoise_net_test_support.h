// Random learned-denoiser networks for the tests: the program of
// training/denoise_net.py at any widths, He-scaled random weights, the
// double reference's steps (and, through net_isas.h, the instruction sets).
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "denoise_net.h"
#include "net_isas.h"
#include "reference/denoise_net_reference.h"

namespace edgewise_test {

using namespace edgewise;

// The program of training/denoise_net.py's _program: widths at 1/2, 1/4
// and 1/8, convolutions per level, the map's channels, the kernel of the
// levels' convolutions.
struct Spec {
  int w0, w1, w2, d0, d1, d2, map, kernel;
};
inline const Spec kV1 = {64, 128, 256, 2, 2, 3, 18, 3};
inline const Spec kSmall = {8, 16, 24, 1, 1, 1, 5, 3};
// Widths no multiple of 16 (padded channels everywhere), a 5 x 5 kernel.
inline const Spec kOdd = {12, 20, 36, 1, 2, 1, 7, 5};

inline NoiseNetLayer conv_layer(int in, int out, int kernel, bool relu) {
  NoiseNetLayer l;
  l.in = in;
  l.out = out;
  l.kernel = kernel;
  l.relu = relu;
  return l;
}

inline NoiseNetLayer step(NetOp op, int factor = 0) {
  NoiseNetLayer l;
  l.op = op;
  l.factor = factor;
  return l;
}

inline std::vector<NoiseNetLayer> program(const Spec& s) {
  std::vector<NoiseNetLayer> p = {step(NetOp::unshuffle, 2), step(NetOp::map, s.map),
                                  conv_layer(12 + s.map, s.w0, s.kernel, true)};
  for (int i = 1; i < s.d0; ++i) p.push_back(conv_layer(s.w0, s.w0, s.kernel, true));
  p.insert(p.end(), {step(NetOp::save), step(NetOp::unshuffle, 2), conv_layer(4 * s.w0, s.w1, 1, true)});
  for (int i = 0; i < s.d1; ++i) p.push_back(conv_layer(s.w1, s.w1, s.kernel, true));
  p.insert(p.end(), {step(NetOp::save), step(NetOp::unshuffle, 2), conv_layer(4 * s.w1, s.w2, 1, true)});
  for (int i = 0; i < s.d2; ++i) p.push_back(conv_layer(s.w2, s.w2, s.kernel, true));
  p.insert(p.end(), {conv_layer(s.w2, 4 * s.w1, 1, false), step(NetOp::shuffle, 2), step(NetOp::add)});
  for (int i = 0; i < s.d1; ++i) p.push_back(conv_layer(s.w1, s.w1, s.kernel, true));
  p.insert(p.end(), {conv_layer(s.w1, 4 * s.w0, 1, false), step(NetOp::shuffle, 2), step(NetOp::add)});
  for (int i = 1; i < s.d0; ++i) p.push_back(conv_layer(s.w0, s.w0, s.kernel, true));
  p.insert(p.end(), {conv_layer(s.w0, 12, s.kernel, false), step(NetOp::shuffle, 2), step(NetOp::residual)});
  return p;
}

// The layers, unprepared, with He-scaled random weights (variance 2 /
// fan-in) so activations stay of order 1, biases in +-0.1, and the header
// lines the denoiser needs.
inline NoiseNet random_file(const Spec& s, std::mt19937_64& rng) {
  NoiseNet net;
  net.model = kDenoiseNetModel;
  net.version = kDenoiseNetVersion;
  net.tile = 128;
  net.outputs = 3;
  net.output_names = {"R", "G", "B"};
  net.layers = program(s);
  for (NoiseNetLayer& l : net.layers) {
    if (l.op != NetOp::conv) continue;
    const double bound = std::sqrt(6.0 / (l.in * l.kernel * l.kernel));
    std::uniform_real_distribution<float> weight(float(-bound), float(bound)), bias(-0.1f, 0.1f);
    for (int i = 0; i < l.out * l.in * l.kernel * l.kernel; ++i) l.weights.push_back(weight(rng));
    for (int i = 0; i < l.out; ++i) l.bias.push_back(bias(rng));
  }
  net.info = {{"map-offset", "3"}, {"map-scale", "0.333333"}, {"map-cell", "8"}, {"noise-net", std::string(64, 'a')}};
  return net;
}

inline std::vector<edgewise_reference::NetStep> reference_steps(const NoiseNet& net) {
  std::vector<edgewise_reference::NetStep> steps;
  for (const NoiseNetLayer& l : net.layers) {
    edgewise_reference::NetStep s;
    s.factor = l.factor;
    switch (l.op) {
      case NetOp::conv:
        s.kind = edgewise_reference::NetStep::conv;
        s.layer.in = l.in;
        s.layer.out = l.out;
        s.layer.kernel = l.kernel;
        s.layer.stride = l.stride;
        s.layer.relu = l.relu;
        s.layer.weights.assign(l.weights.begin(), l.weights.end());
        s.layer.bias.assign(l.bias.begin(), l.bias.end());
        break;
      case NetOp::unshuffle:
        s.kind = edgewise_reference::NetStep::unshuffle;
        break;
      case NetOp::shuffle:
        s.kind = edgewise_reference::NetStep::shuffle;
        break;
      case NetOp::map:
        s.kind = edgewise_reference::NetStep::map;
        break;
      case NetOp::save:
        s.kind = edgewise_reference::NetStep::save;
        break;
      case NetOp::add:
        s.kind = edgewise_reference::NetStep::add;
        break;
      case NetOp::residual:
        s.kind = edgewise_reference::NetStep::residual;
        break;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace edgewise_test
