// The CPU backend: float32, all cores, SIMD inner loops chosen at run time.
#pragma once

#include <string>

#include "band.h"
#include "plan.h"

namespace edgewise::cpu {

// Filters output rows [row_begin, row_end) of a band's colour planes.
using RowFunction = void (*)(const Plan&, const PaddedBand&, const OutputBand&, int row_begin, int row_end);

// One per instruction set (bilateral_rows_*.cpp).
namespace generic { RowFunction select(const BilateralParams& params); }
namespace avx2 { RowFunction select(const BilateralParams& params); }
namespace avx512 { RowFunction select(const BilateralParams& params); }

// The widest instruction set this processor runs, and its row function.
struct RowKernel {
  RowFunction rows;
  const char* isa;
};
RowKernel select_row_kernel(const BilateralParams& params);

}  // namespace edgewise::cpu
