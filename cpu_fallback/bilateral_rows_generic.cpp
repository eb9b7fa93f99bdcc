// Row kernels built for the generic instruction set (see CMakeLists.txt for
// the flags); 4 float lanes per vector.
#define EW_ISA_NAMESPACE generic
#define EW_LANE_WIDTH 4
#include "bilateral_rows.h"

namespace edgewise::cpu::generic {

RowFunction select(const BilateralParams& params) { return select_rows<4>(params); }

}  // namespace edgewise::cpu::generic
