// Row kernels built for the avx2 instruction set (see CMakeLists.txt for
// the flags); 8 float lanes per vector.
#define EW_ISA_NAMESPACE avx2
#define EW_LANE_WIDTH 8
#include "bilateral_rows.h"

namespace edgewise::cpu::avx2 {

RowFunction select(const BilateralParams& params) { return select_rows<8>(params); }

}  // namespace edgewise::cpu::avx2
