// The non-local-means bilateral filter on the CPU: its band kernel (Lab
// conversion and scaling in place, tiles over OpenMP threads, Lab back and
// alpha) and the per-instruction-set tile functions (nlm_tiles.h).
#pragma once

#include <memory>
#include <vector>

#include "cpu_kernels.h"
#include "nlm.h"

namespace edgewise::cpu {

BandCost nlm_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_nlm_kernel(const Plan& plan, const KernelContext& context);

// Output pixels [row0, row0 + rows) x [col0, col0 + cols) of a band
// (band-relative rows).
struct NlmTile {
  int row0 = 0, rows = 0, col0 = 0, cols = 0;
};

// One thread's working memory for a tile.
struct NlmScratch {
  std::vector<float> difference, horizontal, sums, box, weight, scale;
  void resize(size_t difference_floats, size_t horizontal_floats, size_t sum_floats, size_t row_floats,
              size_t scale_floats) {
    if (difference.size() < difference_floats) difference.resize(difference_floats);
    if (scale.size() < scale_floats) scale.resize(scale_floats);
    if (horizontal.size() < horizontal_floats) horizontal.resize(horizontal_floats);
    if (sums.size() < sum_floats) sums.resize(sum_floats);
    if (box.size() < row_floats) box.resize(row_floats);
    if (weight.size() < row_floats) weight.resize(row_floats);
  }
};

// Filters a tile: `band` holds the colour planes scaled by params.unit (Lab
// in lab mode) and alpha as it is, `out` receives working units.
using NlmTileFunction = void (*)(const NlmParams& params, const PaddedBand& band, const OutputBand& out,
                                 const NlmTile& tile, NlmScratch& scratch);

namespace generic {
NlmTileFunction select_nlm(const NlmParams& params);
}
namespace avx2 {
NlmTileFunction select_nlm(const NlmParams& params);
}
namespace avx512 {
NlmTileFunction select_nlm(const NlmParams& params);
}
NlmTileFunction select_nlm_tile_function(const NlmParams& params);

// The widest tile, in columns (the box and weight rows are this long).
constexpr int kNlmTileCols = 128;
constexpr int kNlmTileRows = 16;

}  // namespace edgewise::cpu
