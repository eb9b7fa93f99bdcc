// The non-local-means bilateral filter on the GPU (nlm.cu): its entry in the
// kernel table and the launcher the benchmark times.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "device_band.h"
#include "nlm.h"

namespace edgewise::cuda {

// "" when the GPU can run the plan (its tile's shared memory fits).
std::string nlm_unsupported(const Plan& plan);
std::unique_ptr<DeviceBandKernel> make_nlm_device_kernel(const Plan& plan);

// The fused kernel alone: out's rows from `in` (band row j + S + f is out
// row j; colour in working units, Lab planes in lab mode).
void launch_nlm(const NlmPlan& plan, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream);

}  // namespace edgewise::cuda
