// The bilateral family on the GPU (bilateral.cu): its entry in the kernel
// table, and the launchers the benchmark times.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "bilateral.h"
#include "device_band.h"

namespace edgewise::cuda {

std::string bilateral_unsupported(const Plan& plan);
std::unique_ptr<DeviceBandKernel> make_bilateral_device_kernel(const Plan& plan);

// Largest radius served by the shared-memory tiled kernels; beyond it a
// kernel reads the band straight from global memory.
constexpr int kMaxTiledRadius = 32;

// Copies the plan's spatial table to the device (constant memory for the
// tiled kernels, `device_table` for the wide one). Call before launches.
void upload_spatial_table(const BilateralPlan& plan, float* device_table, cudaStream_t stream);
// One pass of the bilateral filter: out row j from the window rows j..j+2r
// of `in` (unscaled working units: Lab planes in lab mode), alpha not
// copied. `sigma`, when its data is set, receives the adaptive filter's
// sigma map: launch row j is its row j - sigma_offset. Benchmarks time this.
void launch_filter(const BilateralPlan& plan, const DeviceBand& in, const DeviceOutput& out, const DeviceOutput& sigma,
                   int sigma_offset, const float* device_table, cudaStream_t stream);

}  // namespace edgewise::cuda
