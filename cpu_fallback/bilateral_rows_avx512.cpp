// Row kernels built for the avx512 instruction set (see CMakeLists.txt for
// the flags); 16 float lanes per vector.
#define EW_ISA_NAMESPACE avx512
#define EW_LANE_WIDTH 16
#include "bilateral_rows.h"

namespace edgewise::cpu::avx512 {

RowFunction select(const BilateralParams& params) { return select_rows<16>(params); }

}  // namespace edgewise::cpu::avx512
