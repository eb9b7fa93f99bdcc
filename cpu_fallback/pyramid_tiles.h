// The pyramid filter's level pass on the CPU, tile by tile: a tile of a
// level's result rows is copied with its window's border into a padded
// band small enough for the core's L2 cache, filtered there by the
// bilateral family's row functions (one per pass), and collapsed where it
// lands: R_k = B_k + EXPAND(R_{k+1}), or with the Gaussian guide
// C_k = B_k(G_k) - G_k + EXPAND(C_{k+1}) on the levels above the finest
// (pyramid_cpu.cpp says why). On the finest level the tile lands in the
// chunk's output rows and goes back to RGB there, alpha beside it.
#pragma once

#include <vector>

#include "band.h"
#include "bilateral_cpu.h"
#include "pyramid.h"
#include "pyramid_levels.h"

namespace edgewise::cpu {

// One level's pass: what it reads and where it writes.
struct LevelTask {
  int level = 0;
  PyramidRange result_rows;   // the rows it computes
  const LevelRows* source;    // what B_k filters: G_k, or L_k with --guide laplacian (colour planes)
  const LevelRows* gaussian;  // G_k, for alpha (the finest level's is the output's)
  const LevelRows* result;    // where R_k or C_k goes: the chunk's output rows on the finest level
  const LevelRows* above;     // R_{k+1} or C_{k+1}; null on the top level
};

// Floats of one thread's tile buffers (for the kernel's memory cost).
size_t pyramid_tile_floats(const PyramidPlan& plan);

class PyramidTiles {
 public:
  PyramidTiles(const PyramidPlan& plan, int threads);

  // The level's result rows, tiles spread over the threads.
  void run(const LevelTask& task);

 private:
  struct Tile {
    int first_row, rows, first_column, columns;
  };
  // One thread's buffers, allocated once and reused for every tile.
  struct Scratch {
    std::vector<float> unscaled, scaled, spare, line, expanded;
  };

  void filter_tile(const LevelTask& task, const Tile& tile, Scratch& scratch) const;
  void load(const LevelTask& task, const Tile& tile, const PaddedBand& band, const PaddedBand* scaled) const;
  void scale_samples(const PaddedBand& unscaled, float scale, int first, int end, const PaddedBand& scaled) const;
  void finish(const LevelTask& task, const Tile& tile, const PaddedBand& unscaled, const OutputBand& target,
              Scratch& scratch) const;

  const PyramidPlan& plan_;
  int threads_ = 1, planes_ = 1, tile_columns_ = 1;
  std::vector<std::vector<RowFunction>> rows_;  // per level, per pass
  std::vector<Scratch> scratch_;                // per thread
};

}  // namespace edgewise::cpu
