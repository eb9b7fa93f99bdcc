// The learned denoiser's forward pass on the CPU (denoise_net.h), one tile
// on one thread. Every tensor is HWC with its channels padded to 16 (zeros)
// and a zero border of the widest kernel's half, so that each convolution
// runs the noise network's kernels (nn_conv.h) unchanged. Buffers come from
// the scratch's pool: a step writes a free one and frees its input, a saved
// tensor stays taken until its add, so a U-Net of three scales holds at
// most five at once.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "denoise_net.h"
#include "nn_conv.h"

namespace edgewise {

namespace {

int round_up16(int channels) { return (channels + 15) / 16 * 16; }

struct Tensor {
  int buffer = -1;  // in the pool
  int width = 0, height = 0, channels = 0, stride = 0, border = 0;
  float* data = nullptr;  // the padded origin
  size_t row() const { return size_t(width + 2 * border) * size_t(stride); }
  float* at(int x, int y) const { return data + size_t(y + border) * row() + size_t(x + border) * size_t(stride); }
};

class Pool {
 public:
  explicit Pool(DenoiseNetScratch& scratch) : scratch_(scratch) {}
  Tensor take(int width, int height, int channels, int border) {
    Tensor t;
    t.width = width;
    t.height = height;
    t.channels = channels;
    t.stride = round_up16(channels);
    t.border = border;
    const size_t floats = size_t(width + 2 * border) * size_t(height + 2 * border) * size_t(t.stride) + 16;
    for (size_t i = 0; i < busy_.size() || i < scratch_.buffers.size(); ++i) {
      if (i >= busy_.size()) busy_.push_back(false);
      if (i >= scratch_.buffers.size()) scratch_.buffers.emplace_back();
      if (busy_[i]) continue;
      busy_[i] = true;
      t.buffer = int(i);
      break;
    }
    if (t.buffer < 0) {
      scratch_.buffers.emplace_back();
      busy_.push_back(true);
      t.buffer = int(scratch_.buffers.size() - 1);
    }
    std::vector<float>& buffer = scratch_.buffers[size_t(t.buffer)];
    if (buffer.size() < floats) buffer.resize(floats);
    // On a 64-byte line.
    const auto address = reinterpret_cast<uintptr_t>(buffer.data());
    t.data = buffer.data() + ((64 - address % 64) % 64) / sizeof(float);
    zero_border(t);
    return t;
  }
  void give(const Tensor& t) { busy_[size_t(t.buffer)] = false; }

 private:
  static void zero_border(const Tensor& t) {
    if (t.border == 0) return;
    const size_t row = t.row();
    std::fill(t.data, t.data + row * size_t(t.border), 0.0f);
    std::fill(t.data + row * size_t(t.border + t.height), t.data + row * size_t(t.height + 2 * t.border), 0.0f);
    for (int y = 0; y < t.height; ++y) {
      float* line = t.data + row * size_t(y + t.border);
      std::fill(line, line + size_t(t.border) * size_t(t.stride), 0.0f);
      std::fill(line + size_t(t.border + t.width) * size_t(t.stride), line + row, 0.0f);
    }
  }
  DenoiseNetScratch& scratch_;
  std::vector<bool> busy_;
};

}  // namespace

void denoise_net_forward(const DenoiseNet& d, const float* rgb, const float* map, int width, int height, float* out,
                         DenoiseNetScratch& scratch) {
  if (width < 1 || height < 1 || width % d.align != 0 || height % d.align != 0)
    throw std::invalid_argument("denoise_net_forward: a tile of " + std::to_string(width) + " x " +
                                std::to_string(height) + " is not a multiple of the network's " +
                                std::to_string(d.align) + " pixels");
  int border = 0;
  for (const NoiseNetLayer& layer : d.net.layers) {
    if (layer.op != NetOp::conv) continue;
    if (layer.packed_bias.size() != size_t(round_up16(layer.out)))
      throw std::invalid_argument("denoise_net_forward: the network is not prepared (prepare_denoise_net)");
    border = std::max(border, layer.kernel / 2);
  }
  const NoiseNetIsa isa = nn_resolve_isa(scratch.isa);
  Pool pool(scratch);
  Tensor x = pool.take(width, height, 3, border);
  for (int y = 0; y < height; ++y)
    for (int i = 0; i < width; ++i)
      for (int c = 0; c < 3; ++c) x.at(i, y)[c] = rgb[(size_t(y) * size_t(width) + size_t(i)) * 3 + size_t(c)] - 0.5f;
  std::vector<Tensor> saved;
  for (const NoiseNetLayer& layer : d.net.layers) {
    switch (layer.op) {
      case NetOp::unshuffle: {
        const int f = layer.factor;
        Tensor next = pool.take(x.width / f, x.height / f, x.channels * f * f, border);
        for (int y = 0; y < next.height; ++y)
          for (int i = 0; i < next.width; ++i) {
            float* to = next.at(i, y);
            std::fill(to, to + next.stride, 0.0f);
            for (int dy = 0; dy < f; ++dy)
              for (int dx = 0; dx < f; ++dx) {
                const float* from = x.at(i * f + dx, y * f + dy);
                for (int c = 0; c < x.channels; ++c) to[(c * f + dy) * f + dx] = from[c];
              }
          }
        pool.give(x);
        x = next;
        break;
      }
      case NetOp::shuffle: {
        const int f = layer.factor;
        Tensor next = pool.take(x.width * f, x.height * f, x.channels / (f * f), border);
        for (int y = 0; y < x.height; ++y)
          for (int i = 0; i < x.width; ++i) {
            const float* from = x.at(i, y);
            for (int dy = 0; dy < f; ++dy)
              for (int dx = 0; dx < f; ++dx) {
                float* to = next.at(i * f + dx, y * f + dy);
                std::fill(to, to + next.stride, 0.0f);
                for (int c = 0; c < next.channels; ++c) to[c] = from[(c * f + dy) * f + dx];
              }
          }
        pool.give(x);
        x = next;
        break;
      }
      case NetOp::map: {
        Tensor next = pool.take(x.width, x.height, x.channels + layer.factor, border);
        for (int y = 0; y < x.height; ++y)
          for (int i = 0; i < x.width; ++i) {
            float* to = next.at(i, y);
            std::fill(to, to + next.stride, 0.0f);
            std::memcpy(to, x.at(i, y), size_t(x.channels) * sizeof(float));
            std::memcpy(to + x.channels, map + (size_t(y) * size_t(x.width) + size_t(i)) * size_t(layer.factor),
                        size_t(layer.factor) * sizeof(float));
          }
        pool.give(x);
        x = next;
        break;
      }
      case NetOp::conv: {
        Tensor next = pool.take(x.width, x.height, layer.out, border);
        ConvArgs a;
        a.in = x.data + size_t(border - layer.kernel / 2) * x.row() + size_t(border - layer.kernel / 2) * size_t(x.stride);
        a.in_row = x.row();
        a.in_stride = x.stride;
        a.out = next.at(0, 0);
        a.out_row = next.row();
        a.out_stride = next.stride;
        a.width = next.width;
        a.height = next.height;
        a.weights = layer.packed_weights.data();
        a.bias = layer.packed_bias.data();
        a.kernel = layer.kernel;
        a.step = 1;
        a.relu = layer.relu;
        nn_conv(isa, a);
        pool.give(x);
        x = next;
        break;
      }
      case NetOp::save:
        saved.push_back(x);
        x = pool.take(x.width, x.height, x.channels, border);
        for (int y = 0; y < x.height; ++y)
          std::memcpy(x.at(0, y), saved.back().at(0, y), size_t(x.width) * size_t(x.stride) * sizeof(float));
        break;
      case NetOp::add: {
        const Tensor skip = saved.back();
        saved.pop_back();
        for (int y = 0; y < x.height; ++y) {
          float* to = x.at(0, y);
          const float* from = skip.at(0, y);
          for (size_t j = 0; j < size_t(x.width) * size_t(x.stride); ++j) to[j] += from[j];
        }
        pool.give(skip);
        break;
      }
      case NetOp::residual:
        break;  // below, where the output is written
    }
  }
  const bool residual = !d.net.layers.empty() && d.net.layers.back().op == NetOp::residual;
  for (int y = 0; y < height; ++y)
    for (int i = 0; i < width; ++i)
      for (int c = 0; c < 3; ++c) {
        const size_t k = (size_t(y) * size_t(width) + size_t(i)) * 3 + size_t(c);
        out[k] = x.at(i, y)[c] + (residual ? rgb[k] : 0.0f);
      }
  pool.give(x);
}

}  // namespace edgewise
