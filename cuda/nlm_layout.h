// The layout of the non-local-means kernel's tiles (nlm_kernel.cuh) and its
// entry per patch radius, for the code that plans and dispatches (nlm.cu).
#pragma once

#include <cuda_runtime.h>

#include "device_band.h"
#include "nlm.h"

namespace edgewise::cuda {

constexpr int kNlmMaxWarps = 8;  // warps per block, stacked strips
constexpr int kNlmMaxPatchRadius = 5;

// Output rows per warp: 8 where a strip's registers (its pixels, the sums,
// the pixels' distance scales and the windows of differences and shifted
// pixels) come to about 110 floats, else 4, so that no case spills at
// ptxas's 128 registers.
constexpr int nlm_strip_rows(int channels, bool joint, int f) {
  const int groups = joint ? 1 : channels;
  const int rows = 8;
  const int floats =
      channels * (rows + 2 * f) + (channels + 2 * groups) * rows + groups * (2 * f + 1) + channels * (f + 1);
  return floats <= 110 ? rows : 4;
}

struct NlmLayout {
  int warps;                        // strips per tile (fewer where the region would not fit)
  int strip_rows;                   // output rows per warp
  int tile_width;                   // output columns per tile: 32 - 2F
  int region_width, region_height;  // the tile grown by S + F
  int planes;                       // colour planes, and alpha when present
  EW_HD int tile_height() const { return warps * strip_rows; }
  EW_HD int plane_floats() const { return region_width * region_height; }
  size_t shared_bytes() const { return size_t(plane_floats()) * size_t(planes) * sizeof(float); }
};

// The most strips per tile whose region fits the GPU's shared memory; a
// layout depends on the plan alone, so every band tiles the image alike.
NlmLayout nlm_layout(const NlmParams& p);

// The kernel for patch radius F (p.patch_radius), every kernel and layout.
template <int F>
void launch_nlm_patch(const NlmParams& p, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream);

}  // namespace edgewise::cuda
