#include "pyramid_levels.h"

#include <algorithm>

// REDUCE and EXPAND are a few additions and multiplications a sample over
// rows in cache, so vector width pays: GCC compiles a clone of each per
// instruction set and picks one per process when it loads (clang 14 builds
// the default one only). The file is built without FMA contraction
// (CMakeLists.txt), so every clone gives the same bits. 24 MP RGB, 5
// levels, 2 threads: 3-8 % less time for the whole filter.
#if defined(__x86_64__)
#define EW_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EW_VECTOR_CLONES
#endif

namespace edgewise::cpu {

namespace {

int count(PyramidRange rows) { return rows.last - rows.first + 1; }

}  // namespace

LevelRing::LevelRing(int width, int planes) : planes_(planes) {
  rows_.width = width;
  rows_.row_stride = size_t(width);
}

PyramidRange LevelRing::take(PyramidRange need) {
  if (need.last < need.first) return need;
  PyramidRange fresh = need, kept{0, -1};
  if (held_.last >= held_.first && held_.first <= need.first && need.first <= held_.last + 1) {
    kept = {need.first, held_.last};
    fresh = {held_.last + 1, need.last};
  }
  const PyramidRange now{need.first, std::max(need.last, kept.last)};
  // An eighth more than asked: a ring grows once or twice at the image's
  // top, where chunks read fewer rows, not at every chunk.
  if (count(now) > rows_.capacity) grow(count(now) + count(now) / 8, kept);
  held_ = now;
  return fresh;
}

void LevelRing::grow(int capacity, PyramidRange kept) {
  LevelRows rows = rows_;
  rows.capacity = capacity;
  rows.plane_stride = size_t(capacity) * rows.row_stride;
  // Not zeroed: every row is written before it is read, and the pages are
  // first touched by the (parallel) loops that compute them.
  std::unique_ptr<float[]> storage(new float[rows.plane_stride * size_t(planes_)]);
  rows.data = storage.get();
  for (int i = kept.first; i <= kept.last; ++i)
    for (int p = 0; p < planes_; ++p) std::copy(rows_.row(p, i), rows_.row(p, i) + rows.width, rows.row(p, i));
  storage_ = std::move(storage);
  rows_ = rows;
}

EW_VECTOR_CLONES void reduce_row(const LevelRows& fine, int fine_height, int plane, int i, float* line, float* out,
                                 int coarse_width) {
  const int fine_width = fine.width;
  const float* r0 = fine.row(plane, pyramid_clamp(2 * i - 2, fine_height));
  const float* r1 = fine.row(plane, pyramid_clamp(2 * i - 1, fine_height));
  const float* r2 = fine.row(plane, pyramid_clamp(2 * i, fine_height));
  const float* r3 = fine.row(plane, pyramid_clamp(2 * i + 1, fine_height));
  const float* r4 = fine.row(plane, pyramid_clamp(2 * i + 2, fine_height));
  float* inner = line + 2;
  for (int x = 0; x < fine_width; ++x) inner[x] = pyramid_reduce(r0[x], r1[x], r2[x], r3[x], r4[x]);
  line[0] = line[1] = inner[0];
  line[fine_width + 2] = line[fine_width + 3] = inner[fine_width - 1];
  for (int x = 0; x < coarse_width; ++x) {
    const float* t = line + 2 * x;
    out[x] = pyramid_reduce(t[0], t[1], t[2], t[3], t[4]);
  }
}

EW_VECTOR_CLONES void expand_columns(const LevelRows& coarse, int coarse_height, int plane, int i, int x_begin,
                                     int x_end, float* line, float* out) {
  // line[t] is the vertical interpolation at coarse column lo + t, clamped:
  // fine column x = 2m (+1) reads coarse columns m - 1 .. m + 1.
  const int j = i / 2, cw = coarse.width;
  const int m_first = x_begin / 2, m_last = (x_end - 1) / 2, lo = m_first - 1;
  const int count = m_last - m_first + 3;
  const int inside_first = std::max(lo, 0), inside_last = std::min(lo + count - 1, cw - 1);
  const float* at = coarse.row(plane, j);
  const float* after = coarse.row(plane, pyramid_clamp(j + 1, coarse_height));
  float* inside = line + (inside_first - lo);
  if (i % 2 == 0) {
    const float* before = coarse.row(plane, pyramid_clamp(j - 1, coarse_height));
    for (int m = inside_first; m <= inside_last; ++m)
      inside[m - inside_first] = pyramid_expand_even(before[m], at[m], after[m]);
  } else {
    for (int m = inside_first; m <= inside_last; ++m) inside[m - inside_first] = pyramid_expand_odd(at[m], after[m]);
  }
  for (int t = 0; t < inside_first - lo; ++t) line[t] = inside[0];
  for (int t = inside_last - lo + 1; t < count; ++t) line[t] = line[inside_last - lo];
  // Even and odd columns in pairs (a loop the compiler vectorizes), the
  // range's odd first and even last columns apart.
  int m = m_first;
  if (x_begin % 2 == 1) out[0] = pyramid_expand_odd(line[1], line[2]), ++m;
  const int pairs_end = x_end % 2 == 1 ? m_last : m_last + 1;
  float* pair = out + (2 * m - x_begin);
  const float* l = line + (m - lo);
  for (int n = 0; n < pairs_end - m; ++n) {
    pair[2 * n] = pyramid_expand_even(l[n - 1], l[n], l[n + 1]);
    pair[2 * n + 1] = pyramid_expand_odd(l[n], l[n + 1]);
  }
  if (x_end % 2 == 1) {
    const int t = m_last - lo;
    out[x_end - 1 - x_begin] = pyramid_expand_even(line[t - 1], line[t], line[t + 1]);
  }
}

}  // namespace edgewise::cpu
