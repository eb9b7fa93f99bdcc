// Internal interface of the CUDA backend: device buffers described like the
// host bands, and the launchers the pipeline calls.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "backend.h"
#include "bilateral.h"
#include "plan.h"
#include "sample_convert.h"

namespace edgewise::cuda {

// Planar float band on the device, padded by r like core's PaddedBand.
struct DeviceBand {
  float* data = nullptr;
  int width = 0;       // padded width
  int rows = 0;        // padded rows (output rows + 2r)
  size_t plane_stride = 0;
  EW_HD float* plane(int p) const { return data + size_t(p) * plane_stride; }
};

struct DeviceOutput {
  float* data = nullptr;
  int width = 0;       // image width
  int rows = 0;
  size_t plane_stride = 0;
  EW_HD float* plane(int p) const { return data + size_t(p) * plane_stride; }
};

// Largest radius served by the shared-memory tiled kernels; beyond it a
// kernel reads the band straight from global memory.
constexpr int kMaxTiledRadius = 32;

// Copies the plan's spatial table to the device (constant memory for the
// tiled kernels, global for the wide one). Call before launches of a plan.
void upload_spatial_table(const Plan& plan, float* device_table, cudaStream_t stream);

// Filters the colour planes of `in` into `out`, copies alpha, and converts
// to and from Lab around the filter in lab mode (in is modified then).
void launch_bilateral(const Plan& plan, const DeviceBand& in, const DeviceOutput& out,
                      const float* device_table, cudaStream_t stream);

// The filter kernel alone, on planes already in working units (Lab planes
// in lab mode); no alpha copy. Benchmarks time this.
void launch_filter(const Plan& plan, const DeviceBand& in, const DeviceOutput& out, const float* device_table,
                   cudaStream_t stream);

// Raw interleaved rows [first_row, first_row + stored_rows) of the image,
// already on the device, into a padded planar band starting at image row
// y0 - r, clamping rows and columns to the image.
void launch_unpack(SampleType type, const void* raw, size_t raw_stride, int first_row, int stored_rows,
                   int y0, const Plan& plan, const DeviceBand& band, cudaStream_t stream);
// Planar output rows to raw interleaved samples (rounded, clamped).
void launch_pack(SampleType type, const DeviceOutput& out, int channels, void* raw, size_t raw_stride,
                 cudaStream_t stream);

// The test hook's launch failure: a block of 4096 threads, invalid on every
// device, through the normal launch-and-check path.
void launch_invalid_configuration();

// Throws BackendError naming the failed call.
void check(cudaError_t status, const char* what);

}  // namespace edgewise::cuda
