// The learned filter's per-sample index math, once for both backends
// (core/learned_denoise.cpp on the CPU, cuda/learned.cu on the GPU): the
// extension by mirroring and the taps that spread the noise map's cells
// over the denoiser's half-resolution grid.
#pragma once

#include "hostdevice.h"

namespace edgewise {

// A sample's index in the extension by mirroring of a side of `side`
// samples (edge sample not repeated: ... 2 1 0 1 2 ...).
EW_HD int mirrored_index(int i, int side) {
  if (side == 1) return 0;
  const int period = 2 * (side - 1);
  i %= period;
  if (i < 0) i += period;
  return i < side ? i : period - i;
}

// PyTorch's interpolate (bilinear, align_corners false) from `count` cells
// to pixels `per_cell` to a cell: source = (i + 0.5) / per_cell - 0.5, held
// at 0 and at the last cell; i0, i1 the cells, l1 the weight of i1.
EW_HD void map_cell_taps(double per_cell, int i, int count, int& i0, int& i1, float& l1) {
  float source = float((double(i) + 0.5) / per_cell - 0.5);
  if (source < 0.0f) source = 0.0f;
  i0 = int(source) < count - 1 ? int(source) : count - 1;
  i1 = i0 + 1 < count - 1 ? i0 + 1 : count - 1;
  l1 = source - float(i0);
}

// The map input at one half-resolution pixel and channel from its four
// cells' values (log-variances): (v + shift - offset) * scale, bilinear.
EW_HD float map_value(float v00, float v10, float v01, float v11, float lx, float ly, float shift, float offset,
                      float scale) {
  const float a00 = (v00 + shift - offset) * scale, a10 = (v10 + shift - offset) * scale;
  const float a01 = (v01 + shift - offset) * scale, a11 = (v11 + shift - offset) * scale;
  return (1 - ly) * ((1 - lx) * a00 + lx * a10) + ly * ((1 - lx) * a01 + lx * a11);
}

}  // namespace edgewise
