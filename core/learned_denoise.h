// The learned denoiser on a whole R'G'B' image (issue 35): the noise map
// read by the noise-map network on every 64 x 64 tile, spread over the
// denoiser's half-resolution grid as training/denoise_net.py's map_input
// spreads it, and the denoiser run on tiles whose overlap covers its reach,
// so that the result is the network's on the whole image, bit for bit,
// whatever the tile size and the thread count.
//
// The image is extended by mirroring to a multiple of 64 px a side (the
// noise network's tiles; training read it on whole tiles), the denoiser
// runs on that, and the image's own pixels are returned.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "denoise_net.h"
#include "noise_net.h"

namespace edgewise {

// The image is extended by mirroring to multiples of this many pixels (and
// of the denoiser's alignment): the noise network's tiles, which it reads
// whole, as training did.
constexpr int kLearnedExtension = 64;

struct LearnedDenoiseOptions {
  // Multiplies the noise map's deviations (2 log strength added to every
  // log-variance): above 1 removes more, below 1 keeps more.
  double strength = 1.0;
  // Multiply the map's luma (Y) and chroma (C1, C2) deviations, and R, G
  // and B's as they mix them (each cell's own variances weighing the
  // parts, as denoise.h's scaled_noise scales an estimate's channels): the
  // Denoise front end's Luminance and Colour (times its Strength).
  double luminance = 1.0;
  double colour = 1.0;
  // Above 0: the map white noise of this deviation (code values of the
  // 8-bit scale, every channel) has, instead of the noise network's
  // reading.
  double sigma = 0.0;
  // Called on the calling thread between its tiles with the share done
  // (0 to 1); false stops the work (the output is then incomplete, and the
  // caller must not use it). May be empty.
  std::function<bool(double)> keep_going;
  int tile = 256;    // the denoiser's tiles' core, rounded up to its alignment
  int threads = 0;   // 0: OpenMP's default
  NoiseNetIsa isa = NoiseNetIsa::automatic;
};

// The pixels a denoiser's output depends on, either side: the sum over the
// program of each step's reach at its scale (a k x k convolution at 1/s
// reaches (k / 2) s px, an unshuffle or shuffle by f at 1/s joins
// (f - 1) s px), rounded up to the network's alignment.
int denoise_net_reach(const DenoiseNet& d);

// The 18 log-variances white noise of deviation sigma (R, G and B alike)
// has, in the map's order (noise_net.py's, denoise_net.white_log_variance).
std::vector<float> white_noise_cells(double sigma);

// The image's sides extended to multiples of `multiple`, and a sample's
// index in the mirrored extension (edge pixel not repeated: ... 2 1 0 1 2).
int padded_side(int side, int multiple);
int mirrored(int i, int side);

// The noise map's cells (the noise network's outputs, cell by cell, each
// net.outputs floats, row by row) of the image extended by mirroring to
// multiples of noise_net.tile: padded width / cell x padded height / cell.
std::vector<float> noise_map_cells(const NoiseNet& noise_net, const float* rgb, int width, int height, int threads,
                                   NoiseNetIsa isa);

// Multiplies the map's deviations (cells of the noise map's 18 outputs):
// Y's by `luminance`, C1's and C2's by `colour`, and R's, G's and B's by
// what those make of them at the same box size (R = Y / sqrt3 + C1 / sqrt2
// + C2 / sqrt6, G = Y / sqrt3 - 2 C2 / sqrt6, B = Y / sqrt3 - C1 / sqrt2 +
// C2 / sqrt6), each cell weighing the parts by its own variances, as
// denoise.h's scaled_noise scales an estimate. `n`: floats a cell.
void scale_map_cells(std::vector<float>& cells, int n, double luminance, double colour);

// The denoiser's map input for the half-resolution pixels [x0, x0 + w) x
// [y0, y0 + h) of an image whose cells are cells_x x cells_y (cell = 8 px,
// so 4 half-resolution pixels a cell): (log-variance + shift - offset) *
// scale, bilinear between the cells' centres, the edges held (PyTorch's
// interpolate, bilinear, align_corners false).
void map_input(const DenoiseNet& d, const std::vector<float>& cells, int cells_x, int cells_y, float shift, int x0,
               int y0, int w, int h, float* out);
// The same from the cells of rows [first_cell_row, ...) only (`cells`
// points at that row's first cell); cells_y is still the whole map's.
void map_input(const DenoiseNet& d, const float* cells, int first_cell_row, int cells_x, int cells_y, float shift,
               int x0, int y0, int w, int h, float* out);

// Rows of an image's interleaved R'G'B' samples (0..1) in memory: image
// rows [first_row, first_row + rows), `width` pixels each.
struct RgbRows {
  const float* data = nullptr;
  int width = 0;
  int first_row = 0;
  int rows = 0;
  const float* row(int y) const { return data + size_t(y - first_row) * size_t(width) * 3; }
};

// Image rows an output row of the learned denoiser depends on, either side:
// the denoiser's reach, its tiles' alignment, and the noise map's cells
// (bilinear between their centres) from the noise network's tiles.
int learned_reach(const DenoiseNet& d);
// The grid a part of an image filtered alone must start on to give the
// whole image's pixels (core/region.h): the extension's multiple.
int learned_grid(const DenoiseNet& d);

// What the work on image rows [y0, y1) reads, for both backends: the
// extended image's sides, the rows the denoiser's tiles read (from an
// aligned start, `reach` around), the map's cells they read (rows [c0, c1),
// bilinear taps) and, with a noise network of tile `noise_tile` (0: white
// noise), the whole tile rows whose cells hold them.
struct LearnedBand {
  int pw = 0, ph = 0;          // the image extended to multiples of learned_grid
  int top = 0, bottom = 0;     // the extended image's rows the denoiser reads
  int cells_x = 0, cells_y = 0;
  int c0 = 0, c1 = 0;          // cell rows the map reads
  int first_cell_row = 0;      // cell rows held: [first_cell_row, first_cell_row + cell_rows)
  int cell_rows = 0;
  int tile_row0 = 0, tile_row1 = 0;  // noise tile rows run (with a noise network)
};
LearnedBand learned_band(const DenoiseNet& d, int noise_tile, int width, int height, int y0, int y1);

// Image rows [y0, y1) of the denoised image (width x height) into out
// ((y1 - y0) rows, interleaved, clipped to 0..1), from `rows`, which holds
// every image row within learned_reach of them (clipped to the image;
// std::logic_error otherwise). The noise map's tiles and the denoiser's
// tiles lie on grids from the image's origin, so that any cut of the image
// into row ranges gives the whole image's result, bit for bit.
// `noise_net` may be null where options.sigma is given. Throws
// NoiseNetError when the denoiser was trained with another noise network.
void learned_denoise_rows(const DenoiseNet& d, const NoiseNet* noise_net, const RgbRows& rows, int width, int height,
                          int y0, int y1, float* out, const LearnedDenoiseOptions& options);

// Denoises width x height interleaved R'G'B' samples (0..1) into out (the
// same layout, clipped to 0..1): learned_denoise_rows on the whole image.
// Throws NoiseNetError when the denoiser was trained with another noise
// network than `noise_net`.
void learned_denoise_rgb(const DenoiseNet& d, const NoiseNet& noise_net, const float* rgb, int width, int height,
                         float* out, const LearnedDenoiseOptions& options);

}  // namespace edgewise
