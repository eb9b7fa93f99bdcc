// The bilateral family on the CPU: a band's passes (Lab conversion, scaled
// samples, the SIMD row kernels, alpha, re-padding between iterations).
#pragma once

#include <memory>

#include "bilateral.h"
#include "cpu_kernels.h"

namespace edgewise::cpu {

// Bands of a few MiB: their buffers and the executor's staging stay in the
// L3 cache from unpacking to packing, and a run touches few fresh pages.
// Measured (4 MP rgb r = 2, 2 threads, Zen 4, forcing band heights): bands
// of 16-64 rows (1.4-5.6 MiB) 34.0-34.3 ms, 128 rows 37.8 ms, 256 rows
// 58.1 ms, the 48 MiB default (570 rows) 63.6 ms.
constexpr size_t kBilateralBandBytes = size_t(6) << 20;

BandCost bilateral_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_bilateral_kernel(const Plan& plan, const KernelContext& context);

// Where the adaptive filter's first pass writes its sigma map: band row j of
// the pass is row j - row_offset of `band`, when that is one of its rows.
struct SigmaTarget {
  const OutputBand* band = nullptr;
  int row_offset = 0;
};

// Filters rows [row_begin, row_end) of `out`: out row j reads window rows
// j..j+2r of `scaled` (colour samples times params.scale, alpha as is) and,
// for the rare rescued pixel, of `unscaled` (the same band before scaling).
using RowFunction = void (*)(const BilateralPlan& plan, const PaddedBand& scaled, const PaddedBand& unscaled,
                             const OutputBand& out, const SigmaTarget& sigma, int row_begin, int row_end);

// One per instruction set (bilateral_rows_*.cpp).
namespace generic {
RowFunction select(const BilateralParams& params);
}
namespace avx2 {
RowFunction select(const BilateralParams& params);
}
namespace avx512 {
RowFunction select(const BilateralParams& params);
}

// The widest instruction set this processor runs picks the row function;
// decided per process, so every band and thread uses one code path and
// results stay bit-identical across band heights and thread counts.
RowFunction select_row_function(const BilateralParams& params);

}  // namespace edgewise::cpu
