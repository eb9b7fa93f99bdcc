// The CUDA backend's entry in the backend list. The runtime is linked
// statically and devices are probed at run time, so one binary starts on
// machines without an NVIDIA driver; the entry then says why it is unusable.
#pragma once

#include <memory>

#include "backend.h"

namespace edgewise::cuda {

std::shared_ptr<const BackendProvider> cuda_backend_provider();

}  // namespace edgewise::cuda
