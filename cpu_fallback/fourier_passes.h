// The Fourier bilateral filter's two passes, compiled once per instruction
// set (fourier_passes_*.cpp define EW_ISA_NAMESPACE and EW_LANE_WIDTH, W,
// before including it). A vector is one image at W pixels:
//   columns: W neighbouring columns of a row. The images (alpha cos and
//     alpha sin of each term) are computed from the samples once a row and
//     walk (anticausal up from the band's last row, then causal down from its
//     first) or go through the taps; every W output rows are transposed into
//     the block layout of FourierPass::blurred.
//   rows: W rows of one column, a block; the recursion walks the block's
//     columns (anticausal right to left, causal left to right) or takes the
//     taps, and combines the blurred images with the pixel's own term values
//     into D and E; the last pass writes the output, transposed back.
// Every pixel is computed in the same order whatever the band or the thread
// (a lane's arithmetic does not depend on the lanes beside it): results do
// not depend on the thread count.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "fourier_cpu.h"
#include "fourier_math.h"

namespace edgewise::cpu::EW_ISA_NAMESPACE {

namespace {

constexpr int W = EW_LANE_WIDTH;
using V = float_lanes<W>;

inline V load(const float* from) {
  V value;
  std::memcpy(&value, from, sizeof value);
  return value;
}
inline void store(float* to, V value) { std::memcpy(to, &value, sizeof value); }

// A store that skips the cache (`to` aligned to the vector): the column
// pass's images are read back only after every strip is done, so reading
// their lines in before writing them (as ordinary stores do) would double
// their memory traffic. stream_fence() orders them before the row pass.
inline void stream(float* to, V value) {
#if EW_LANE_WIDTH == 16
  _mm512_stream_ps(to, (__m512)value);
#elif EW_LANE_WIDTH == 8
  _mm256_stream_ps(to, (__m256)value);
#else
  _mm_stream_ps(to, (__m128)value);
#endif
}
inline void stream_fence() { _mm_sfence(); }
inline V splat(float value) { return V{} + value; }

// ---- the W x W transpose: log2(W) stages, each swapping the off-diagonal
// h x h blocks of every 2h x 2h block (W two-vector shuffles a stage). ----

constexpr int swap_index(int c, int h, bool low_row) {
  return low_row ? ((c & h) ? W + c - h : c) : ((c & h) ? W + c : c + h);
}
template <int h, bool low_row, size_t... c>
inline V swap_blocks(V a, V b, std::index_sequence<c...>) {
  return __builtin_shufflevector(a, b, swap_index(int(c), h, low_row)...);
}
template <int h>
inline void transpose_stage(V* m) {
  for (int i = 0; i < W; ++i)
    if (!(i & h)) {
      const V a = m[i], b = m[i + h];
      m[i] = swap_blocks<h, true>(a, b, std::make_index_sequence<W>());
      m[i + h] = swap_blocks<h, false>(a, b, std::make_index_sequence<W>());
    }
}
inline void transpose(V* m) {
  if constexpr (W >= 16) transpose_stage<8>(m);
  if constexpr (W >= 8) transpose_stage<4>(m);
  transpose_stage<2>(m);
  transpose_stage<1>(m);
}

// W floats from row[x0..], the columns past `width` repeating the last one.
inline V load_columns(const float* row, int x0, int width) {
  if (x0 + W <= width) return load(row + x0);
  V value;
  for (int c = 0; c < W; ++c) value[c] = row[std::min(x0 + c, width - 1)];
  return value;
}

// ---- term values ----

// cos and sin of the pass's terms at centred samples u: term `first` from
// its own sine pair, the next ones by rotation through term 1's angle.
template <int Terms>
inline void term_values(const FourierGroupTerms& terms, V u, V (&c)[Terms], V (&s)[Terms]) {
  fourier_term_pair(u, terms.first_frequency, c[0], s[0]);
  if constexpr (Terms > 1) {
    V base_c = c[0], base_s = s[0];
    if (terms.first != 1) fourier_term_pair(u, terms.base, base_c, base_s);
    for (int t = 1; t < Terms; ++t) {
      c[t] = c[t - 1];
      s[t] = s[t - 1];
      fourier_rotate(c[t], s[t], base_c, base_s);
    }
  }
}

// The strip's samples and alpha, band row i at i * W and rows * W + i * W:
// copied in one loop whose loads are independent (many misses in flight),
// where the walks, a row a few hundred cycles, would wait on each row's line.
struct Strip {
  const float* samples;
  const float* alpha;  // null without alpha
};
inline Strip copy_strip(const FourierPass& pass, int x0, float* to) {
  float* alpha = pass.alpha ? to + size_t(pass.rows) * W : nullptr;
  for (int i = 0; i < pass.rows; ++i) {
    store(to + size_t(i) * W, load_columns(pass.samples + size_t(i) * pass.stride, x0, pass.width));
    if (alpha) store(alpha + size_t(i) * W, load_columns(pass.alpha + size_t(i) * pass.stride, x0, pass.width));
  }
  return {to, alpha};
}

// The images at band row i of the strip: alpha alone (Terms 0), or alpha
// cos and alpha sin of each term.
template <int Terms>
inline void images_at(const FourierPass& pass, const Strip& strip, int i, V* images) {
  const V a = strip.alpha ? load(strip.alpha + size_t(i) * W) : splat(1.0f);
  if constexpr (Terms == 0) {
    images[0] = a;
  } else {
    const V u = load(strip.samples + size_t(i) * W);
    V c[Terms], s[Terms];
    term_values<Terms>(pass.terms, u, c, s);
    for (int t = 0; t < Terms; ++t) {
      images[2 * t] = pass.alpha ? c[t] * a : c[t];
      images[2 * t + 1] = pass.alpha ? s[t] * a : s[t];
    }
  }
}

constexpr int images_of(int terms) { return terms ? 2 * terms : 1; }

// The row pass fetches the next run of columns while it walks one: its
// anticausal walk reads its block backwards, which the hardware prefetchers
// did not follow (half of the row pass's time waited there).
template <int Images>
inline void prefetch_images(const V* column) {
  for (int line = 0; line < Images * W * int(sizeof(float)); line += 64)
    __builtin_prefetch(reinterpret_cast<const char*>(column) + line);
}

// ---- columns ----

// Output rows in the tile (W rows of W columns, each image) to the block
// layout; rows past out_rows were left as they are and are never read back
// as outputs.
template <int Images>
void flush_tile(const FourierPass& pass, int block, int x0, const V* tile) {
  const int columns = std::min(W, pass.width - x0);
  for (int l = 0; l < Images; ++l) {
    V m[W];
    for (int t = 0; t < W; ++t) m[t] = tile[t * Images + l];
    transpose(m);
    float* to = pass.blurred + ((size_t(block) * size_t(pass.width) + size_t(x0)) * Images + size_t(l)) * W;
    for (int c = 0; c < columns; ++c) stream(to + size_t(c) * Images * W, m[c]);
  }
}

// A walk of `count` steps of a recursion per image: step n takes the images
// at input(n) and drops those at leaving(n); output(n, l, y, x) gets image
// l's result y and its sample x. The images go kWalkImages at a time, their
// states (four vectors an image) in registers for the whole walk: with all
// of a pass's images in one step the states lived in memory, eight loads
// and stores beside the 16 FMAs of a step.
constexpr int kWalkImages = W == 16 ? 4 : 2;

template <int L, int First = 0, class Input, class Leaving, class Output>
inline void walk(const FourierParams& p, FourierRecursion<V>* state, int count, Input input, Leaving leaving,
                 Output output) {
  if constexpr (First < L) {
    constexpr int G = std::min(kWalkImages, L - First);
    FourierRecursion<V> own[G];
    for (int l = 0; l < G; ++l) own[l] = state[First + l];
    for (int n = 0; n < count; ++n) {
      const V *x = input(n) + First, *gone = leaving(n) + First;
      for (int l = 0; l < G; ++l) output(n, First + l, own[l].step(p, x[l], gone[l]), x[l]);
    }
    for (int l = 0; l < G; ++l) state[First + l] = own[l];
    walk<L, First + G>(p, state, count, input, leaving, output);
  }
}

// The state of a recursion with r + 1 samples behind it: the truncated
// recursion holds exactly their sum, u = sum_{m=0..r} z^m x_m (x_m the m-th
// sample back), taken here from the powers of the poles (FourierPass::powers)
// at four FMAs a sample and image, where walking those samples from a
// clamp-to-edge start took sixteen and produced outputs nobody read.
template <int L, class Sample>
inline void window_state(const FourierPass& pass, FourierRecursion<V>* state, Sample sample) {
  const int r = pass.params->radius;
  const size_t n = size_t(r) + 1;
  const float *re0 = pass.powers, *im0 = re0 + n, *re1 = im0 + n, *im1 = re1 + n;
  for (int l = 0; l < L; ++l) {
    FourierSection<V> a{}, b{};
    for (int m = r; m >= 0; --m) {  // the smallest weights first
      const V x = sample(m)[l];
      a.re += re0[m] * x;
      a.im += im0[m] * x;
      b.re += re1[m] * x;
      b.im += im1[m] * x;
    }
    state[l].section[0] = a;
    state[l].section[1] = b;
  }
}

// The recursion: anticausal up from the last output row, from the window of
// the r + 1 rows below it (clamped to the band), its halves kept (less the
// centre tap, which the causal part holds too); then causal down from the
// first output row, from the window above it (clamped to the band's first
// row), each output row the sum of both. Rows go W at a time (their images
// computed, then walked). The strip's images are kept for the whole band
// (`images`, band row i at i L): the causal walk reads the anticausal
// walk's, and both find the samples that leave the truncated window there.
template <int Terms>
void columns_recursive(const FourierPass& pass, int x0, FourierScratch& scratch) {
  constexpr int L = images_of(Terms);
  const FourierParams& p = *pass.params;
  const int r = p.radius, hi = pass.rows - 1, first = pass.reach, last = pass.reach + pass.out_rows - 1;
  V* const images = reinterpret_cast<V*>(scratch.ring.data());
  V* const after = reinterpret_cast<V*>(scratch.after.data());
  V* const tile = reinterpret_cast<V*>(scratch.tile.data());
  auto row = [&](int i) { return images + size_t(i) * L; };
  const Strip strip = copy_strip(pass, x0, scratch.strip.data());
  FourierRecursion<V> state[L];
  for (int i = hi; i > last; --i) images_at<Terms>(pass, strip, i, row(i));
  window_state<L>(pass, state, [&](int m) { return row(std::min(last + 1 + m, hi)); });
  for (int top = last; top >= first; top -= W) {  // rows top, top - 1, ..
    const int count = std::min(W, top - first + 1);
    for (int n = 0; n < count; ++n) images_at<Terms>(pass, strip, top - n, row(top - n));
    walk<L>(
        p, state, count, [&](int n) { return row(top - n); }, [&](int n) { return row(std::min(top - n + r + 1, hi)); },
        [&](int n, int l, V y, V x) { after[size_t(top - n - first) * L + l] = y - x * p.centre; });
  }
  for (int i = 0; i < first; ++i) images_at<Terms>(pass, strip, i, row(i));
  window_state<L>(pass, state, [&](int m) { return row(std::max(first - 1 - m, 0)); });
  for (int begin = first; begin <= last; begin += W) {  // the output rows in runs of W: the blocks
    const int count = std::min(W, last + 1 - begin);
    walk<L>(
        p, state, count, [&](int n) { return row(begin + n); },
        [&](int n) { return row(std::max(begin + n - r - 1, 0)); },
        [&](int n, int l, V y, V) {
          const int j = begin + n - first;
          tile[size_t(n) * L + l] = after[size_t(j) * L + l] + y;
        });
    flush_tile<L>(pass, (begin - first) / W, x0, tile);
  }
}

// The window's taps (sigma-s <= 2): the images of 2r + 1 rows in a ring.
template <int Terms>
void columns_direct(const FourierPass& pass, int x0, FourierScratch& scratch) {
  constexpr int L = images_of(Terms);
  const int r = pass.params->radius, ring_rows = 2 * r + 1;
  const float* taps = pass.taps;
  V* const ring = reinterpret_cast<V*>(scratch.ring.data());
  V* const tile = reinterpret_cast<V*>(scratch.tile.data());
  auto slot = [&](int i) { return ring + size_t(i % ring_rows) * L; };
  const Strip strip = copy_strip(pass, x0, scratch.strip.data());
  for (int i = pass.reach - r; i < pass.reach + r; ++i) images_at<Terms>(pass, strip, i, slot(i));
  for (int j = 0; j < pass.out_rows; ++j) {
    const int i = j + pass.reach;
    images_at<Terms>(pass, strip, i + r, slot(i + r));
    V* row = tile + size_t(j % W) * L;
    const V* centre = slot(i);
    for (int l = 0; l < L; ++l) row[l] = centre[l] * taps[0];
    for (int n = 1; n <= r; ++n) {
      const V *above = slot(i - n), *below = slot(i + n);
      for (int l = 0; l < L; ++l) row[l] += (above[l] + below[l]) * taps[n];
    }
    if (j % W == W - 1 || j == pass.out_rows - 1) flush_tile<L>(pass, j / W, x0, tile);
  }
}

template <int Terms>
void columns(const FourierPass& pass, int x0, FourierScratch& scratch) {
  if (pass.params->recursive)
    columns_recursive<Terms>(pass, x0, scratch);
  else
    columns_direct<Terms>(pass, x0, scratch);
  stream_fence();
}

// ---- rows ----

// The block's W rows of `plane` (band rows reach + block W + t; rows past
// the output clamped to its last) transposed: column x at to + x W.
void transpose_in(const FourierPass& pass, const float* plane, int block, float* to) {
  const float* row[W];
  for (int t = 0; t < W; ++t) {
    const int j = std::min(block * W + t, pass.out_rows - 1);
    row[t] = plane + size_t(j + pass.reach) * pass.stride;
  }
  for (int x0 = 0; x0 < pass.width; x0 += W) {
    V m[W];
    for (int t = 0; t < W; ++t) m[t] = load_columns(row[t], x0, pass.width);
    transpose(m);
    for (int c = 0; c < std::min(W, pass.width - x0); ++c) store(to + size_t(x0 + c) * W, m[c]);
  }
}

// The transposed results back into the output rows of the block.
void transpose_out(const FourierPass& pass, const float* from, int block) {
  const int rows = std::min(W, pass.out_rows - block * W);
  for (int x0 = 0; x0 < pass.width; x0 += W) {
    const int columns = std::min(W, pass.width - x0);
    V m[W];
    for (int c = 0; c < W; ++c) m[c] = load(from + size_t(x0 + std::min(c, columns - 1)) * W);
    transpose(m);
    for (int t = 0; t < rows; ++t) {
      float* out = pass.output + size_t(block * W + t) * pass.output_stride + x0;
      if (columns == W)
        store(out, m[t]);
      else
        for (int c = 0; c < columns; ++c) out[c] = m[t][c];
    }
  }
}

// The blurred images y at column x of the block, combined with the pixel's
// own term values into D and E (or, in the alpha pass, kept as A); the last
// pass of a channel computes the output (fourier_output), the others keep D
// and E for the next.
template <int Terms>
struct Combine {
  const FourierPass& pass;
  const float* samples;  // the block's centred samples, transposed
  float* result;         // the block's outputs, transposed
  size_t at;             // the block's first float in the block layout's one-image planes

  void operator()(int x, const V* y) const {
    const size_t i = at + size_t(x) * W;
    if constexpr (Terms == 0) {
      store(pass.alpha_mass + i, y[0]);
    } else {
      const FourierGroupTerms& terms = pass.terms;
      const V u = load(samples + size_t(x) * W);
      V c[Terms], s[Terms];
      term_values<Terms>(terms, u, c, s);
      const V mass = pass.alpha_mass ? load(pass.alpha_mass + i) : splat(1.0f);
      V d = pass.first ? mass * pass.a0 : load(pass.sums + 2 * i);
      V e = pass.first ? V{} : load(pass.sums + 2 * i + W);
      for (int t = 0; t < Terms; ++t) {
        d += terms.cosine[t] * (c[t] * y[2 * t] + s[t] * y[2 * t + 1]);
        e += terms.sine[t] * (c[t] * y[2 * t + 1] - s[t] * y[2 * t]);
      }
      if (pass.last) {
        const FourierParams& p = *pass.params;
        store(result + size_t(x) * W, fourier_output(p, *pass.channel, u, e, d, mass) * p.inverse_unit);
      } else {
        store(pass.sums + 2 * i, d);
        store(pass.sums + 2 * i + W, e);
      }
    }
  }
};

template <int Terms>
void rows(const FourierPass& pass, int block, FourierScratch& scratch) {
  constexpr int L = images_of(Terms);
  const FourierParams& p = *pass.params;
  const int width = pass.width, r = p.radius;
  const V* const blurred = reinterpret_cast<const V*>(pass.blurred) + size_t(block) * size_t(width) * L;
  auto column = [&](int x) { return blurred + size_t(x) * L; };
  if (Terms > 0) transpose_in(pass, pass.samples, block, scratch.samples.data());
  const Combine<Terms> combine{pass, scratch.samples.data(), scratch.result.data(), size_t(block) * size_t(width) * W};
  V y[L];
  if (p.recursive) {
    // In runs of kTileColumns columns, each walked kWalkImages images at a
    // time; the anticausal halves, then the sums, in `half` (column x at x L).
    constexpr int kTileColumns = 64;
    V* const half = reinterpret_cast<V*>(scratch.lanes.data());
    V sums[kTileColumns * L];  // the run's sums (L1), combined once the run is walked
    FourierRecursion<V> state[L];
    for (int l = 0; l < L; ++l) state[l].start(p, column(width - 1)[l]);
    for (int end = width; end > 0; end -= kTileColumns) {  // columns end - 1, end - 2, ..
      const int count = std::min(kTileColumns, end);
      for (int x = std::max(end - count - kTileColumns, 0); x < end - count; ++x) prefetch_images<L>(column(x));
      walk<L>(
          p, state, count, [&](int n) { return column(end - 1 - n); },
          [&](int n) { return column(std::min(end - 1 - n + r + 1, width - 1)); },
          [&](int n, int l, V value, V v) { half[size_t(end - 1 - n) * L + l] = value - v * p.centre; });
    }
    for (int l = 0; l < L; ++l) state[l].start(p, column(0)[l]);
    for (int begin = 0; begin < width; begin += kTileColumns) {
      const int count = std::min(kTileColumns, width - begin);
      for (int x = begin + count; x < std::min(begin + count + kTileColumns, width); ++x) prefetch_images<L>(column(x));
      walk<L>(
          p, state, count, [&](int n) { return column(begin + n); },
          [&](int n) { return column(std::max(begin + n - r - 1, 0)); },
          [&](int n, int l, V value, V) { sums[n * L + l] = half[size_t(begin + n) * L + l] + value; });
      for (int n = 0; n < count; ++n) combine(begin + n, sums + n * L);
    }
  } else {
    const float* taps = pass.taps;
    for (int x = 0; x < width; ++x) {
      const V* v = column(x);
      for (int l = 0; l < L; ++l) y[l] = v[l] * taps[0];
      for (int n = 1; n <= r; ++n) {
        const V *left = column(std::max(x - n, 0)), *right = column(std::min(x + n, width - 1));
        for (int l = 0; l < L; ++l) y[l] += (left[l] + right[l]) * taps[n];
      }
      combine(x, y);
    }
  }
  if (Terms > 0 && pass.last) transpose_out(pass, scratch.result.data(), block);
}

// ---- dispatch on the pass's term count ----

template <int Terms>
void columns_for(const FourierPass& pass, int x0, FourierScratch& scratch) {
  if constexpr (Terms < kFourierGroupTerms) {
    if (pass.terms.count != Terms) return columns_for<Terms + 1>(pass, x0, scratch);
  }
  columns<Terms>(pass, x0, scratch);
}

template <int Terms>
void rows_for(const FourierPass& pass, int block, FourierScratch& scratch) {
  if constexpr (Terms < kFourierGroupTerms) {
    if (pass.terms.count != Terms) return rows_for<Terms + 1>(pass, block, scratch);
  }
  rows<Terms>(pass, block, scratch);
}

void column_pass(const FourierPass& pass, int x0, FourierScratch& scratch) { columns_for<0>(pass, x0, scratch); }
void row_pass(const FourierPass& pass, int block, FourierScratch& scratch) { rows_for<0>(pass, block, scratch); }

#include "fourier_coarse_passes.h"

}  // namespace

FourierPasses fourier_passes() {
  return {W, column_pass, row_pass, coarse_cells, coarse_blur_row, coarse_blur_column, coarse_output};
}

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
