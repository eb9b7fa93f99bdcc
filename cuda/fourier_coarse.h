// The Fourier bilateral filter's reduced-resolution path on the GPU
// (fourier_coarse.cu; sigma-s >= 12, fourier_design.h's CoarseGrid): what
// fourier.cu's band kernel calls once the band's samples are prepared.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "device_band.h"
#include "device_resources.h"
#include "fourier.h"

namespace edgewise::cuda {

// A stream's scratch for the path (one band in flight per stream), grown
// as needed: the cell sums (later the blurred cells) and the row-blurred cells.
struct FourierCoarseScratch {
  size_t cells = 0, row_blurred = 0;  // floats held
  DeviceMemory cell_memory, row_blurred_memory;
};

// The band's output colour planes, in 0..1 units (Lab still in Lab), from
// `prepared` (fourier_prepare_kernel's centred working units, alpha after
// the colour planes). The Lab conversion and the alpha copy are the caller's.
void launch_fourier_coarse(const FourierPlan& plan, const DeviceBand& prepared, const DeviceOutput& output,
                           FourierCoarseScratch& scratch, cudaStream_t stream);

}  // namespace edgewise::cuda
