// The noise network's forward pass on the CPU (noise_net.h), one tile on
// one thread.
//
// Activations are HWC with the channels padded to 16 (the first layer's
// input: its 3 channels) and a zero border of the reading layer's k / 2, so
// the taps of one kernel row (kx, then channel) are contiguous in the input
// and in the packed weights ([ky][kx][in'][out']). A block of P output
// pixels by V vectors of output channels sits in registers; each tap loads
// V weight vectors, broadcasts one input sample per pixel and does P x V
// fused multiply-adds: the weight loads are shared by P pixels, the
// broadcasts by V vectors (GEMM's register blocking, on the image).
//
// core/ is built for baseline x86-64, so each instruction set has its own
// entry (target attributes, picked at run time as cpu_fallback's kernels
// are): AVX-512 with 16-float vectors in 32 registers, AVX2+FMA with 8 in
// 16, and baseline SSE2 (no FMA). Block shapes keep accumulators, weights
// and the broadcast in registers; each set has a wide and a narrow block,
// the narrow one taken where it computes fewer pixels of a row.
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

// Contraction into FMA: GCC's ISO mode (-std=c++17) turns it off, so the
// kernels' entries ask for it; clang contracts within an expression.
#if defined(__clang__)
#pragma STDC FP_CONTRACT ON
#define EW_NN_TARGET(isa) __attribute__((target(isa)))
#else
#define EW_NN_TARGET(isa) __attribute__((target(isa), optimize("fp-contract=fast")))
#endif
#define EW_NN_INLINE __attribute__((always_inline)) inline

namespace edgewise {

namespace {

int round_up16(int channels) { return (channels + 15) / 16 * 16; }

template <class Vec>
constexpr int kLanes = int(sizeof(Vec) / sizeof(float));

// Output pixels x0 .. x0 + P - 1 of row y, channels c0 .. c0 + V * lanes - 1.
template <class Vec, int V, int P>
EW_NN_INLINE void conv_block(const ConvArgs& a, int y, int x0, int c0) {
  constexpr int L = kLanes<Vec>;
  // Every loop over the block unrolled, so the accumulators stay in
  // registers (clang 14 keeps 8 x 3 of them on the stack otherwise: 2.5
  // times the time).
  Vec acc[P][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    Vec bias;
    std::memcpy(&bias, a.bias + c0 + v * L, sizeof bias);
#pragma GCC unroll 16
    for (int p = 0; p < P; ++p) acc[p][v] = bias;
  }
  const int taps = a.kernel * a.in_stride;  // one kernel row
  const size_t pixel_step = size_t(a.step) * size_t(a.in_stride);
  for (int ky = 0; ky < a.kernel; ++ky) {
    const float* in = a.in + size_t(y * a.step + ky) * a.in_row + size_t(x0) * pixel_step;
    const float* w = a.weights + size_t(ky) * size_t(taps) * size_t(a.out_stride) + size_t(c0);
    for (int j = 0; j < taps; ++j, w += a.out_stride) {
      Vec weight[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) std::memcpy(&weight[v], w + v * L, sizeof(Vec));
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
        const float sample = in[size_t(p) * pixel_step + size_t(j)];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[p][v] += sample * weight[v];
      }
    }
  }
#pragma GCC unroll 16
  for (int p = 0; p < P; ++p) {
    float* o = a.out + size_t(y) * a.out_row + size_t(x0 + p) * size_t(a.out_stride) + size_t(c0);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      if (a.relu) {
        // The sum where it is positive, by its bits and the comparison's
        // mask (GCC scalarises a vector ?:).
        const auto positive = acc[p][v] > Vec{};
        acc[p][v] = Vec(decltype(positive)(acc[p][v]) & positive);
      }
      std::memcpy(o + v * L, &acc[p][v], sizeof(Vec));
    }
  }
}

// Every output pixel for one range of channels, in blocks of P pixels. A
// row not a multiple of P ends with a block that overlaps the one before:
// it computes those pixels again from the same inputs, to the same values.
template <class Vec, int V, int P>
EW_NN_INLINE void conv_rows(const ConvArgs& a, int c0) {
  for (int y = 0; y < a.height; ++y) {
    int x = 0;
    for (; x + P <= a.width; x += P) conv_block<Vec, V, P>(a, y, x, c0);
    if (x == a.width) continue;
    if (a.width >= P) {
      conv_block<Vec, V, P>(a, y, a.width - P, c0);
    } else {
      for (; x < a.width; ++x) conv_block<Vec, V, 1>(a, y, x, c0);
    }
  }
}

// Pixels computed for a row of `width` in blocks of `block`.
inline int computed_pixels(int width, int block) {
  return width < block ? 4 * width : (width + block - 1) / block * block;
}

// The wide blocks, or the narrow ones where they compute fewer pixels (an
// 8-pixel row: 8 in blocks of 4, 12 in blocks of 6).
template <class Vec, int V, int Wide, int Narrow>
EW_NN_INLINE void conv_channels(const ConvArgs& a, int c0) {
  if (computed_pixels(a.width, Narrow) < computed_pixels(a.width, Wide)) return conv_rows<Vec, V, Narrow>(a, c0);
  conv_rows<Vec, V, Wide>(a, c0);
}

// The output channels in ranges of at most `most` vectors, as even as can
// be, smallest first, looped over in each kernel entry itself. Not through
// a lambda: its body is a function of its own without the entry's target
// attributes, which a compiler that does not inline it builds for baseline
// x86-64 (no FMA, vectors in halves): GCC 12 here inlined it, GCC 13.3 on
// the device gave AVX2 and AVX-512 different bits
// (NoiseNetForward.FmaInstructionSetsAgreeToTheBit).
int range_count(int vectors, int most) { return (vectors + most - 1) / most; }
// The size of the next range after `first` vectors, with `left` ranges to go.
int range_size(int vectors, int first, int left) { return (vectors - first) / left; }

typedef float Vec4 __attribute__((vector_size(16)));

// Baseline x86-64 (SSE2, no FMA), or any other processor's vectors.
void conv_generic(const ConvArgs& a) {
  // At most 8 accumulators, the weights and a broadcast in 16 registers.
  const int vectors = a.out_stride / 4, ranges = range_count(vectors, 4);
  for (int r = 0, first = 0, count = 0; r < ranges; ++r, first += count) {
    const int c0 = first * 4;
    count = range_size(vectors, first, ranges - r);
    switch (count) {
      case 4:
        conv_channels<Vec4, 4, 2, 2>(a, c0);
        break;
      case 3:
        conv_channels<Vec4, 3, 3, 2>(a, c0);
        break;
      case 2:
        conv_channels<Vec4, 2, 4, 2>(a, c0);
        break;
      default:
        conv_channels<Vec4, 1, 8, 4>(a, c0);
    }
  }
}

#if defined(__x86_64__)
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec16 __attribute__((vector_size(64)));

// 16 registers of 8 floats: at most 12 accumulators, the weights, a broadcast.
EW_NN_TARGET("avx2,fma") void conv_avx2(const ConvArgs& a) {
  const int vectors = a.out_stride / 8, ranges = range_count(vectors, 3);
  for (int r = 0, first = 0, count = 0; r < ranges; ++r, first += count) {
    const int c0 = first * 8;
    count = range_size(vectors, first, ranges - r);
    switch (count) {
      case 3:
        conv_channels<Vec8, 3, 4, 2>(a, c0);
        break;
      case 2:
        conv_channels<Vec8, 2, 6, 4>(a, c0);
        break;
      default:
        conv_channels<Vec8, 1, 8, 4>(a, c0);
    }
  }
}

// 32 registers of 16 floats: at most 24 accumulators.
EW_NN_TARGET("avx512f") void conv_avx512(const ConvArgs& a) {
  const int vectors = a.out_stride / 16, ranges = range_count(vectors, 4);
  for (int r = 0, first = 0, count = 0; r < ranges; ++r, first += count) {
    const int c0 = first * 16;
    count = range_size(vectors, first, ranges - r);
    switch (count) {
      case 4:
        conv_channels<Vec16, 4, 4, 4>(a, c0);
        break;
      case 3:
        conv_channels<Vec16, 3, 8, 4>(a, c0);
        break;
      case 2:
        conv_channels<Vec16, 2, 8, 8>(a, c0);
        break;
      default:
        conv_channels<Vec16, 1, 8, 8>(a, c0);
    }
  }
}
#endif

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
  if (isa == NoiseNetIsa::avx512) return conv_avx512(a);
  if (isa == NoiseNetIsa::avx2) return conv_avx2(a);
#endif
  (void)isa;
  conv_generic(a);
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
