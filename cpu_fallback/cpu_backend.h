// The CPU backend's entry in the backend list: float32, all cores, SIMD
// inner loops chosen at run time. Always present; auto falls back to it.
#pragma once

#include <memory>

#include "backend.h"

namespace edgewise::cpu {

std::shared_ptr<const BackendProvider> cpu_backend_provider();

}  // namespace edgewise::cpu
