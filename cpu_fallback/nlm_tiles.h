// The non-local-means bilateral filter's tile kernel, compiled once per
// instruction set (nlm_tiles_*.cpp define EW_ISA_NAMESPACE before including
// it). A tile of output pixels is filtered offset by offset: for each
// search offset, the tile's difference image E (squared differences of the
// pixel and its shifted twin, over the tile and its patch margin), its
// horizontal box sums H, then per pixel the vertical box sum of H (the
// patch distance), one weight and the weighted sums. The loops over a row
// are plain float loops the compiler vectorises; every pixel is computed
// by one thread in the same order whatever the tiling, so results do not
// depend on band height or thread count.
#include <algorithm>
#include <cstring>
#include <vector>

#include "nlm_cpu.h"
#include "nlm_math.h"

namespace edgewise::cpu::EW_ISA_NAMESPACE {

namespace {

constexpr int kLanes = EW_LANE_WIDTH;
using Lanes = float_lanes<kLanes>;

Lanes load(const float* from) {
  Lanes value;
  std::memcpy(&value, from, sizeof value);
  return value;
}

template <RangeKernel K, int C, bool Joint, bool Alpha>
void filter_tile(const NlmParams& p, const PaddedBand& band, const OutputBand& out, const NlmTile& tile,
                 NlmScratch& scratch) {
  constexpr int kGroups = Joint ? 1 : C;
  constexpr int kGroupChannels = Joint ? C : 1;
  const int S = p.search_radius, f = p.patch_radius, reach = S + f;
  const int rows = tile.rows, cols = tile.cols;
  const int e_rows = rows + 2 * f, e_cols = cols + 2 * f;
  scratch.resize(size_t(kGroups) * size_t(e_rows) * size_t(e_cols) + kLanes,
                 size_t(kGroups) * size_t(e_rows) * size_t(cols), size_t(rows) * size_t(cols) * size_t(C + kGroups),
                 size_t(cols) + kLanes, size_t(kGroups) * size_t(rows) * size_t(cols) + kLanes);
  float* const E = scratch.difference.data();
  float* const H = scratch.horizontal.data();
  float* const sums = scratch.sums.data();  // C channel sums, then kGroups weight sums, each rows * cols
  const size_t plane = size_t(rows) * size_t(cols);
  std::fill(sums, sums + plane * size_t(C + kGroups), 0.0f);
  auto fetch_at = [&](int j, int x) {
    const int row = tile.row0 + j + reach, col = tile.col0 + x + band.pad;
    return [&band, row, col](int ox, int oy, float* colour, float& a) {
      for (int c = 0; c < C; ++c) colour[c] = band.row(c, row + oy)[col + ox];
      a = Alpha ? band.row(C, row + oy)[col + ox] : 1.0f;
    };
  };
  // Each pixel's distance scale, once for all offsets.
  float* const scale = scratch.scale.data();  // kGroups planes of rows * cols
  for (int g = 0; g < kGroups; ++g)
    for (int j = 0; j < rows; ++j)
      for (int x = 0; x < cols; ++x)
        scale[size_t(g) * plane + size_t(j) * size_t(cols) + size_t(x)] = nlm_distance_scale(p, fetch_at(j, x), g);

  for (int dy = -S; dy <= S; ++dy)
    for (int dx = -S; dx <= S; ++dx) {
      const float spatial = nlm_spatial_log2(p, dx, dy);
      // E over the tile and its patch margin.
      for (int y = 0; y < e_rows; ++y) {
        const int row = tile.row0 + y - f + reach;  // band row of the pixel
        const int col = tile.col0 - f + band.pad;   // band column of the row's first E
        for (int g = 0; g < kGroups; ++g) {
          float* __restrict e = E + (size_t(g) * size_t(e_rows) + size_t(y)) * size_t(e_cols);
          for (int c = 0; c < kGroupChannels; ++c) {
            const float* __restrict a = band.row(Joint ? c : g, row) + col;
            const float* __restrict b = band.row(Joint ? c : g, row + dy) + col + dx;
            if (c == 0) {
              for (int x = 0; x < e_cols; ++x) e[x] = (a[x] - b[x]) * (a[x] - b[x]);
            } else {
              for (int x = 0; x < e_cols; ++x) e[x] += (a[x] - b[x]) * (a[x] - b[x]);
            }
          }
          // H: the horizontal box sums of this row.
          float* __restrict h = H + (size_t(g) * size_t(e_rows) + size_t(y)) * size_t(cols);
          for (int x = 0; x < cols; ++x) h[x] = e[x];
          for (int t = 1; t <= 2 * f; ++t)
            for (int x = 0; x < cols; ++x) h[x] += e[x + t];
        }
      }
      // Per output row: the vertical box sum, the weight, the sums.
      for (int j = 0; j < rows; ++j) {
        const int qrow = tile.row0 + j + reach + dy;
        const int qcol = tile.col0 + band.pad + dx;
        const float* __restrict alpha = Alpha ? band.row(C, qrow) + qcol : nullptr;
        for (int g = 0; g < kGroups; ++g) {
          const float* __restrict h = H + (size_t(g) * size_t(e_rows) + size_t(j)) * size_t(cols);
          const float* __restrict centre = E + (size_t(g) * size_t(e_rows) + size_t(j + f)) * size_t(e_cols) + f;
          float* __restrict weights = sums + (size_t(C + g) * size_t(rows) + size_t(j)) * size_t(cols);
          float* __restrict box = scratch.box.data();
          for (int x = 0; x < cols; ++x) box[x] = h[x];
          for (int t = 1; t <= 2 * f; ++t)
            for (int x = 0; x < cols; ++x) box[x] += h[size_t(t) * size_t(cols) + size_t(x)];
          // The weights a vector at a time (the compiler does not vectorise
          // the exponential's bit tricks): lanes past `cols` read the
          // buffers' overhang and are never used.
          float* __restrict w = scratch.weight.data();
          const float* __restrict pixel_scale = scale + size_t(g) * plane + size_t(j) * size_t(cols);
          for (int x = 0; x < cols; x += kLanes) {
            Lanes value = nlm_weight<K>(p, load(box + x), load(centre + x), spatial, load(pixel_scale + x));
            if constexpr (Alpha) value *= load(alpha + x);
            std::memcpy(w + x, &value, sizeof value);
          }
          for (int x = 0; x < cols; ++x) weights[x] += w[x];
          for (int c = 0; c < kGroupChannels; ++c) {
            const int channel = Joint ? c : g;
            const float* __restrict q = band.row(channel, qrow) + qcol;
            float* __restrict sum = sums + (size_t(channel) * size_t(rows) + size_t(j)) * size_t(cols);
            for (int x = 0; x < cols; ++x) sum[x] += w[x] * q[x];
          }
        }
      }
    }

  // Results in working units; a pixel whose weights all underflowed (a
  // transparent one) is recomputed with its weights scaled.
  for (int j = 0; j < rows; ++j)
    for (int g = 0; g < kGroups; ++g) {
      const float* weights = sums + (size_t(C + g) * size_t(rows) + size_t(j)) * size_t(cols);
      for (int x = 0; x < cols; ++x) {
        float value[3];
        if (weights[x] >= kNlmRescueWeightSum) {
          for (int c = 0; c < kGroupChannels; ++c) {
            const int channel = Joint ? c : g;
            value[channel] = sums[(size_t(channel) * size_t(rows) + size_t(j)) * size_t(cols) + size_t(x)] / weights[x];
          }
        } else {
          nlm_rescue_pixel(p, fetch_at(j, x), g, value);
        }
        for (int c = 0; c < kGroupChannels; ++c) {
          const int channel = Joint ? c : g;
          out.row(channel, tile.row0 + j)[tile.col0 + x] = value[channel] * p.inverse_unit;
        }
      }
    }
}

template <RangeKernel K>
NlmTileFunction select_layout(const NlmParams& p) {
  if (p.color_channels == 1) return p.has_alpha ? filter_tile<K, 1, true, true> : filter_tile<K, 1, true, false>;
  if (p.joint) return p.has_alpha ? filter_tile<K, 3, true, true> : filter_tile<K, 3, true, false>;
  return p.has_alpha ? filter_tile<K, 3, false, true> : filter_tile<K, 3, false, false>;
}

}  // namespace

NlmTileFunction select_nlm(const NlmParams& p) {
  switch (p.kernel) {
    case RangeKernel::tukey:
      return select_layout<RangeKernel::tukey>(p);
    case RangeKernel::lorentz:
      return select_layout<RangeKernel::lorentz>(p);
    case RangeKernel::huber:
      return select_layout<RangeKernel::huber>(p);
    default:
      return select_layout<RangeKernel::gaussian>(p);
  }
}

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
