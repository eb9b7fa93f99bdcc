// The Fourier bilateral filter's reduced-resolution passes (sigma-s >= 12;
// fourier_design.h, CoarseGrid), compiled once per instruction set: this
// file is included by fourier_passes.h inside its anonymous namespace,
// where V (W float lanes), load, store, splat and load_columns are defined.
// A vector is W neighbouring pixels of a row, or W neighbouring cells of a
// grid row. Three steps for one colour channel (FourierCoarsePass):
//   cells: a grid row of cells, every plane: the band's s rows of the term
//     images summed per column, then s columns per cell (clamped), / s^2;
//   blur: the grid's rows by the cell Gaussian's taps, then its columns,
//     over the inner cells only (the grid is R wider on every side);
//   output: rows of output pixels: each needed blurred cell row expanded
//     to the row's pixels (the horizontal interpolation, kept for the next
//     rows that use it), the two around the row interpolated vertically,
//     and combined with the pixel's own term values into D and E.
// Every cell and pixel is computed in one fixed order whatever the band or
// the thread: results do not depend on either.

// The term values k = 1..N at centred samples u, handed to `use(k, c, s)`:
// term 1 from its sine pair, the rest by rotation, with a fresh pair every
// kFourierGroupTerms terms as the full-resolution passes have it (the
// rotations' rounding adds up over the steps).
template <class Use>
inline void coarse_terms(const FourierParams& p, const FourierChannel& channel, V u, Use use) {
  V base_c, base_s;
  fourier_term_pair(u, channel.turns_per_unit, base_c, base_s);
  V c = base_c, s = base_s;
  for (int k = 1; k <= p.terms; ++k) {
    if (k > 1) {
      if ((k - 1) % kFourierGroupTerms == 0)
        fourier_term_pair(u, float(double(k) * double(channel.turns_per_unit)), c, s);
      else
        fourier_rotate(c, s, base_c, base_s);
    }
    use(k, c, s);
  }
}

// The s rows of one cell row summed at W columns for the group's terms
// (and alpha, when `with_alpha`), held in registers over the rows, stored
// into the sums' planes. The term values are the full-resolution passes'
// (term_values: the group's first term from its pair, the rest rotated).
template <int Count>
inline void column_sums(const FourierCoarsePass& pass, const FourierGroupTerms& group, int v0, int x,
                        bool with_alpha, float* sums) {
  const size_t line = size_t(pass.vector_width);
  const int alpha_planes = pass.alpha ? 1 : 0;
  V cos_sum[Count], sin_sum[Count], alpha_sum = splat(0.0f);
  for (int t = 0; t < Count; ++t) cos_sum[t] = sin_sum[t] = splat(0.0f);
  for (int v = v0; v < v0 + pass.params->coarse_step; ++v) {
    const size_t band_row = size_t(std::clamp(v, 0, pass.height - 1) - pass.first_row);
    const V u = load_columns(pass.samples + band_row * pass.stride, x, pass.width);
    const V a = pass.alpha ? load_columns(pass.alpha + band_row * pass.stride, x, pass.width) : splat(1.0f);
    alpha_sum += a;
    V c[Count], sn[Count];
    term_values<Count>(group, u, c, sn);
    for (int t = 0; t < Count; ++t) {
      cos_sum[t] += pass.alpha ? c[t] * a : c[t];
      sin_sum[t] += pass.alpha ? sn[t] * a : sn[t];
    }
  }
  if (with_alpha) store(sums + x, alpha_sum);
  for (int t = 0; t < Count; ++t) {
    float* cos_plane = sums + size_t(alpha_planes + 2 * (group.first - 1 + t)) * line + x;
    store(cos_plane, cos_sum[t]);
    store(cos_plane + line, sin_sum[t]);
  }
}

template <int Count>
inline void column_sums_for(const FourierCoarsePass& pass, const FourierGroupTerms& group, int v0, int x,
                            bool with_alpha, float* sums) {
  if constexpr (Count < kFourierGroupTerms) {
    if (group.count != Count) return column_sums_for<Count + 1>(pass, group, v0, x, with_alpha, sums);
  }
  column_sums<Count>(pass, group, v0, x, with_alpha, sums);
}

// Grid row `row` of cells (every plane): cell (i, j) averages the term
// images over the virtual pixels [i s, i s + s) x [j s, j s + s), those
// beyond the image being the clamped edge pixels (rows clamped to the
// image, which the band holds; columns by load_columns and here). The term
// values as coarse_terms has them: a fresh pair every kFourierGroupTerms.
void coarse_cells(const FourierCoarsePass& pass, int row, FourierScratch& scratch) {
  const FourierParams& p = *pass.params;
  const int s = p.coarse_step, planes = pass.planes, width = pass.width;
  const size_t line = size_t(pass.vector_width);
  float* sums = scratch.coarse_sums.data();  // plane l at l * line
  const int v0 = (pass.cell_y0 + row) * s;
  for (int first = 1; first <= p.terms; first += kFourierGroupTerms) {
    FourierGroupTerms group;  // its coefficients are not needed here
    group.first = first;
    group.count = std::min(kFourierGroupTerms, p.terms - first + 1);
    group.base = pass.channel->turns_per_unit;
    group.first_frequency = float(double(first) * double(pass.channel->turns_per_unit));
    for (int x = 0; x < width; x += W) column_sums_for<1>(pass, group, v0, x, pass.alpha && first == 1, sums);
  }
  // Per plane, s columns a cell: the cells that reach beyond the image
  // (a few at each end) from clamped columns; then, in place, the sums of
  // s columns from every column on, W at a time, whose values at the
  // cells' first columns are the inner cells.
  const float scale = 1.0f / float(s * s);
  const int inner_first = std::max(0, -pass.cell_x0), inner_end = std::min(pass.grid_w, width / s - pass.cell_x0);
  for (int l = 0; l < planes; ++l) {
    float* from = sums + size_t(l) * line;
    float* to = pass.cells + (size_t(l) * size_t(pass.grid_h) + size_t(row)) * size_t(pass.grid_w);
    for (int i = 0; i < pass.grid_w; ++i) {
      if (i == inner_first && inner_first < inner_end) i = inner_end;
      if (i >= pass.grid_w) break;
      const int x0 = (pass.cell_x0 + i) * s;
      float sum = 0.0f;
      for (int x = x0; x < x0 + s; ++x) sum += from[std::clamp(x, 0, width - 1)];
      to[i] = sum * scale;
    }
    for (int x = 0; x < width; x += W) {
      V sum = load(from + x);
      for (int m = 1; m < s; ++m) sum += load(from + x + m);
      store(from + x, sum);
    }
    for (int i = inner_first; i < inner_end; ++i) to[i] = from[(pass.cell_x0 + i) * s] * scale;
  }
}

// The cell Gaussian along grid row `row` of plane `plane`: the inner cells.
void coarse_blur_row(const FourierCoarsePass& pass, int plane, int row) {
  const FourierParams& p = *pass.params;
  const int R = p.coarse_radius;
  const float* from = pass.cells + (size_t(plane) * size_t(pass.grid_h) + size_t(row)) * size_t(pass.grid_w) + R;
  float* to = pass.rows_blurred + (size_t(plane) * size_t(pass.grid_h) + size_t(row)) * size_t(pass.inner_w);
  int i = 0;
  for (; i + W <= pass.inner_w; i += W) {
    V sum = splat(p.coarse_tap[0]) * load(from + i);
    for (int n = 1; n <= R; ++n) sum += splat(p.coarse_tap[n]) * (load(from + i - n) + load(from + i + n));
    store(to + i, sum);
  }
  for (; i < pass.inner_w; ++i) {
    float sum = p.coarse_tap[0] * from[i];
    for (int n = 1; n <= R; ++n) sum += p.coarse_tap[n] * (from[i - n] + from[i + n]);
    to[i] = sum;
  }
}

// The cell Gaussian down the grid's columns for inner row `row` of plane `plane`.
void coarse_blur_column(const FourierCoarsePass& pass, int plane, int row) {
  const FourierParams& p = *pass.params;
  const int R = p.coarse_radius;
  const size_t stride = size_t(pass.inner_w);
  const float* from = pass.rows_blurred + (size_t(plane) * size_t(pass.grid_h) + size_t(row + R)) * stride;
  float* to = pass.blurred + (size_t(plane) * size_t(pass.inner_h) + size_t(row)) * stride;
  const ptrdiff_t step = ptrdiff_t(stride);  // signed: the taps above go back
  int i = 0;
  for (; i + W <= pass.inner_w; i += W) {
    V sum = splat(p.coarse_tap[0]) * load(from + i);
    for (int n = 1; n <= R; ++n)
      sum += splat(p.coarse_tap[n]) * (load(from + i - n * step) + load(from + i + n * step));
    store(to + i, sum);
  }
  for (; i < pass.inner_w; ++i) {
    float sum = p.coarse_tap[0] * from[i];
    for (int n = 1; n <= R; ++n) sum += p.coarse_tap[n] * (from[i - n * step] + from[i + n * step]);
    to[i] = sum;
  }
}

// Inner row `row` of the blurred cells, every plane, interpolated along
// the row to each pixel, into `to` (plane l at l * line): for W pixels the
// W cells from their first one's left cell, the left and right cells of
// each lane picked by a permutation (cells are at least 3 pixels wide, so
// W pixels span at most W / 3 + 2 cells).
using U = uint_lanes<W>;

// window[lane[i]] in lane i (one vpermps or vpermt2ps; GCC's __builtin_shuffle would
// do, but clang, which builds the sanitizer and fuzzing stages, lacks it).
inline V permute(V window, U lane) {
#if EW_LANE_WIDTH == 16
  return (V)_mm512_permutex2var_ps((__m512)window, (__m512i)lane, (__m512)window);
#elif EW_LANE_WIDTH == 8
  return (V)_mm256_permutevar8x32_ps((__m256)window, (__m256i)lane);
#else
  V out;
  for (int i = 0; i < W; ++i) out[i] = window[lane[i]];
  return out;
#endif
}

void coarse_expand(const FourierCoarsePass& pass, int row, float* to) {
  const size_t line = size_t(pass.vector_width);
  for (int l = 0; l < pass.planes; ++l) {
    const float* cells = pass.blurred + (size_t(l) * size_t(pass.inner_h) + size_t(row)) * size_t(pass.inner_w);
    float* out = to + size_t(l) * line;
    for (int x = 0, v = 0; x < pass.width; x += W, ++v) {
      const V window = load(cells + pass.vector_cell[v]);
      U lane;
      std::memcpy(&lane, pass.column_lane + x, sizeof lane);
      const V left = permute(window, lane), right = permute(window, lane + 1u);
      store(out + x, left + load(pass.column_weight + x) * (right - left));
    }
  }
}

// Output rows [first, first + count) of the channel.
void coarse_output(const FourierCoarsePass& pass, int first, int count, FourierScratch& scratch) {
  const FourierParams& p = *pass.params;
  const size_t line = size_t(pass.vector_width), lines = size_t(pass.planes) * line;
  float* expanded[2] = {scratch.coarse_lines.data(), scratch.coarse_lines.data() + lines};
  int held[2] = {-1, -1};  // the inner cell row each holds
  // Inner row `row` expanded, into the slot that does not hold `keep`.
  auto expanded_row = [&](int row, int keep) -> const float* {
    for (int slot = 0; slot < 2; ++slot)
      if (held[slot] == row) return expanded[slot];
    const int slot = held[0] == keep ? 1 : 0;
    coarse_expand(pass, row, expanded[slot]);
    held[slot] = row;
    return expanded[slot];
  };
  const int alpha_planes = pass.alpha ? 1 : 0;
  const float a0 = pass.cosine[0];
  for (int j = first; j < first + count; ++j) {
    const int y = pass.out_first_row + j;
    int cell;
    float weight;
    fourier_coarse_position(p, y, cell, weight);
    const int row = cell - (pass.cell_y0 + p.coarse_radius);
    const float* top = expanded_row(row, row + 1);
    const float* bottom = expanded_row(row + 1, row);
    const V ty = splat(weight);
    const float* samples = pass.samples + size_t(y - pass.first_row) * pass.stride;
    float* out = pass.output + size_t(j) * pass.output_stride;
    for (int x = 0; x < pass.width; x += W) {
      auto at = [&](int l) {
        const V t = load(top + size_t(l) * line + x);
        return t + ty * (load(bottom + size_t(l) * line + x) - t);
      };
      const V u = load_columns(samples, x, pass.width);
      const V A = pass.alpha ? at(0) : splat(1.0f);
      V D = splat(a0) * A, E = splat(0.0f);
      coarse_terms(p, *pass.channel, u, [&](int k, V c, V sn) {
        const V C = at(alpha_planes + 2 * (k - 1)), S = at(alpha_planes + 2 * (k - 1) + 1);
        D += splat(pass.cosine[k]) * (c * C + sn * S);
        E += splat(pass.sine[k]) * (c * S - sn * C);
      });
      const V result = fourier_output(p, *pass.channel, u, E, D, A) * p.inverse_unit;
      if (x + W <= pass.width) {
        store(out + x, result);
      } else {
        for (int lane = 0; x + lane < pass.width; ++lane) out[x + lane] = result[lane];
      }
    }
  }
}
