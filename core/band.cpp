#include "band.h"

namespace edgewise {

PaddedBand describe_padded_band(int first_row, int rows, int image_width, int pad, int planes, float* data) {
  PaddedBand band;
  band.first_row = first_row;
  band.rows = rows;
  band.width = image_width + 2 * pad;
  band.pad = pad;
  band.planes = planes;
  band.plane_stride = size_t(rows) * size_t(band.width);
  band.data = data;
  return band;
}

size_t padded_band_floats(int rows, int image_width, int pad, int planes) {
  return size_t(rows) * size_t(image_width + 2 * pad) * size_t(planes) + kBandOverhangFloats;
}

OutputBand inside_of(const PaddedBand& band, int first, int rows) {
  OutputBand inside;
  inside.first_row = band.first_row + first;
  inside.rows = rows;
  inside.width = band.width - 2 * band.pad;
  inside.planes = band.planes;
  inside.row_stride = size_t(band.width);
  inside.plane_stride = band.plane_stride;
  inside.data = band.data + size_t(first) * size_t(band.width) + size_t(band.pad);
  return inside;
}

OutputBand describe_output_band(int first_row, int rows, int width, int planes, float* data) {
  OutputBand band;
  band.first_row = first_row;
  band.rows = rows;
  band.width = width;
  band.planes = planes;
  band.row_stride = size_t(width);
  band.plane_stride = size_t(rows) * size_t(width);
  band.data = data;
  return band;
}

}  // namespace edgewise
