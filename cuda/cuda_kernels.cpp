// The CUDA backend's band kernels, one row per filter family (Plan::family).
#include "bilateral_cuda.h"
#include "fourier_cuda.h"
#include "learned_cuda.h"
#include "nlbayes_cuda.h"
#include "nlm_cuda.h"
#include "pyramid_cuda.h"

namespace edgewise::cuda {

namespace {

const DeviceKernelEntry kKernels[] = {
    {"bilateral", bilateral_unsupported, make_bilateral_device_kernel, nullptr},
    {"nlm", nlm_unsupported, make_nlm_device_kernel, nullptr},
    {"fourier", fourier_unsupported, make_fourier_device_kernel, nullptr},
    {"pyramid", pyramid_unsupported, make_pyramid_device_kernel, nullptr},
    {"nlbayes", nlbayes_unsupported, make_nlbayes_device_kernel, nlbayes_device_cost},
    {"learned", learned_unsupported, make_learned_device_kernel, learned_device_cost},
};

}  // namespace

const DeviceKernelEntry* find_device_kernel(const std::string& family) {
  for (const DeviceKernelEntry& entry : kKernels)
    if (family == entry.family) return &entry;
  return nullptr;
}

}  // namespace edgewise::cuda
