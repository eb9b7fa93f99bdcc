// The learned denoiser on the CPU: its band kernel (learned_cpu.cpp), which
// hands a band's rows to core's learned_denoise_rows (tiles over OpenMP
// threads, through the noise network's and the denoiser's kernels for this
// processor's instruction set).
#pragma once

#include <cstddef>
#include <memory>

#include "cpu_kernels.h"

namespace edgewise::cpu {

// Bands of about this many bytes: a band reads learned_reach rows (152 for
// the v1 weights) beyond its own on each side, and runs the noise network
// and the denoiser on them again, so tall bands waste less; 24 MP (6000
// px wide) in bands of about 1100 rows.
constexpr size_t kLearnedBandBytes = size_t(256) << 20;

BandCost learned_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_learned_kernel(const Plan& plan, const KernelContext& context);

}  // namespace edgewise::cpu
