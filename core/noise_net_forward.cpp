// The noise network's forward pass on the CPU (noise_net.h), one tile on
// one thread.
//
// The convolutions are nn_conv_blocks.h's register blocks, one file per
// instruction set built with its flags (core/, picked at run time as
// cpu_fallback's kernels are): AVX-512 with 16-float vectors in 32
// registers, AVX2+FMA with 8 in 16, and baseline SSE2 (no FMA). Block
// shapes keep accumulators, weights and the broadcast in registers; each
// set has a wide and a narrow block, the narrow one taken where it
// computes fewer pixels of a row.
//
// Measured (bench/bench_noise_net_cpu, the v1 network's 29.0 M
// multiply-adds a 64 x 64 tile, one thread, AMD EPYC Zen 4, GCC 12, a quiet
// machine): AVX-512 0.53 ms a tile, 55 GMAC/s (layers 2-7 at 54-56, near
// the 16 multiply-adds a cycle Zen 4 issues; the first layer, 3 inputs,
// 45); AVX2 0.60 ms, 48 GMAC/s; SSE2 1.7 ms, 17 GMAC/s; clang 14 the same.
// Blocks of 6 and 12 pixels (AVX-512) were 1-3 % slower than the 4 and 8
// kept, in interleaved runs; v1's 8-pixel rows took 50 % more time in
// blocks of 6 than of 4. A vector ?: in the ReLU made GCC scalarise it (20 %
// of the time).
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cpu_isa.h"
#include "nn_conv.h"
#include "noise_net.h"

namespace edgewise {

namespace {

int round_up16(int channels) { return (channels + 15) / 16 * 16; }

NoiseNetIsa of(CpuIsa isa) {
  return isa == CpuIsa::avx512 ? NoiseNetIsa::avx512 : isa == CpuIsa::avx2 ? NoiseNetIsa::avx2 : NoiseNetIsa::generic;
}

NoiseNetIsa resolve(NoiseNetIsa asked) {
  static const NoiseNetIsa widest = of(widest_cpu_isa());
  if (asked == NoiseNetIsa::automatic) return noise_net_machine_isa();
  return std::min(asked, widest);
}

void run_layer(NoiseNetIsa isa, const ConvArgs& a) {
#if defined(__x86_64__)
  if (isa == NoiseNetIsa::avx512) return nn_conv_avx512(a);
  if (isa == NoiseNetIsa::avx2) return nn_conv_avx2(a);
#endif
  (void)isa;
  nn_conv_generic(a);
}

// A buffer of (side + 2 border)^2 pixels of `stride` floats: zero its border.
void zero_border(float* buffer, int side, int border, int stride) {
  if (border == 0) return;
  const size_t row = size_t(side + 2 * border) * size_t(stride);
  std::fill(buffer, buffer + row * size_t(border), 0.0f);
  std::fill(buffer + row * size_t(border + side), buffer + row * size_t(side + 2 * border), 0.0f);
  for (int y = border; y < border + side; ++y) {
    float* line = buffer + row * size_t(y);
    std::fill(line, line + size_t(border) * size_t(stride), 0.0f);
    std::fill(line + size_t(border + side) * size_t(stride), line + row, 0.0f);
  }
}

// The buffer's first float on a 64-byte line.
float* aligned(std::vector<float>& buffer) {
  const auto address = reinterpret_cast<uintptr_t>(buffer.data());
  return buffer.data() + ((64 - address % 64) % 64) / sizeof(float);
}

}  // namespace

NoiseNetIsa noise_net_machine_isa() { return of(cpu_isa()); }

void nn_conv(NoiseNetIsa isa, const ConvArgs& a) { run_layer(resolve(isa), a); }

NoiseNetIsa nn_resolve_isa(NoiseNetIsa isa) { return resolve(isa); }

const char* noise_net_isa_name(NoiseNetIsa isa) {
  switch (resolve(isa)) {
    case NoiseNetIsa::avx512:
      return "avx512";
    case NoiseNetIsa::avx2:
      return "avx2";
    default:
      return "generic";
  }
}

void noise_net_forward(const NoiseNet& net, const float* tile_rgb, int size, float* out, NoiseNetScratch& scratch) {
  const size_t count = net.layers.size();
  if (count == 0 || net.outputs != net.layers.back().out)
    throw std::invalid_argument("noise_net_forward: the network is not prepared (prepare_noise_net)");
  if (net.cell < 1 || size < 1 || size % net.cell != 0)
    throw std::invalid_argument("noise_net_forward: a tile of " + std::to_string(size) +
                                " pixels is not a positive multiple of the network's cell (" +
                                std::to_string(net.cell) + ")");
  // Each layer's input: its side, border and pixel stride.
  std::vector<int> side(count + 1), border(count + 1, 0), stride(count + 1);
  side[0] = size;
  stride[0] = net.layers[0].in;
  size_t largest = 0;
  for (size_t l = 0; l <= count; ++l) {
    if (l < count) {
      const NoiseNetLayer& layer = net.layers[l];
      border[l] = layer.kernel / 2;
      side[l + 1] = side[l] / layer.stride;
      stride[l + 1] = round_up16(layer.out);
      if (layer.packed_bias.size() != size_t(stride[l + 1]) ||
          layer.packed_weights.size() != size_t(layer.kernel) * layer.kernel * stride[l] * stride[l + 1])
        throw std::invalid_argument("noise_net_forward: the network is not prepared (prepare_noise_net)");
    }
    const size_t padded = size_t(side[l] + 2 * border[l]);
    largest = std::max(largest, padded * padded * size_t(stride[l]));
  }
  for (std::vector<float>& buffer : scratch.buffers)
    if (buffer.size() < largest + 16) buffer.resize(largest + 16);
  float* buffers[2] = {aligned(scratch.buffers[0]), aligned(scratch.buffers[1])};

  // The first layer's input: sample - 0.5 (the header's "input rgb-0.5").
  {
    const int b = border[0], channels = stride[0];
    zero_border(buffers[0], size, b, channels);
    const size_t row = size_t(size + 2 * b) * size_t(channels);
    for (int y = 0; y < size; ++y) {
      const float* from = tile_rgb + size_t(y) * size_t(size) * size_t(channels);
      float* to = buffers[0] + size_t(y + b) * row + size_t(b) * size_t(channels);
      for (size_t i = 0; i < size_t(size) * size_t(channels); ++i) to[i] = from[i] - 0.5f;
    }
  }
  const NoiseNetIsa isa = resolve(scratch.isa);
  for (size_t l = 0; l < count; ++l) {
    const NoiseNetLayer& layer = net.layers[l];
    float* target = buffers[(l + 1) % 2];
    const int b = border[l + 1], s = side[l + 1];
    zero_border(target, s, b, stride[l + 1]);
    ConvArgs a;
    a.in = buffers[l % 2];
    a.in_row = size_t(side[l] + 2 * border[l]) * size_t(stride[l]);
    a.in_stride = stride[l];
    a.out_row = size_t(s + 2 * b) * size_t(stride[l + 1]);
    a.out = target + size_t(b) * a.out_row + size_t(b) * size_t(stride[l + 1]);
    a.out_stride = stride[l + 1];
    a.width = a.height = s;
    a.weights = layer.packed_weights.data();
    a.bias = layer.packed_bias.data();
    a.kernel = layer.kernel;
    a.step = layer.stride;
    a.relu = layer.relu;
    run_layer(isa, a);
  }
  // The last layer's output without its padded channels.
  const float* last = buffers[count % 2];
  const size_t cells = size_t(side[count]) * size_t(side[count]);
  for (size_t c = 0; c < cells; ++c)
    std::memcpy(out + c * size_t(net.outputs), last + c * size_t(stride[count]), size_t(net.outputs) * sizeof(float));
}

}  // namespace edgewise
