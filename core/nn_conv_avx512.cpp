// The noise network's convolutions with AVX-512 (built with -mavx512f, run
// only where the processor has it): 32 registers of 16 floats, at most 24
// accumulators.
#include "nn_conv.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace edgewise {
namespace {

typedef float Vec16 __attribute__((vector_size(64)));

__attribute__((always_inline)) inline Vec16 madd(Vec16 acc, float sample, Vec16 weight) {
  return Vec16(_mm512_fmadd_ps(_mm512_set1_ps(sample), __m512(weight), __m512(acc)));
}

}  // namespace
}  // namespace edgewise

#include "nn_conv_blocks.h"

namespace edgewise {

void nn_conv_avx512(const ConvArgs& a) {
  conv_in_ranges<Vec16, 4>(a, [&a](int c0, int count) {
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
  });
}

}  // namespace edgewise
#endif
