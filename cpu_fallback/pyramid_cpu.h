// The multiresolution bilateral filter on the CPU: its band kernel builds
// the band's share of the Laplacian pyramid (the rows its output depends
// on, pyramid_band_rows), runs the bilateral family's row functions on
// every level and collapses the pyramid.
#pragma once

#include <memory>

#include "cpu_kernels.h"
#include "pyramid.h"

namespace edgewise::cpu {

BandCost pyramid_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_pyramid_kernel(const Plan& plan, const KernelContext& context);

}  // namespace edgewise::cpu
