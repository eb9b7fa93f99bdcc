// The noise network's convolutions on baseline x86-64 (SSE2, no FMA) or
// any other processor's vectors: a product and a sum, never contracted
// (built with -ffp-contract=off), so these bits are the same wherever
// this entry runs.
#include "nn_conv.h"

namespace edgewise {
namespace {

typedef float Vec4 __attribute__((vector_size(16)));

__attribute__((always_inline)) inline Vec4 madd(Vec4 acc, float sample, Vec4 weight) { return acc + sample * weight; }

}  // namespace
}  // namespace edgewise

#include "nn_conv_blocks.h"

namespace edgewise {

void nn_conv_generic(const ConvArgs& a) {
  // At most 8 accumulators, the weights and a broadcast in 16 registers.
  conv_in_ranges<Vec4, 4>(a, [&a](int c0, int count) {
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
  });
}

}  // namespace edgewise
