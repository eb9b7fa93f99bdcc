// Linked when the project is built without the CUDA backend.
#include "backend.h"

namespace edgewise {

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions&, std::string& why_not) {
  why_not = "this build of Edgewise has no CUDA backend";
  return nullptr;
}

std::string describe_cuda_device() { return "none (built without CUDA)"; }

}  // namespace edgewise
