// The Fourier bilateral filter on the GPU (fourier.cu): its entry in the
// kernel table and the launcher the benchmark times.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "device_band.h"
#include "fourier.h"

namespace edgewise::cuda {

std::string fourier_unsupported(const Plan& plan);
std::unique_ptr<DeviceBandKernel> make_fourier_device_kernel(const Plan& plan);

}  // namespace edgewise::cuda
