#include "band_io.h"

#include <algorithm>
#include <cstring>

#include "sample_rows.h"

namespace edgewise {

namespace {

void for_rows(int count, const ParallelRows& parallel, const std::function<void(int, int)>& body) {
  if (parallel)
    parallel(count, body);
  else
    body(0, count);
}

// The baseline build's row conversions, where the caller hands none.
const SampleRows kBaselineRows = {unpack_samples, pack_samples};

void fill_padding(const PaddedBand& band, int i) {
  const int width = band.width - 2 * band.pad;
  for (int p = 0; p < band.planes; ++p) {
    float* row = band.row(p, i);
    const float left = row[band.pad], right = row[band.pad + width - 1];
    for (int x = 0; x < band.pad; ++x) row[x] = left;
    for (int x = 0; x < band.pad; ++x) row[band.pad + width + x] = right;
  }
}

}  // namespace

void unpack_rows(const RowSpan& rows, int image_height, PaddedBand& band, const ParallelRows& parallel,
                 const SampleRows* samples) {
  const int width = band.width - 2 * band.pad, channels = band.planes;
  const SampleRows& convert = samples ? *samples : kBaselineRows;
  for_rows(band.rows, parallel, [&](int begin, int end) {
    float* planes[4];
    for (int i = begin; i < end; ++i) {
      const int y = std::clamp(band.first_row + i, std::max(0, rows.first_row),
                               std::min(image_height, rows.first_row + rows.rows) - 1);
      for (int c = 0; c < channels; ++c) planes[c] = band.row(c, i) + band.pad;
      const unsigned char* raw = rows.row(y);
      convert.unpack(raw, rows.type, channels, width, planes);
      fill_padding(band, i);
    }
  });
}

void pack_rows(const OutputBand& band, const RowSpan& rows, const ParallelRows& parallel, const SampleRows* samples) {
  const SampleRows& convert = samples ? *samples : kBaselineRows;
  for_rows(band.rows, parallel, [&](int begin, int end) {
    const float* planes[4];
    for (int i = begin; i < end; ++i) {
      for (int c = 0; c < band.planes; ++c) planes[c] = band.row(c, i);
      unsigned char* raw = rows.row(band.first_row + i);
      convert.pack(planes, band.planes, band.width, rows.type, raw);
    }
  });
}

void repad(PaddedBand& band, int first, int count, const ParallelRows& parallel) {
  for_rows(count, parallel, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) fill_padding(band, first + i);
  });
  const size_t row_bytes = size_t(band.width) * sizeof(float);
  for (int p = 0; p < band.planes; ++p) {
    for (int i = 0; i < first; ++i) std::memcpy(band.row(p, i), band.row(p, first), row_bytes);
    for (int i = first + count; i < band.rows; ++i)
      std::memcpy(band.row(p, i), band.row(p, first + count - 1), row_bytes);
  }
}

}  // namespace edgewise
