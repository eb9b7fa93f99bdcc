// What the CUDA backend's runner and the families' device kernels share:
// bands on the device described like the host ones, the per-family kernel
// table, the moves between raw rows and planar bands, and the error check.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "hostdevice.h"
#include "plan.h"
#include "sample_convert.h"

namespace edgewise::cuda {

// Planar floats padded by `pad` columns with clamp-to-edge copies, like
// core's PaddedBand: plane p, band row i is data + p*plane_stride + i*width.
struct DeviceBand {
  float* data = nullptr;
  int first_row = 0;  // image row of band row 0
  int rows = 0;
  int width = 0;  // image width + 2 pad
  int pad = 0;
  size_t plane_stride = 0;
  EW_HD float* plane(int p) const { return data + size_t(p) * plane_stride; }
};

// Planar rows without padding (or the inside of a padded band's rows).
struct DeviceOutput {
  float* data = nullptr;
  int first_row = 0;  // image row of row 0
  int rows = 0;
  int width = 0;  // image width
  size_t row_stride = 0;
  size_t plane_stride = 0;
  EW_HD float* plane(int p) const { return data + size_t(p) * plane_stride; }
};

DeviceBand describe_device_band(float* data, int first_row, int rows, int image_width, int pad);
// Rows [first, first + rows) of a padded band, over its unpadded columns.
DeviceOutput inside_of(const DeviceBand& band, int first, int rows);
// The same band from its row `first` on: a kernel's input for those rows.
DeviceBand from_row(const DeviceBand& band, int first, int rows);
DeviceOutput from_row(const DeviceOutput& out, int first, int rows);

// One filter family's computation of a band on the GPU, enqueued on a
// stream. It may overwrite the input band; `scratch` holds the plan's
// scratch bands, each as large as the input band.
class DeviceBandKernel {
 public:
  virtual ~DeviceBandKernel() = default;
  virtual void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>& extras,
                   float* scratch, cudaStream_t stream) = 0;
};

// The families this backend runs: a filter's stem adds one row (cuda_kernels.cpp).
struct DeviceKernelEntry {
  const char* family;
  std::string (*unsupported)(const Plan& plan);  // "" when it can run the plan
  // Uploads what the kernels read (tables) before any band runs.
  std::unique_ptr<DeviceBandKernel> (*make)(const Plan& plan);
  // Device memory the family's kernel takes per band beyond the plan's
  // bands, in bytes (the budget counts it); null: none counted.
  BandCost (*own_cost)(const Plan& plan) = nullptr;
};
const DeviceKernelEntry* find_device_kernel(const std::string& family);

// Raw interleaved rows [first_row, first_row + rows) of the image, already
// on the device, into a padded planar band, clamping rows and columns.
void launch_unpack(SampleType type, const void* raw, size_t raw_stride, int first_row, int rows, int image_width,
                   int planes, const DeviceBand& band, cudaStream_t stream);
// Planar rows to raw interleaved samples (rounded, clamped).
void launch_pack(SampleType type, const DeviceOutput& out, int planes, void* raw, size_t raw_stride,
                 cudaStream_t stream);
// Band rows [first, first + count) hold computed values: fills their
// padding columns and the rows outside them with clamp-to-edge copies.
void launch_repad(const DeviceBand& band, int planes, int first, int count, cudaStream_t stream);
// Plane `plane` of rows [0, out.rows) of `out` from `in`'s rows shifted by
// `row_offset`, inside columns: the plane passes through a pass unchanged.
void launch_copy_plane(const DeviceBand& in, int row_offset, const DeviceOutput& out, int plane, cudaStream_t stream);

// An invalid launch through the normal launch-and-check path: the failure
// injection's real launch failure.
void launch_invalid_configuration();

// Throws BackendError naming the failed call.
void check(cudaError_t status, const char* what);

}  // namespace edgewise::cuda
