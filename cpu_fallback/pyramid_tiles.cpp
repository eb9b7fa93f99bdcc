#include "pyramid_tiles.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "color_rows.h"
#include "pyramid_math.h"

namespace edgewise::cpu {

namespace {

// A tile's output rows and columns. Its padded input, (32 + 2r) x (256 + 2r)
// samples of three or four planes, is about 110-150 KB at radius 2, twice
// that with the scaled copy: well inside a core's L2 (1 MiB here), with
// the window's border rows costing an eighth more copying than whole rows
// (16 x 512 and 64 x 256 measured the same, within 2 %).
constexpr int kTileRows = 32;
constexpr int kTileColumns = 256;

int tile_columns(const PyramidPlan& plan) { return std::min(kTileColumns, plan.widths[0]); }

size_t padded_tile_floats(const PyramidPlan& plan) {
  const int planes = plan.color_channels + (plan.has_alpha ? 1 : 0);
  return padded_band_floats(kTileRows + 2 * plan.radius, tile_columns(plan), plan.radius, planes);
}

size_t spare_tile_floats(const PyramidPlan& plan) {
  return size_t(kTileRows) * size_t(tile_columns(plan)) * size_t(plan.color_channels) + kBandOverhangFloats;
}

// Columns [x0, x0 + count) of `from` (width samples), each clamped to the row.
void copy_clamped(const float* from, int width, int x0, int count, float* to) {
  int v = 0;
  for (; v < count && x0 + v < 0; ++v) to[v] = from[0];
  const int inside_end = std::min(count, width - x0);
  if (inside_end > v) {
    std::memcpy(to + v, from + x0 + v, size_t(inside_end - v) * sizeof(float));
    v = inside_end;
  }
  for (; v < count; ++v) to[v] = from[width - 1];
}

}  // namespace

size_t pyramid_tile_floats(const PyramidPlan& plan) {
  const size_t columns = size_t(tile_columns(plan));
  return 2 * padded_tile_floats(plan) + spare_tile_floats(plan) + columns / 2 + 4 + columns;
}

PyramidTiles::PyramidTiles(const PyramidPlan& plan, int threads)
    : plan_(plan), threads_(std::max(1, threads)), scratch_(size_t(std::max(1, threads))) {
  planes_ = plan.color_channels + (plan.has_alpha ? 1 : 0);
  tile_columns_ = tile_columns(plan);
  for (const std::vector<PyramidPass>& passes : plan.passes) {
    std::vector<RowFunction> functions;
    for (const PyramidPass& pass : passes) functions.push_back(select_row_function(pass.bilateral.params));
    rows_.push_back(functions);
  }
}

void PyramidTiles::run(const LevelTask& task) {
  const PyramidRange result = task.result_rows;
  const int width = plan_.widths[size_t(task.level)];
  std::vector<Tile> tiles;
  // A tile's rows follow one another in the result's memory (not across a ring's end).
  for (int y = result.first, rows = 0; y <= result.last; y += rows) {
    rows = std::min({kTileRows, result.last - y + 1, task.result->rows_in_line(y)});
    for (int x = 0; x < width; x += tile_columns_) tiles.push_back({y, rows, x, std::min(tile_columns_, width - x)});
  }
  // A tile is thousands of bilateral windows: worth a thread whenever there
  // are two (as the bilateral kernel parallelises any two rows).
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (tiles.size() > 1)
  for (size_t t = 0; t < tiles.size(); ++t) filter_tile(task, tiles[t], scratch_[size_t(omp_get_thread_num())]);
}

void PyramidTiles::filter_tile(const LevelTask& task, const Tile& tile, Scratch& scratch) const {
  const int r = plan_.radius, colours = plan_.color_channels;
  const std::vector<PyramidPass>& passes = plan_.passes[size_t(task.level)];
  if (scratch.unscaled.empty()) {
    // First use on this thread: allocated here, so its pages are near its core.
    scratch.unscaled.resize(padded_tile_floats(plan_));
    scratch.scaled.resize(padded_tile_floats(plan_));
    scratch.spare.resize(spare_tile_floats(plan_));
    scratch.line.resize(size_t(tile_columns_) / 2 + 4);
    scratch.expanded.resize(size_t(tile_columns_));
  }
  const PaddedBand unscaled =
      describe_padded_band(tile.first_row - r, tile.rows + 2 * r, tile.columns, r, planes_, scratch.unscaled.data());
  PaddedBand scaled = unscaled;
  scaled.data = scratch.scaled.data();
  load(task, tile, unscaled, passes.empty() ? nullptr : &scaled);

  const LevelRows& result = *task.result;
  OutputBand target;
  target.first_row = tile.first_row;
  target.rows = tile.rows;
  target.width = tile.columns;
  target.planes = colours;
  target.row_stride = result.row_stride;
  target.plane_stride = result.plane_stride;
  target.data = result.row(0, tile.first_row) + tile.first_column;

  bool filtered[3] = {false, false, false};
  for (size_t s = 0; s < passes.size(); ++s) {
    const PyramidPass& pass = passes[s];
    if (s > 0) scale_samples(unscaled, pass.bilateral.params.scale, 0, unscaled.rows, scaled);
    const bool whole = pass.first_plane == 0 && pass.planes == colours;
    const OutputBand out =
        whole ? target : describe_output_band(tile.first_row, tile.rows, tile.columns, colours, scratch.spare.data());
    rows_[size_t(task.level)][s](pass.bilateral, scaled, unscaled, out, SigmaTarget{}, 0, tile.rows);
    for (int c = pass.first_plane; c < pass.first_plane + pass.planes; ++c) {
      filtered[c] = true;
      if (!whole)
        for (int j = 0; j < tile.rows; ++j)
          std::memcpy(target.row(c, j), out.row(c, j), size_t(tile.columns) * sizeof(float));
    }
  }
  // Channels no pass filters (strength 0) keep the level as it is.
  for (int c = 0; c < colours; ++c)
    if (!filtered[c])
      for (int j = 0; j < tile.rows; ++j)
        std::memcpy(target.row(c, j), unscaled.row(c, j + r) + r, size_t(tile.columns) * sizeof(float));
  finish(task, tile, unscaled, target, scratch);
}

// The tile's rows and the window's border, every index clamped to the
// level, and (`scaled`) the first pass's input, each row scaled while it is
// in cache.
void PyramidTiles::load(const LevelTask& task, const Tile& tile, const PaddedBand& band,
                        const PaddedBand* scaled) const {
  const int r = plan_.radius, colours = plan_.color_channels, height = plan_.heights[size_t(task.level)];
  const int width = plan_.widths[size_t(task.level)];
  const float scale = scaled ? plan_.passes[size_t(task.level)][0].bilateral.params.scale : 0.0f;
  for (int i = 0; i < band.rows; ++i) {
    const int level_row = pyramid_clamp(tile.first_row - r + i, height);
    for (int p = 0; p < planes_; ++p) {
      const LevelRows& from = p < colours ? *task.source : *task.gaussian;
      copy_clamped(from.row(p, level_row), width, tile.first_column - r, band.width, band.row(p, i));
    }
    if (scaled) scale_samples(band, scale, i, i + 1, *scaled);
  }
}

// Rows [first, end) of `unscaled` into `scaled`: colour samples times the
// pass's scale, alpha as it is (the row functions' input).
void PyramidTiles::scale_samples(const PaddedBand& unscaled, float scale, int first, int end,
                                 const PaddedBand& scaled) const {
  const int colours = plan_.color_channels;
  const size_t padded_width = size_t(unscaled.width);
  for (int i = first; i < end; ++i) {
    for (int c = 0; c < colours; ++c) {
      const float* from = unscaled.row(c, i);
      float* to = scaled.row(c, i);
      for (size_t x = 0; x < padded_width; ++x) to[x] = from[x] * scale;
    }
    if (planes_ > colours) std::memcpy(scaled.row(colours, i), unscaled.row(colours, i), padded_width * sizeof(float));
  }
}

// The collapse where the tile landed: with the Gaussian guide the levels
// above the finest keep C_k = R_k - G_k (R_k = B_k(G_k) + EXPAND(C_{k+1}),
// EXPAND being linear: one EXPAND per level); every level below the top
// adds the expanded level above; the finest goes back to RGB, with alpha.
void PyramidTiles::finish(const LevelTask& task, const Tile& tile, const PaddedBand& unscaled, const OutputBand& target,
                          Scratch& scratch) const {
  const int k = task.level, r = plan_.radius, colours = plan_.color_channels, columns = tile.columns;
  const bool subtract = plan_.gaussian_weights && k > 0;
  float* expanded = scratch.expanded.data();
  for (int j = 0; j < tile.rows; ++j) {
    const int i = tile.first_row + j;
    for (int c = 0; c < colours; ++c) {
      float* samples = target.row(c, j);
      const float* gaussian = unscaled.row(c, j + r) + r;
      if (task.above)
        expand_columns(*task.above, plan_.heights[size_t(k) + 1], c, i, tile.first_column, tile.first_column + columns,
                       scratch.line.data(), expanded);
      if (subtract && task.above) {
        for (int x = 0; x < columns; ++x) samples[x] = (samples[x] - gaussian[x]) + expanded[x];
      } else if (subtract) {
        for (int x = 0; x < columns; ++x) samples[x] -= gaussian[x];
      } else if (task.above) {
        for (int x = 0; x < columns; ++x) samples[x] += expanded[x];
      }
    }
    if (k > 0) continue;
    if (plan_.lab) color_rows().from_lab(target.row(0, j), target.row(1, j), target.row(2, j), size_t(columns));
    if (plan_.has_alpha)
      std::memcpy(target.row(colours, j), task.gaussian->row(colours, i) + tile.first_column,
                  size_t(columns) * sizeof(float));
  }
}

}  // namespace edgewise::cpu
