#include "band_io.h"

#include <algorithm>
#include <cstring>

namespace edgewise {

namespace {

void for_rows(int count, const ParallelRows& parallel, const std::function<void(int, int)>& body) {
  if (parallel)
    parallel(count, body);
  else
    body(0, count);
}

template <class Sample>
void unpack_row(const unsigned char* raw, int width, int channels, float* const* dst) {
  const Sample* src = reinterpret_cast<const Sample*>(raw);
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < channels; ++c) dst[c][x] = sample_to_float(src[size_t(x) * size_t(channels) + size_t(c)]);
}

template <class Sample>
void pack_row(const float* const* src, int width, int channels, unsigned char* raw) {
  Sample* dst = reinterpret_cast<Sample*>(raw);
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < channels; ++c) {
      const float v = src[c][x];
      if constexpr (sizeof(Sample) == 1)
        dst[size_t(x) * size_t(channels) + size_t(c)] = float_to_u8(v);
      else if constexpr (sizeof(Sample) == 2)
        dst[size_t(x) * size_t(channels) + size_t(c)] = float_to_u16(v);
      else
        dst[size_t(x) * size_t(channels) + size_t(c)] = v;
    }
}

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

void unpack_rows(const RowSpan& rows, int image_height, PaddedBand& band, const ParallelRows& parallel) {
  const int width = band.width - 2 * band.pad, channels = band.planes;
  for_rows(band.rows, parallel, [&](int begin, int end) {
    float* planes[4];
    for (int i = begin; i < end; ++i) {
      const int y = std::clamp(band.first_row + i, std::max(0, rows.first_row),
                               std::min(image_height, rows.first_row + rows.rows) - 1);
      for (int c = 0; c < channels; ++c) planes[c] = band.row(c, i) + band.pad;
      const unsigned char* raw = rows.row(y);
      switch (rows.type) {
        case SampleType::u8:
          unpack_row<uint8_t>(raw, width, channels, planes);
          break;
        case SampleType::u16:
          unpack_row<uint16_t>(raw, width, channels, planes);
          break;
        case SampleType::f32:
          unpack_row<float>(raw, width, channels, planes);
          break;
      }
      fill_padding(band, i);
    }
  });
}

void pack_rows(const OutputBand& band, const RowSpan& rows, const ParallelRows& parallel) {
  for_rows(band.rows, parallel, [&](int begin, int end) {
    const float* planes[4];
    for (int i = begin; i < end; ++i) {
      for (int c = 0; c < band.planes; ++c) planes[c] = band.row(c, i);
      unsigned char* raw = rows.row(band.first_row + i);
      switch (rows.type) {
        case SampleType::u8:
          pack_row<uint8_t>(planes, band.width, band.planes, raw);
          break;
        case SampleType::u16:
          pack_row<uint16_t>(planes, band.width, band.planes, raw);
          break;
        case SampleType::f32:
          pack_row<float>(planes, band.width, band.planes, raw);
          break;
      }
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
