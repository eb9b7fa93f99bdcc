#include "learned_denoise.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

int mirrored(int i, int side) {
  if (side == 1) return 0;
  const int period = 2 * (side - 1);
  i %= period;
  if (i < 0) i += period;
  return i < side ? i : period - i;
}

std::vector<float> noise_map_cells(const NoiseNet& net, const float* rgb, int width, int height, int threads,
                                   NoiseNetIsa isa) {
  const int t = net.tile, pw = padded_side(width, t), ph = padded_side(height, t);
  const int tiles_x = pw / t, tiles_y = ph / t, per_side = t / net.cell;
  const int cells_x = pw / net.cell;
  std::vector<float> cells(size_t(pw / net.cell) * size_t(ph / net.cell) * size_t(net.outputs));
  if (threads <= 0) threads = omp_get_max_threads();
  std::vector<NoiseNetScratch> scratch(static_cast<size_t>(threads));
  for (NoiseNetScratch& s : scratch) s.isa = isa;
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> tile(size_t(t) * size_t(t) * 3), out(size_t(per_side) * per_side * size_t(net.outputs));
#pragma omp for schedule(dynamic)
    for (int k = 0; k < tiles_x * tiles_y; ++k) {
      const int tx = k % tiles_x, ty = k / tiles_x;
      for (int y = 0; y < t; ++y) {
        const float* row = rgb + size_t(mirrored(ty * t + y, height)) * size_t(width) * 3;
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

void map_input(const DenoiseNet& d, const std::vector<float>& cells, int cells_x, int cells_y, float shift, int x0,
               int y0, int w, int h, float* out) {
  const int n = d.map_channels;
  // Half-resolution pixels a cell: 8 px cells seen at 1/2 give 4.
  const double per_cell = double(d.map_cell) / double(d.map_resolution);
  const float offset = float(d.map_offset), scale = float(d.map_scale);
  // PyTorch: source = (destination + 0.5) / per_cell - 0.5, held at 0.
  auto taps = [&](int i, int count, int& i0, int& i1, float& l1) {
    const float source = std::max(0.0f, float((double(i) + 0.5) / per_cell - 0.5));
    i0 = std::min(int(source), count - 1);
    i1 = std::min(i0 + 1, count - 1);
    l1 = source - float(i0);
  };
  auto at = [&](int cx, int cy, int c) { return (cells[(size_t(cy) * cells_x + cx) * size_t(n) + c] + shift - offset) * scale; };
  for (int y = 0; y < h; ++y) {
    int y_0, y_1;
    float ly;
    taps(y0 + y, cells_y, y_0, y_1, ly);
    for (int x = 0; x < w; ++x) {
      int x_0, x_1;
      float lx;
      taps(x0 + x, cells_x, x_0, x_1, lx);
      float* o = out + (size_t(y) * w + x) * size_t(n);
      for (int c = 0; c < n; ++c)
        o[c] = (1 - ly) * ((1 - lx) * at(x_0, y_0, c) + lx * at(x_1, y_0, c)) +
               ly * ((1 - lx) * at(x_0, y_1, c) + lx * at(x_1, y_1, c));
    }
  }
}

void learned_denoise_rgb(const DenoiseNet& d, const NoiseNet& noise_net, const float* rgb, int width, int height,
                         float* out, const LearnedDenoiseOptions& options) {
  if (width < 1 || height < 1) throw std::invalid_argument("learned_denoise_rgb: an image without pixels");
  const bool given = options.sigma > 0;
  if (!given && d.noise_net_sha256 != noise_net.sha256_hex)
    throw NoiseNetError("the learned denoiser was trained on the map of noise network " +
                        d.noise_net_sha256.substr(0, 12) + ", not of " + noise_net.sha256_hex.substr(0, 12));
  if (d.map_channels != noise_net.outputs || d.map_cell != noise_net.cell)
    throw NoiseNetError("the learned denoiser reads a map of " + std::to_string(d.map_channels) + " channels a " +
                        std::to_string(d.map_cell) + " px cell, the noise network gives " +
                        std::to_string(noise_net.outputs) + " a " + std::to_string(noise_net.cell));
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  // The padded image: the noise network's tiles, which the denoiser's alignment divides.
  const int multiple = std::max(noise_net.tile, d.align);
  if (multiple % d.align != 0 || multiple % noise_net.tile != 0)
    throw NoiseNetError("the noise network's tiles and the denoiser's alignment do not nest");
  const int pw = padded_side(width, multiple), ph = padded_side(height, multiple);
  const int cells_x = pw / d.map_cell, cells_y = ph / d.map_cell;
  std::vector<float> cells;
  if (given) {
    const std::vector<float> one = white_noise_cells(options.sigma);
    cells.reserve(size_t(cells_x) * cells_y * one.size());
    for (int k = 0; k < cells_x * cells_y; ++k) cells.insert(cells.end(), one.begin(), one.end());
  } else {
    cells = noise_map_cells(noise_net, rgb, width, height, threads, options.isa);
  }
  const float shift = float(2.0 * std::log(std::max(options.strength, 1e-3)));

  const int core = std::max(d.align, padded_side(options.tile, d.align));
  const int reach = denoise_net_reach(d), r = d.map_resolution;
  // Cores over the image's own pixels; their surroundings reach into the extension.
  const int tiles_x = (width + core - 1) / core, tiles_y = (height + core - 1) / core;
  std::vector<DenoiseNetScratch> scratch(static_cast<size_t>(threads));
  for (DenoiseNetScratch& s : scratch) s.isa = options.isa;
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> in, map, result;
#pragma omp for schedule(dynamic)
    for (int k = 0; k < tiles_x * tiles_y; ++k) {
      const int cx0 = (k % tiles_x) * core, cy0 = (k / tiles_x) * core;
      const int x0 = std::max(0, cx0 - reach), y0 = std::max(0, cy0 - reach);
      const int x1 = std::min(pw, cx0 + core + reach), y1 = std::min(ph, cy0 + core + reach);
      const int w = x1 - x0, h = y1 - y0;
      in.resize(size_t(w) * h * 3);
      result.resize(in.size());
      for (int y = 0; y < h; ++y) {
        const float* row = rgb + size_t(mirrored(y0 + y, height)) * size_t(width) * 3;
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < 3; ++c) in[(size_t(y) * w + x) * 3 + c] = row[size_t(mirrored(x0 + x, width)) * 3 + c];
      }
      map.resize(size_t(w / r) * size_t(h / r) * size_t(d.map_channels));
      map_input(d, cells, cells_x, cells_y, shift, x0 / r, y0 / r, w / r, h / r, map.data());
      denoise_net_forward(d, in.data(), map.data(), w, h, result.data(), scratch[size_t(omp_get_thread_num())]);
      for (int y = cy0; y < std::min(cy0 + core, height); ++y)
        for (int x = cx0; x < std::min(cx0 + core, width); ++x)
          for (int c = 0; c < 3; ++c)
            out[(size_t(y) * width + x) * 3 + c] =
                std::clamp(result[(size_t(y - y0) * w + (x - x0)) * 3 + c], 0.0f, 1.0f);
    }
  }
}

}  // namespace edgewise
