// The noise network's convolutions with AVX2 and FMA (built with -mavx2
// -mfma, run only where the processor has them): 16 registers of 8 floats,
// at most 12 accumulators, the weights and a broadcast.
#include "nn_conv.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace edgewise {
namespace {

typedef float Vec8 __attribute__((vector_size(32)));

__attribute__((always_inline)) inline Vec8 madd(Vec8 acc, float sample, Vec8 weight) {
  return Vec8(_mm256_fmadd_ps(_mm256_set1_ps(sample), __m256(weight), __m256(acc)));
}

}  // namespace
}  // namespace edgewise

#include "nn_conv_blocks.h"

namespace edgewise {

void nn_conv_avx2(const ConvArgs& a) {
  conv_in_ranges<Vec8, 3>(a, [&a](int c0, int count) {
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
  });
}

}  // namespace edgewise
#endif
