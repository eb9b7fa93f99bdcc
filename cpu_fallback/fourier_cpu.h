// The Fourier bilateral filter on the CPU: its band kernel (fourier_cpu.cpp)
// and the two passes compiled once per instruction set (fourier_passes.h).
// Terms are processed four at a time: an 8-float vector holds cos and sin
// of four terms, so every operation of a pass serves eight images.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "cpu_kernels.h"
#include "fourier.h"

namespace edgewise::cpu {

BandCost fourier_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_fourier_kernel(const Plan& plan, const KernelContext& context);

constexpr int kFourierLanes = 8;  // cos and sin of four terms
constexpr int kFourierTermsPerGroup = 4;
constexpr int kFourierBlockColumns = 8;  // columns the vertical pass walks together

// One group's per-lane constants: lane 2j holds cos(w k u), lane 2j + 1
// sin(w k u), k = first + j (fourier_term's frequency k / T and phase 1/4
// or 0); what D and E take of each lane; lanes past N are zero.
struct FourierGroup {
  alignas(32) float frequency[kFourierLanes];
  alignas(32) float phase[kFourierLanes];
  alignas(32) float denominator[kFourierLanes];  // a_k on both lanes of term k
  alignas(32) float numerator[kFourierLanes];    // -b_k on the cos lane, b_k on the sin lane
};

// One channel of a band as the passes see it.
struct FourierBandView {
  const float* samples = nullptr;  // centred samples, band row i at samples + i * stride
  const float* alpha = nullptr;    // the alpha plane likewise, or null
  size_t stride = 0;
  int rows = 0;  // band rows, halo included
  int width = 0;
  int reach = 0;  // output row j is band row j + reach
  int out_rows = 0;
  float* terms = nullptr;        // out_rows x width x 8: the column-blurred lanes
  float* denominator = nullptr;  // out_rows x width: D, accumulated
  float* numerator = nullptr;    // out_rows x width: E, accumulated (null: D only)
};

// Output rows a column-pass chunk covers: at least 2 (r + 1), so a
// recursive chunk's early start (r + 1 rows each side) costs at most as
// much again; and the band rows its term values span.
inline int fourier_chunk_rows(const FourierParams& p) { return std::max(256, 2 * (p.radius + 1)); }
inline int fourier_chunk_band_rows(const FourierParams& p) { return fourier_chunk_rows(p) + 2 * (p.radius + 1); }

// One thread's working memory, sized by the band kernel (the passes, built
// per instruction set, allocate nothing): block holds a band's rows of
// kFourierBlockColumns pixels' lanes, row an output row's lanes.
struct FourierScratch {
  std::vector<float> block, row;
};

// Column pass: band columns [x0, x1) (at most kFourierBlockColumns), the
// lanes alpha * term(u) over every band row, blurred down the columns,
// written to view.terms for the output rows.
using FourierColumnPass = void (*)(const FourierParams& params, const float* taps, const FourierGroup& group,
                                   const FourierBandView& view, int x0, int x1, FourierScratch& scratch);
// Row pass: output row j of view.terms blurred along the row and combined
// with the pixel's own term values into D and E.
using FourierRowPass = void (*)(const FourierParams& params, const float* taps, const FourierGroup& group,
                                const FourierBandView& view, int j, FourierScratch& scratch);

struct FourierPasses {
  FourierColumnPass columns;
  FourierRowPass row;
};

namespace generic {
FourierPasses fourier_passes();
}
namespace avx2 {
FourierPasses fourier_passes();
}

}  // namespace edgewise::cpu
