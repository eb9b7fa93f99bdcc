// The colour conversions of core/color_lab.h over rows of planar samples,
// in place, on the SIMD lanes of the machine's instruction set (a
// translation unit each, color_rows_*.cpp; cpu_dispatch.cpp picks one):
// the CPU kernels' Lab and linear-light preparation and output. Every
// pixel goes through the vector code, a row's last few padded into a
// vector, so a pixel's value does not depend on where it sits in its row.
#pragma once

#include <cstddef>

namespace edgewise::cpu {

struct ColorRows {
  void (*to_lab)(float* r, float* g, float* b, size_t n);    // R'G'B' -> L*a*b*
  void (*from_lab)(float* L, float* a, float* b, size_t n);  // L*a*b* -> R'G'B'
  void (*to_linear)(float* samples, size_t n);               // sRGB curve decoded
  void (*from_linear)(float* samples, size_t n);             // and encoded
};

const ColorRows& color_rows();

namespace generic {
ColorRows color_rows();
}
namespace avx2 {
ColorRows color_rows();
}
namespace avx512 {
ColorRows color_rows();
}

}  // namespace edgewise::cpu
