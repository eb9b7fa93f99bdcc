// The pyramid filter's levels on the CPU: rows of a level held in a ring
// from chunk to chunk, and REDUCE and EXPAND of whole rows or column ranges
// with the taps of pyramid_math.h.
#pragma once

#include <cstddef>
#include <memory>

#include "pyramid_math.h"

namespace edgewise::cpu {

// Rows of one level, planar (colour planes, then alpha): row i of plane p
// at data + p * plane_stride + ((i - origin) mod capacity) * row_stride. A
// ring (LevelRing) or a plain band (capacity its rows, origin its first).
struct LevelRows {
  int width = 0;
  int origin = 0;
  int capacity = 0;
  size_t row_stride = 0, plane_stride = 0;
  float* data = nullptr;

  size_t index(int level_row) const { return size_t((level_row - origin) % capacity); }
  float* row(int plane, int level_row) const {
    return data + size_t(plane) * plane_stride + index(level_row) * row_stride;
  }
  // Rows from level_row on that follow one another in memory (up to the ring's end).
  int rows_in_line(int level_row) const { return capacity - int(index(level_row)); }
};

// A level's rows kept from chunk to chunk: the kernel walks the image's
// rows in order (bands in order, each in chunks), and consecutive chunks
// read overlapping rows of every level (their halos), so each row is
// computed once and stays in the ring while a later chunk may still read
// it. Rows are the same whichever chunk computes them, so reuse changes no
// bit. The ring holds the rows the last chunk read and grows to the most a
// chunk reads.
class LevelRing {
 public:
  LevelRing(int width, int planes);
  const LevelRows& rows() const { return rows_; }
  // The rows of `need` not held, which the caller computes next; all of
  // `need` is held after. Rows above `need` are dropped: chunks read rows
  // further down the image each time (one that does not gets every row anew).
  PyramidRange take(PyramidRange need);

 private:
  void grow(int capacity, PyramidRange kept);

  std::unique_ptr<float[]> storage_;
  LevelRows rows_;
  int planes_;
  PyramidRange held_{0, -1};
};

// REDUCE of `fine` rows around 2 i (clamped to fine_height) into `out`
// (coarse_width samples); `line` holds fine.width + 4 floats.
void reduce_row(const LevelRows& fine, int fine_height, int plane, int i, float* line, float* out, int coarse_width);

// EXPAND of `coarse` at fine row i, fine columns [x_begin, x_end), into
// out[0, x_end - x_begin); `line` holds (x_end - x_begin) / 2 + 4 floats.
// Each sample is the same arithmetic on the same coarse samples whatever
// the column range, so tiles agree with whole rows to the bit.
void expand_columns(const LevelRows& coarse, int coarse_height, int plane, int i, int x_begin, int x_end, float* line,
                    float* out);

}  // namespace edgewise::cpu
