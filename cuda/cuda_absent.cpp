// Linked when the project is built without the CUDA backend.
#include "backend.h"
#include "failure_injection.h"

namespace edgewise {

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions&, std::string& why_not) {
  why_not = "this build of Edgewise has no CUDA backend";
  const cuda::InjectedFailure failure = cuda::injected_failure();
  if (failure != cuda::InjectedFailure::none) return cuda::make_simulated_failing_gpu(failure);
  return nullptr;
}

std::string describe_cuda_device() { return "none (built without CUDA)"; }

bool cuda_device_usable(std::string& description) {
  description = "this build of Edgewise has no CUDA backend";
  return false;
}

}  // namespace edgewise
