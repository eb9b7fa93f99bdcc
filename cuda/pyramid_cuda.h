// The multiresolution bilateral filter on the GPU (pyramid.cu): its entry in
// the kernel table. The benchmark times the band kernel it makes.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "device_band.h"
#include "pyramid.h"

namespace edgewise::cuda {

std::string pyramid_unsupported(const Plan& plan);
std::unique_ptr<DeviceBandKernel> make_pyramid_device_kernel(const Plan& plan);

}  // namespace edgewise::cuda
