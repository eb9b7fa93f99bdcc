#include "cpu_kernels.h"

#include "bilateral_cpu.h"
#include "fourier_cpu.h"
#include "learned_cpu.h"
#include "nlbayes_cpu.h"
#include "nlm_cpu.h"
#include "pyramid_cpu.h"

namespace edgewise::cpu {

namespace {

const KernelEntry kKernels[] = {
    {"bilateral", bilateral_own_cost, make_bilateral_kernel, nullptr, kBilateralBandBytes},
    {"nlm", nlm_own_cost, make_nlm_kernel, nullptr},
    {"fourier", fourier_own_cost, make_fourier_kernel, nullptr},
    {"pyramid", pyramid_own_cost, nullptr, make_pyramid_kernel},
    {"nlbayes", nlbayes_own_cost, make_nlbayes_kernel, nullptr, kNlbBandBytes},
    {"learned", learned_own_cost, make_learned_kernel, nullptr, kLearnedBandBytes},
};

}  // namespace

const KernelEntry* find_kernel(const std::string& family) {
  for (const KernelEntry& entry : kKernels)
    if (family == entry.family) return &entry;
  return nullptr;
}

}  // namespace edgewise::cpu
