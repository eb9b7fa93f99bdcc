// The non-local-means bilateral filter's band kernel on the CPU. One pass:
// the band's colour planes are converted to Lab (lab mode) and scaled to
// code values in place, tiles of output pixels are filtered by OpenMP
// threads (each tile by one thread, so results do not depend on the thread
// count), then the output goes back from Lab and alpha is copied through.
#include "nlm_cpu.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "color_rows.h"

namespace edgewise::cpu {

namespace {

// Tiles per thread between progress reports: enough that the wave's last
// tile waits little for the others.
constexpr size_t kTilesPerThreadWave = 16;

class NlmKernel : public BandKernel {
 public:
  NlmKernel(const NlmPlan& plan, const KernelContext& context)
      : plan_(plan),
        context_(context),
        tile_(select_nlm_tile_function(plan.params)),
        scratch_(size_t(std::max(1, context.threads))) {}

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>&) override {
    const NlmParams& p = plan_.params;
    const int threads = std::max(1, context_.threads);
    const int colours = p.color_channels, reach = plan_.reach;
    // Lab and code values, in place (the kernel may overwrite its input).
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < input.rows; ++i) {
      if (p.lab) {
        color_rows().to_lab(input.row(0, i), input.row(1, i), input.row(2, i), size_t(input.width));
      }
      for (int c = 0; c < colours; ++c) {
        float* row = input.row(c, i);
        for (int x = 0; x < input.width; ++x) row[x] *= p.unit;
      }
    }
    std::vector<NlmTile> tiles;
    for (int row = 0; row < output.rows; row += kNlmTileRows)
      for (int col = 0; col < output.width; col += kNlmTileCols)
        tiles.push_back(
            {row, std::min(kNlmTileRows, output.rows - row), col, std::min(kNlmTileCols, output.width - col)});
    const NlmTileFunction tile = tile_;
    const PaddedBand band = input;
    // Waves of tiles, so a band of seconds (a 24 MP photo's) reports its
    // progress between them; each tile is still one thread's.
    const size_t wave = size_t(threads) * kTilesPerThreadWave;
    for (size_t first = 0; first < tiles.size(); first += wave) {
      const size_t last = std::min(tiles.size(), first + wave);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (last - first > 1)
      for (size_t t = first; t < last; ++t) tile(p, band, output, tiles[t], scratch_[size_t(omp_get_thread_num())]);
      band_progress(context_, double(last) / double(tiles.size()));
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int j = 0; j < output.rows; ++j) {
      if (p.lab) {
        color_rows().from_lab(output.row(0, j), output.row(1, j), output.row(2, j), size_t(output.width));
      }
      if (p.has_alpha)
        std::memcpy(output.row(colours, j), input.row(colours, j + reach) + input.pad,
                    size_t(output.width) * sizeof(float));
    }
  }

 private:
  const NlmPlan& plan_;
  KernelContext context_;
  NlmTileFunction tile_;
  std::vector<NlmScratch> scratch_;
};

}  // namespace

BandCost nlm_own_cost(const Plan&) {
  // Per thread, a tile's difference image, box sums and sums: under a
  // megabyte, independent of the band.
  return {0, 0};
}

std::unique_ptr<BandKernel> make_nlm_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<NlmKernel>(static_cast<const NlmPlan&>(plan), context);
}

}  // namespace edgewise::cpu
