// The test hook: EDGEWISE_INJECT_GPU_FAILURE=oom|launch makes the GPU fail
// for real part-way through a job (an impossible allocation, an invalid
// launch), after the first band has reached the output, so tests see that
// auto mode falls back and that nothing half-written survives. On machines
// without a GPU the hook stands in a simulated device that fails the same
// way, so CI exercises the fallback too.
#pragma once

#include <memory>
#include <string>

#include "backend.h"

namespace edgewise::cuda {

enum class InjectedFailure { none, out_of_memory, launch };

InjectedFailure injected_failure();

// Raises the injected failure through the real CUDA error path.
void raise_injected_failure(InjectedFailure failure);

// A backend for machines without a GPU that writes its first band as NaN,
// then fails like a GPU that ran out of memory or failed a launch.
std::unique_ptr<Backend> make_simulated_failing_gpu(InjectedFailure failure);

}  // namespace edgewise::cuda
