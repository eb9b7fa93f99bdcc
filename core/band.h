// What the executor and a backend exchange for one band: rows of the image
// in host memory (interleaved samples, as stored), and the planar float
// bands a backend's kernels work on.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "sample_convert.h"

namespace edgewise {

// Floats allocated after a padded band's last plane, so a backend may load a
// whole vector at a row's end (lanes past the row are computed, never stored).
constexpr size_t kBandOverhangFloats = 16;

// Interleaved rows [first_row, first_row + rows) of an image in host memory.
struct RowSpan {
  void* data = nullptr;
  size_t stride = 0;  // bytes from one row to the next
  SampleType type = SampleType::f32;
  int first_row = 0;
  int rows = 0;

  unsigned char* row(int image_row) const {
    return static_cast<unsigned char*>(data) + size_t(image_row - first_row) * stride;
  }
};

// One band's work: read `input`, write every sample of `output` and of each
// extra output once.
struct BandTask {
  int y0 = 0;                   // first output row of the band in the image
  int rows = 0;                 // output rows
  RowSpan input;                // image rows [y0 - reach, y0 + rows + reach), clipped to the image
  RowSpan output;               // image rows [y0, y0 + rows), the plan's channels
  std::vector<RowSpan> extras;  // one per plan.extra_outputs, rows as output, float samples
  // How much of this band's work is done (0 to 1), for kernels whose band
  // takes seconds (the CPU's nlbayes and nlm on a large photo): called on
  // the thread that submitted the band, between parallel regions, never
  // inside one. It may throw Cancelled. Empty when nobody listens.
  std::function<void(double)> progress;
};

// Planar floats padded on every side with clamp-to-edge copies, so kernels
// never test for borders: plane p, band row i is data + p*plane_stride +
// i*width. Rows above or below the image repeat its first or last row.
struct PaddedBand {
  int first_row = 0;  // image row of band row 0 (negative above the image)
  int rows = 0;       // rows held
  int width = 0;      // image width + 2 pad
  int pad = 0;
  int planes = 0;  // colour planes, then alpha
  size_t plane_stride = 0;
  float* data = nullptr;

  float* plane(int p) const { return data + size_t(p) * plane_stride; }
  float* row(int p, int i) const { return plane(p) + size_t(i) * size_t(width); }
};

// Planar float rows without padding (or the inside of a padded band's rows):
// plane p, row i is data + p*plane_stride + i*row_stride.
struct OutputBand {
  int first_row = 0;  // image row of row 0
  int rows = 0;
  int width = 0;  // image width
  int planes = 0;
  size_t row_stride = 0;
  size_t plane_stride = 0;
  float* data = nullptr;

  float* plane(int p) const { return data + size_t(p) * plane_stride; }
  float* row(int p, int i) const { return plane(p) + size_t(i) * row_stride; }
};

// A padded band's layout over `data`: `rows` rows from image row first_row.
PaddedBand describe_padded_band(int first_row, int rows, int image_width, int pad, int planes, float* data);
// Floats a padded band of that many rows needs, overhang included.
size_t padded_band_floats(int rows, int image_width, int pad, int planes);
// The band's rows [first, first + rows) (band-relative) as an OutputBand
// over its unpadded columns: where a pass writes the next pass's input.
OutputBand inside_of(const PaddedBand& band, int first, int rows);
// A tightly packed planar output of `rows` rows.
OutputBand describe_output_band(int first_row, int rows, int width, int planes, float* data);

}  // namespace edgewise
