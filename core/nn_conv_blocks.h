// The noise network's convolution blocks (nn_conv.h), for the files of
// each instruction set: nn_conv_generic.cpp, nn_conv_avx2.cpp and
// nn_conv_avx512.cpp, each built with its own flags (core/CMakeLists.txt),
// include this after defining Vec's madd(acc, sample, weight), acc +
// sample * weight: one FMA on AVX2 and AVX-512, a product and a sum on
// baseline SSE2. Explicit, not left to the compiler's contraction: GCC
// 13.3 left a few products of each AVX entry uncontracted (separate vmulps
// and vaddps where GCC 12 fused every one), so AVX2 and AVX-512 differed
// by an ulp (NoiseNetForward.FmaInstructionSetsAgreeToTheBit on the
// device).
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
// Everything here has internal linkage: each file's copy is built for its
// own instruction set and must not be merged with another's.
#pragma once

#include <cstddef>
#include <cstring>

#include "nn_conv.h"

#define EW_NN_INLINE __attribute__((always_inline)) inline

namespace edgewise {
namespace {

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
        for (int v = 0; v < V; ++v) acc[p][v] = madd(acc[p][v], sample, weight[v]);
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

// The layer over the output channels in ranges of at most `Most` vectors,
// as even as can be, smallest first: `shape` runs each range (its first
// channel and its count of vectors) with the blocks that count takes. The
// files of each instruction set give their own shapes; this file is built
// with their flags, so the lambda they pass is too.
template <class Vec, int Most, class Shape>
EW_NN_INLINE void conv_in_ranges(const ConvArgs& a, Shape shape) {
  constexpr int L = kLanes<Vec>;
  const int vectors = a.out_stride / L, ranges = (vectors + Most - 1) / Most;
  for (int r = 0, first = 0, count = 0; r < ranges; ++r, first += count) {
    count = (vectors - first) / (ranges - r);
    shape(first * L, count);
  }
}

}  // namespace
}  // namespace edgewise
