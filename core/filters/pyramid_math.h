// The Laplacian pyramid's taps and row dependencies, written once for every
// backend (Burt & Adelson, "The Laplacian pyramid as a compact image code",
// IEEE Trans. Communications 1983). The lowpass is the 5-tap binomial
// [1 4 6 4 1] / 16 per axis; REDUCE filters and keeps every second sample,
// EXPAND puts the coarse samples at the even positions and interpolates
// with the same kernel times 2: an even sample (1 6 1) / 8 of its coarse
// neighbours, an odd one (1 1) / 2. Level k+1 has ceil(n / 2) samples of
// level k's n; every index is clamped to its level (clamp-to-edge).
//
// The sample grid is the image's: level k's row i is image row 2^k i
// whatever band it is computed in, so a band that holds every row an
// output row depends on (the intervals below) gives it bit for bit as the
// whole image does.
#pragma once

#include "hostdevice.h"

namespace edgewise {

EW_HD int pyramid_clamp(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Samples of the next level for n of this one.
EW_HD int pyramid_next_size(int n) { return (n + 1) / 2; }

// REDUCE of five consecutive samples centred on the third.
EW_HD float pyramid_reduce(float a, float b, float c, float d, float e) {
  return (0.0625f * (a + e) + 0.25f * (b + d)) + 0.375f * c;
}

// EXPAND at an even position 2j from coarse samples j-1, j, j+1, and at an
// odd one 2j+1 from j and j+1.
EW_HD float pyramid_expand_even(float before, float at, float after) { return 0.125f * (before + after) + 0.75f * at; }
EW_HD float pyramid_expand_odd(float at, float after) { return 0.5f * (at + after); }

// floor(a / 2) for any sign.
EW_HD int pyramid_floor_half(int a) { return a >= 0 ? a / 2 : -((1 - a) / 2); }

// Inclusive ranges of rows (or columns) of one level.
struct PyramidRange {
  int first, last;  // empty when last < first
};

EW_HD PyramidRange pyramid_hull(PyramidRange a, PyramidRange b) {
  if (a.last < a.first) return b;
  if (b.last < b.first) return a;
  return {a.first < b.first ? a.first : b.first, a.last > b.last ? a.last : b.last};
}

EW_HD PyramidRange pyramid_grow(PyramidRange a, int by) { return {a.first - by, a.last + by}; }

EW_HD PyramidRange pyramid_clip(PyramidRange a, int n) {
  return {a.first < 0 ? 0 : a.first, a.last > n - 1 ? n - 1 : a.last};
}

// The rows of level k that REDUCE reads for rows `coarse` of level k+1.
EW_HD PyramidRange pyramid_reduce_source(PyramidRange coarse) { return {2 * coarse.first - 2, 2 * coarse.last + 2}; }

// The rows of level k+1 that EXPAND reads for rows `fine` of level k: an
// even row 2j reads j-1..j+1, an odd one 2j+1 reads j..j+1.
EW_HD PyramidRange pyramid_expand_source(PyramidRange fine) {
  return {-pyramid_floor_half(-fine.first) - 1, pyramid_floor_half(fine.last) + 1};
}

}  // namespace edgewise
