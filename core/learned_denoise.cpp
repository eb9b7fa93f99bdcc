#include "learned_denoise.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "learned_math.h"
#include "learned_noise.h"

namespace edgewise {

int denoise_net_reach(const DenoiseNet& d) {
  int reach = 0, scale = 1;
  for (const NoiseNetLayer& layer : d.net.layers) {
    switch (layer.op) {
      case NetOp::conv:
        reach += (layer.kernel / 2) * scale;
        break;
      case NetOp::unshuffle:
        reach += (layer.factor - 1) * scale;
        scale *= layer.factor;
        break;
      case NetOp::shuffle:
        scale /= layer.factor;
        reach += (layer.factor - 1) * scale;
        break;
      default:
        break;
    }
  }
  return (reach + d.align - 1) / d.align * d.align;
}

std::vector<float> white_noise_cells(double sigma) {
  // R, G, B, then Y, C1, C2: an orthonormal transform of three equal
  // variances keeps them; a b x b box divides white noise's variance by b^2.
  const double variance = std::max(sigma * sigma, 0.01);  // noise_net.py's VARIANCE_FLOOR
  std::vector<float> cells;
  for (int plane = 0; plane < 6; ++plane)
    for (int scale = 0; scale < 3; ++scale) cells.push_back(float(std::log(variance / double(1 << (2 * scale)))));
  return cells;
}

int padded_side(int side, int multiple) { return (side + multiple - 1) / multiple * multiple; }

int mirrored(int i, int side) { return mirrored_index(i, side); }

namespace {

// Where image row `py` of the extension by mirroring is in `rows`.
const float* padded_row(const RgbRows& rows, int py, int height) {
  const int y = mirrored(py, height);
  if (y < rows.first_row || y >= rows.first_row + rows.rows)
    throw std::logic_error("learned_denoise_rows: image row " + std::to_string(y) + " is needed and not given (rows " +
                           std::to_string(rows.first_row) + " to " + std::to_string(rows.first_row + rows.rows - 1) +
                           ")");
  return rows.row(y);
}

// The noise map's cells of tile rows [tile_row0, tile_row1) of the image
// extended by mirroring to `pw` columns (a multiple of net.tile), as
// noise_map_cells gives them (those rows' cells only).
std::vector<float> noise_map_rows(const NoiseNet& net, const RgbRows& rows, int width, int height, int pw,
                                  int tile_row0, int tile_row1, int threads, NoiseNetIsa isa) {
  const int t = net.tile;
  const int tiles_x = pw / t, tiles_y = tile_row1 - tile_row0, per_side = t / net.cell;
  const int cells_x = pw / net.cell;
  std::vector<float> cells(size_t(cells_x) * size_t(tiles_y * per_side) * size_t(net.outputs));
  std::vector<NoiseNetScratch> scratch(static_cast<size_t>(threads));
  for (NoiseNetScratch& s : scratch) s.isa = isa;
  // Rows are looked up before the parallel loop: a missing one throws here.
  std::vector<const float*> tile_rows(size_t(tiles_y) * t);
  for (int y = 0; y < tiles_y * t; ++y) tile_rows[size_t(y)] = padded_row(rows, tile_row0 * t + y, height);
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> tile(size_t(t) * size_t(t) * 3), out(size_t(per_side) * per_side * size_t(net.outputs));
#pragma omp for schedule(dynamic)
    for (int k = 0; k < tiles_x * tiles_y; ++k) {
      const int tx = k % tiles_x, ty = k / tiles_x;
      for (int y = 0; y < t; ++y) {
        const float* row = tile_rows[size_t(ty * t + y)];
        for (int x = 0; x < t; ++x)
          for (int c = 0; c < 3; ++c) tile[(size_t(y) * t + x) * 3 + c] = row[size_t(mirrored(tx * t + x, width)) * 3 + c];
      }
      noise_net_forward(net, tile.data(), t, out.data(), scratch[size_t(omp_get_thread_num())]);
      for (int cy = 0; cy < per_side; ++cy)
        std::copy_n(&out[size_t(cy) * per_side * size_t(net.outputs)], size_t(per_side) * size_t(net.outputs),
                    &cells[(size_t(ty * per_side + cy) * cells_x + size_t(tx) * per_side) * size_t(net.outputs)]);
    }
  }
  return cells;
}

void map_taps(double per_cell, int i, int count, int& i0, int& i1, float& l1) {
  map_cell_taps(per_cell, i, count, i0, i1, l1);
}

int align_down(int v, int a) { return v >= 0 ? v / a * a : -((-v + a - 1) / a * a); }
int align_up(int v, int a) { return (v + a - 1) / a * a; }

void check_nets(const DenoiseNet& d, const NoiseNet* noise_net, bool given) {
  if (!noise_net) {
    if (!given) throw std::invalid_argument("learned_denoise_rows: no noise network to read the noise map with");
    return;
  }
  if (!given && d.noise_net_sha256 != noise_net->sha256_hex)
    throw NoiseNetError("the learned denoiser was trained on the map of noise network " +
                        d.noise_net_sha256.substr(0, 12) + ", not of " + noise_net->sha256_hex.substr(0, 12));
  if (d.map_channels != noise_net->outputs || d.map_cell != noise_net->cell)
    throw NoiseNetError("the learned denoiser reads a map of " + std::to_string(d.map_channels) + " channels a " +
                        std::to_string(d.map_cell) + " px cell, the noise network gives " +
                        std::to_string(noise_net->outputs) + " a " + std::to_string(noise_net->cell));
  if (kLearnedExtension % noise_net->tile != 0)
    throw NoiseNetError("the noise network's tiles (" + std::to_string(noise_net->tile) + " px) do not divide " +
                        std::to_string(kLearnedExtension) + " px");
}

// The image is extended to multiples of this: whole noise tiles, which the
// denoiser's alignment divides.
int extension(const DenoiseNet& d) { return std::max(kLearnedExtension, d.align); }

}  // namespace

void scale_map_cells(std::vector<float>& cells, int n, double luminance, double colour) {
  if (luminance == 1.0 && colour == 1.0) return;
  if (n != kNoiseMapOutputs) throw NoiseNetError("the learned denoiser's map is not the noise map Luminance and Colour scale");
  const double a2 = std::pow(std::max(luminance, 1e-3), 2), b2 = std::pow(std::max(colour, 1e-3), 2);
  constexpr double kMix[3][3] = {{1.0 / 3, 1.0 / 2, 1.0 / 6}, {1.0 / 3, 0.0, 4.0 / 6}, {1.0 / 3, 1.0 / 2, 1.0 / 6}};
  constexpr int kBoxes = kNoiseMapOutputs / 6;  // planes R G B Y C1 C2, each at kBoxes box sizes
  for (size_t at = 0; at + size_t(n) <= cells.size(); at += size_t(n)) {
    float* cell = &cells[at];
    for (int s = 0; s < kBoxes; ++s) {
      const double v[3] = {std::exp(double(cell[3 * kBoxes + s])), std::exp(double(cell[4 * kBoxes + s])),
                           std::exp(double(cell[5 * kBoxes + s]))};
      for (int p = 0; p < 3; ++p) {
        const double* m = kMix[p];
        const double before = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
        const double after = m[0] * a2 * v[0] + (m[1] * v[1] + m[2] * v[2]) * b2;
        cell[p * kBoxes + s] += float(std::log(after / before));
      }
      cell[3 * kBoxes + s] += float(std::log(a2));
      cell[4 * kBoxes + s] += float(std::log(b2));
      cell[5 * kBoxes + s] += float(std::log(b2));
    }
  }
}

std::vector<float> noise_map_cells(const NoiseNet& net, const float* rgb, int width, int height, int threads,
                                   NoiseNetIsa isa) {
  if (threads <= 0) threads = omp_get_max_threads();
  const RgbRows rows{rgb, width, 0, height};
  return noise_map_rows(net, rows, width, height, padded_side(width, net.tile), 0,
                        padded_side(height, net.tile) / net.tile, threads, isa);
}

int learned_reach(const DenoiseNet& d) {
  // A band's tiles start up to align - 1 rows further out; the map reads a
  // cell beyond the rows it covers, and that cell's noise tile (at most
  // the extension's multiple; check_nets) another tile beyond.
  return denoise_net_reach(d) + d.align + extension(d) + 2 * d.map_cell;
}

int learned_grid(const DenoiseNet& d) { return extension(d); }

void map_input(const DenoiseNet& d, const std::vector<float>& cells, int cells_x, int cells_y, float shift, int x0,
               int y0, int w, int h, float* out) {
  map_input(d, cells.data(), 0, cells_x, cells_y, shift, x0, y0, w, h, out);
}

void map_input(const DenoiseNet& d, const float* cells, int first_cell_row, int cells_x, int cells_y, float shift,
               int x0, int y0, int w, int h, float* out) {
  const int n = d.map_channels;
  // Half-resolution pixels a cell: 8 px cells seen at 1/2 give 4.
  const double per_cell = double(d.map_cell) / double(d.map_resolution);
  const float offset = float(d.map_offset), scale = float(d.map_scale);
  auto at = [&](int cx, int cy, int c) { return cells[(size_t(cy - first_cell_row) * cells_x + cx) * size_t(n) + c]; };
  for (int y = 0; y < h; ++y) {
    int y_0, y_1;
    float ly;
    map_taps(per_cell, y0 + y, cells_y, y_0, y_1, ly);
    for (int x = 0; x < w; ++x) {
      int x_0, x_1;
      float lx;
      map_taps(per_cell, x0 + x, cells_x, x_0, x_1, lx);
      float* o = out + (size_t(y) * w + x) * size_t(n);
      for (int c = 0; c < n; ++c)
        o[c] = map_value(at(x_0, y_0, c), at(x_1, y_0, c), at(x_0, y_1, c), at(x_1, y_1, c), lx, ly, shift, offset,
                         scale);
    }
  }
}

LearnedBand learned_band(const DenoiseNet& d, int noise_tile, int width, int height, int y0, int y1) {
  LearnedBand b;
  b.pw = padded_side(width, extension(d));
  b.ph = padded_side(height, extension(d));
  const int reach = denoise_net_reach(d), r = d.map_resolution, a = d.align;
  b.top = std::max(0, align_down(y0 - reach, a));
  b.bottom = std::min(b.ph, align_up(y1 + reach, a));
  b.cells_x = b.pw / d.map_cell;
  b.cells_y = b.ph / d.map_cell;
  const double per_cell = double(d.map_cell) / double(r);
  int unused_i;
  float unused_l;
  map_taps(per_cell, b.top / r, b.cells_y, b.c0, unused_i, unused_l);
  map_taps(per_cell, b.bottom / r - 1, b.cells_y, unused_i, b.c1, unused_l);
  ++b.c1;
  b.first_cell_row = b.c0;
  b.cell_rows = b.c1 - b.c0;
  if (noise_tile > 0) {
    const int per_side = noise_tile / d.map_cell;
    b.tile_row0 = b.c0 / per_side;
    b.tile_row1 = (b.c1 + per_side - 1) / per_side;
    b.first_cell_row = b.tile_row0 * per_side;
    b.cell_rows = (b.tile_row1 - b.tile_row0) * per_side;
  }
  return b;
}

void learned_denoise_rows(const DenoiseNet& d, const NoiseNet* noise_net, const RgbRows& rows, int width, int height,
                          int y0, int y1, float* out, const LearnedDenoiseOptions& options) {
  if (width < 1 || height < 1) throw std::invalid_argument("learned_denoise_rows: an image without pixels");
  if (y0 < 0 || y1 > height || y0 >= y1) throw std::invalid_argument("learned_denoise_rows: no rows of the image");
  const bool given = options.sigma > 0;
  check_nets(d, noise_net, given);
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  if (extension(d) % d.align != 0) throw NoiseNetError("the learned denoiser's alignment does not divide its extension");
  const LearnedBand band = learned_band(d, given ? 0 : noise_net->tile, width, height, y0, y1);
  const int pw = band.pw, ph = band.ph, cells_x = band.cells_x, cells_y = band.cells_y;
  const int reach = denoise_net_reach(d), r = d.map_resolution, a = d.align;
  // The denoiser's tiles: cores of about options.tile over rows [y0, y1)
  // (rows split evenly, so a band's last core is not a sliver), each read
  // with `reach` around it from an aligned start (zeros beyond the extended
  // image, as training padded).
  const int core_x = std::max(a, padded_side(options.tile, a));
  const int parts_y = std::max(1, (y1 - y0 + core_x - 1) / core_x);
  const int core_y = (y1 - y0 + parts_y - 1) / parts_y;
  const int tiles_x = (width + core_x - 1) / core_x;
  const int top = band.top, bottom = band.bottom, first_cell_row = band.first_cell_row;

  // The map's cells those tiles read: the noise network's on whole tile
  // rows, or white noise's.
  std::vector<float> cells;
  if (given) {
    const std::vector<float> one = white_noise_cells(options.sigma);
    cells.reserve(size_t(cells_x) * size_t(band.cell_rows) * one.size());
    for (int k = 0; k < cells_x * band.cell_rows; ++k) cells.insert(cells.end(), one.begin(), one.end());
  } else {
    cells = noise_map_rows(*noise_net, rows, width, height, pw, band.tile_row0, band.tile_row1, threads, options.isa);
  }
  scale_map_cells(cells, d.map_channels, options.luminance, options.colour);
  const float shift = float(2.0 * std::log(std::max(options.strength, 1e-3)));

  std::vector<const float*> band_rows(size_t(bottom - top));
  for (int y = top; y < bottom; ++y) band_rows[size_t(y - top)] = padded_row(rows, y, height);
  std::vector<DenoiseNetScratch> scratch(static_cast<size_t>(threads));
  for (DenoiseNetScratch& s : scratch) s.isa = options.isa;
  // Tiles started or skipped, for the share done; a stop skips the rest.
  std::atomic<int> taken{0};
  std::atomic<bool> stop{false};
  const int tile_count = tiles_x * parts_y;
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> in, map, result;
#pragma omp for schedule(dynamic)
    for (int k = 0; k < tile_count; ++k) {
      const int started = ++taken;
      if (stop.load(std::memory_order_relaxed)) continue;
      if (options.keep_going && omp_get_thread_num() == 0 && !options.keep_going(double(started - 1) / tile_count)) {
        stop = true;
        continue;
      }
      const int cx0 = (k % tiles_x) * core_x, cy0 = y0 + (k / tiles_x) * core_y;
      const int cx1 = std::min(cx0 + core_x, width), cy1 = std::min(cy0 + core_y, y1);
      const int tx0 = std::max(0, cx0 - reach), tx1 = std::min(pw, cx0 + core_x + reach);
      const int ty0 = std::max(0, align_down(cy0 - reach, a)), ty1 = std::min(ph, align_up(cy1 + reach, a));
      const int w = tx1 - tx0, h = ty1 - ty0;
      in.resize(size_t(w) * h * 3);
      result.resize(in.size());
      for (int y = 0; y < h; ++y) {
        const float* row = band_rows[size_t(ty0 + y - top)];
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < 3; ++c) in[(size_t(y) * w + x) * 3 + c] = row[size_t(mirrored(tx0 + x, width)) * 3 + c];
      }
      map.resize(size_t(w / r) * size_t(h / r) * size_t(d.map_channels));
      map_input(d, cells.data(), first_cell_row, cells_x, cells_y, shift, tx0 / r, ty0 / r, w / r, h / r, map.data());
      denoise_net_forward(d, in.data(), map.data(), w, h, result.data(), scratch[size_t(omp_get_thread_num())]);
      for (int y = cy0; y < cy1; ++y)
        for (int x = cx0; x < cx1; ++x)
          for (int c = 0; c < 3; ++c)
            out[(size_t(y - y0) * width + x) * 3 + c] =
                std::clamp(result[(size_t(y - ty0) * w + (x - tx0)) * 3 + c], 0.0f, 1.0f);
    }
  }
}

void learned_denoise_rgb(const DenoiseNet& d, const NoiseNet& noise_net, const float* rgb, int width, int height,
                         float* out, const LearnedDenoiseOptions& options) {
  if (width < 1 || height < 1) throw std::invalid_argument("learned_denoise_rgb: an image without pixels");
  const RgbRows rows{rgb, width, 0, height};
  learned_denoise_rows(d, &noise_net, rows, width, height, 0, height, out, options);
}

}  // namespace edgewise
