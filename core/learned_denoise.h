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
#include <vector>

#include "denoise_net.h"
#include "noise_net.h"

namespace edgewise {

struct LearnedDenoiseOptions {
  // Multiplies the noise map's deviations (2 log strength added to every
  // log-variance): above 1 removes more, below 1 keeps more.
  double strength = 1.0;
  // Above 0: the map white noise of this deviation (code values of the
  // 8-bit scale, every channel) has, instead of the noise network's
  // reading.
  double sigma = 0.0;
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

// The denoiser's map input for the half-resolution pixels [x0, x0 + w) x
// [y0, y0 + h) of an image whose cells are cells_x x cells_y (cell = 8 px,
// so 4 half-resolution pixels a cell): (log-variance + shift - offset) *
// scale, bilinear between the cells' centres, the edges held (PyTorch's
// interpolate, bilinear, align_corners false).
void map_input(const DenoiseNet& d, const std::vector<float>& cells, int cells_x, int cells_y, float shift, int x0,
               int y0, int w, int h, float* out);

// Denoises width x height interleaved R'G'B' samples (0..1) into out (the
// same layout, clipped to 0..1). Throws NoiseNetError when the denoiser
// was trained with another noise network than `noise_net`.
void learned_denoise_rgb(const DenoiseNet& d, const NoiseNet& noise_net, const float* rgb, int width, int height,
                         float* out, const LearnedDenoiseOptions& options);

}  // namespace edgewise
