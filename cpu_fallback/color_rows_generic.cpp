// The row colour conversions built for the generic instruction set (see
// CMakeLists.txt for the flags); 4 float lanes per vector.
#define EW_ISA_NAMESPACE generic
#define EW_LANE_WIDTH 4
#include "color_rows_impl.h"
