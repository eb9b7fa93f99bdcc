// The multiresolution bilateral filter on the CPU: a row-stream kernel
// (cpu_kernels.h) that builds the rows of the Laplacian pyramid a band's
// output depends on (pyramid_band_rows) less those it computed for earlier
// rows, runs the bilateral family's row functions on every level and
// collapses the pyramid.
#pragma once

#include <memory>

#include "cpu_kernels.h"
#include "pyramid.h"

namespace edgewise::cpu {

BandCost pyramid_own_cost(const Plan& plan);
std::unique_ptr<RowStreamKernel> make_pyramid_kernel(const Plan& plan, const KernelContext& context);

}  // namespace edgewise::cpu
