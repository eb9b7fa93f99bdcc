#include "denoise_net.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace edgewise {

namespace {

constexpr int kMaxChannels = 4096;
constexpr int kMaxKernel = 7;
constexpr int kMaxFactor = 4;
constexpr int kMaxDepth = 16;
constexpr int kMaxAlign = 256;

int round_up16(int channels) { return (channels + 15) / 16 * 16; }

struct Shape {
  int channels, scale;
  bool operator==(const Shape& o) const { return channels == o.channels && scale == o.scale; }
};

// Follows the program's shapes: what keeps it from running, or "".
// align, map_channels and map_resolution are set on the way.
std::string program_problem(const NoiseNet& net, int& align, int& map_channels, int& map_resolution) {
  const auto& layers = net.layers;
  if (layers.empty()) return "it has no layers";
  Shape shape{3, 1};
  std::vector<Shape> saved;
  align = 1;
  map_channels = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const NoiseNetLayer& layer = layers[i];
    const std::string name = "layer " + std::to_string(i + 1);
    const std::string has = " (" + std::to_string(shape.channels) + " channels at 1/" + std::to_string(shape.scale) + ")";
    switch (layer.op) {
      case NetOp::unshuffle:
      case NetOp::shuffle: {
        const int f = layer.factor;
        if (f < 2 || f > kMaxFactor) return name + "'s factor is " + std::to_string(f) + " (2 to 4)";
        if (layer.op == NetOp::unshuffle) {
          if (int64_t(shape.channels) * f * f > kMaxChannels) return name + " makes more than 4096 channels";
          shape = {shape.channels * f * f, shape.scale * f};
          if (shape.scale > kMaxAlign) return name + " shrinks a tile by more than " + std::to_string(kMaxAlign);
          align = std::max(align, shape.scale);
        } else {
          if (shape.channels % (f * f) != 0 || shape.scale % f != 0) return name + " cannot shuffle" + has;
          shape = {shape.channels / (f * f), shape.scale / f};
        }
        break;
      }
      case NetOp::map:
        if (map_channels) return name + " is a second map step";
        if (layer.factor > 64) return name + " takes " + std::to_string(layer.factor) + " map channels (at most 64)";
        map_channels = layer.factor;
        map_resolution = shape.scale;
        shape.channels += layer.factor;
        if (shape.channels > kMaxChannels) return name + " makes more than 4096 channels";
        break;
      case NetOp::conv:
        if (layer.in != shape.channels)
          return name + " takes " + std::to_string(layer.in) + " channels where the program has " +
                 std::to_string(shape.channels);
        if (layer.out < 1 || layer.out > kMaxChannels)
          return name + " gives " + std::to_string(layer.out) + " channels (1 to 4096)";
        if (layer.kernel < 1 || layer.kernel > kMaxKernel || layer.kernel % 2 == 0)
          return name + "'s kernel is " + std::to_string(layer.kernel) + " (an odd size from 1 to 7)";
        if (layer.stride != 1) return name + "'s stride is " + std::to_string(layer.stride) + " (the denoiser's are 1)";
        shape.channels = layer.out;
        break;
      case NetOp::save:
        if (saved.size() == kMaxDepth) return name + " saves more than 16 tensors";
        saved.push_back(shape);
        break;
      case NetOp::add:
        if (saved.empty()) return name + " adds with nothing saved";
        if (!(saved.back() == shape))
          return name + " adds " + std::to_string(saved.back().channels) + " channels at 1/" +
                 std::to_string(saved.back().scale) + " to" + has;
        saved.pop_back();
        break;
      case NetOp::residual:
        if (!(shape == Shape{3, 1})) return name + " adds the input image to" + has;
        if (i + 1 != layers.size()) return name + ", the residual, is not the last step";
        break;
    }
  }
  if (!saved.empty()) return std::to_string(saved.size()) + " saved tensors are never added";
  if (!(shape == Shape{3, 1}))
    return "it ends with " + std::to_string(shape.channels) + " channels at 1/" + std::to_string(shape.scale) +
           ", not R'G'B' at full resolution";
  if (!map_channels) return "it has no map step (the denoiser reads the noise map)";
  if (net.outputs != 3 || net.output_names.size() != 3) return "it does not name 3 outputs";
  if (net.tile < align || net.tile % align != 0)
    return "its tile is " + std::to_string(net.tile) + ", not a positive multiple of " + std::to_string(align);
  return "";
}

std::string denoiser_problem(const NoiseNet& net, bool weights) {
  int align, channels, resolution;
  std::string problem = program_problem(net, align, channels, resolution);
  if (problem.empty() && weights) problem = weights_problem(net);
  return problem;
}

void pack_denoiser(NoiseNet& net) {
  int align = 1, channels = 0, resolution = 1;
  program_problem(net, align, channels, resolution);
  net.cell = align;
  for (NoiseNetLayer& layer : net.layers)
    if (layer.op == NetOp::conv) pack_conv(layer, round_up16(layer.in));
}

const std::string* info(const NoiseNet& net, const char* key) {
  for (const auto& [k, v] : net.info)
    if (k == key) return &v;
  return nullptr;
}

DenoiseNet finish(NoiseNet net, const std::string& name) {
  auto fail = [&](const std::string& what) { return NoiseNetError(name + " " + what); };
  DenoiseNet d;
  program_problem(net, d.align, d.map_channels, d.map_resolution);
  auto number = [&](const char* key, double& value) {
    const std::string* text = info(net, key);
    if (!text) throw fail(std::string("has no \"") + key + "\" line in its header");
    char* end = nullptr;
    value = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || !std::isfinite(value))
      throw fail(std::string("has a \"") + key + "\" that is not a number: " + *text);
  };
  double cell = 0;
  number("map-offset", d.map_offset);
  number("map-scale", d.map_scale);
  number("map-cell", cell);
  if (cell < 1 || cell > 64 || cell != std::floor(cell)) throw fail("has a map cell that is not 1 to 64 pixels");
  d.map_cell = int(cell);
  const std::string* sha = info(net, "noise-net");
  if (!sha || sha->size() != 64) throw fail("does not name its noise-map network (a \"noise-net SHA256\" line)");
  d.noise_net_sha256 = *sha;
  d.net = std::move(net);
  return d;
}

}  // namespace

const NetKind kDenoiserKind = {kDenoiseNetModel, kDenoiseNetVersion, "the learned denoiser", denoiser_problem,
                               pack_denoiser};

DenoiseNet parse_denoise_net(const std::vector<uint8_t>& bytes, const std::string& name) {
  return finish(parse_network(bytes, name, kDenoiserKind), name);
}

DenoiseNet load_denoise_net(const std::string& path) { return finish(load_network(path, kDenoiserKind), path); }

DenoiseNet prepare_denoise_net(NoiseNet net) {
  const std::string problem = denoiser_problem(net, true);
  if (!problem.empty()) throw NoiseNetError("the denoiser cannot run: " + problem);
  pack_denoiser(net);
  return finish(std::move(net), "the denoiser");
}

int64_t denoise_net_macs(const DenoiseNet& d, int width, int height) {
  int64_t macs = 0;
  int scale = 1;
  for (const NoiseNetLayer& layer : d.net.layers) {
    if (layer.op == NetOp::unshuffle) scale *= layer.factor;
    if (layer.op == NetOp::shuffle) scale /= layer.factor;
    if (layer.op == NetOp::conv)
      macs += int64_t(width / scale) * (height / scale) * layer.in * layer.out * layer.kernel * layer.kernel;
  }
  return macs;
}

}  // namespace edgewise
