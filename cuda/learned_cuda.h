// The learned filter (core/filters/learned.h) on the GPU (issue 36): its
// band kernel (learned.cu), as the CPU's cpu_fallback/learned_cpu.cpp: the
// band's rows extended by mirroring, the noise network on the band's 64 px
// tiles (noise_net.cu), the map spread over the denoiser's half-resolution
// grid, the denoiser on column tiles of the band (denoise_net.cu: fp16 on
// the tensor cores), the result clamped into the output planes.
//
// Every step computes an output from inputs that do not depend on where a
// band or a tile starts, so a band of any height gives the same bits (any
// memory budget gives the same image); the GPU's result is not the CPU's
// bits (fp16 activations): tests/gpu/test_cuda_learned.cpp holds it to the
// CPU's within issue 36's bounds.
#pragma once

#include <memory>
#include <string>

#include "device_band.h"

namespace edgewise::cuda {

// "" when the GPU can run the plan (the denoiser's tensor-core kernels).
std::string learned_unsupported(const Plan& plan);
std::unique_ptr<DeviceBandKernel> make_learned_device_kernel(const Plan& plan);
// Device bytes the band kernel takes beyond the plan's bands: an upper
// bound for a band of `rows` output rows.
BandCost learned_device_cost(const Plan& plan);

}  // namespace edgewise::cuda
