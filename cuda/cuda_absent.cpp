// The CUDA entry of the backend list when the project is built without
// nvcc: listed, so --backend cuda and PDB backend 2 keep their meaning,
// and never usable.
#include "cuda_backend.h"

namespace edgewise::cuda {

namespace {

class AbsentCuda : public BackendProvider {
 public:
  std::string id() const override { return "cuda"; }
  std::string name() const override { return "CUDA"; }
  std::string label() const override { return "GPU (CUDA)"; }
  bool usable(std::string& description) const override {
    description = "this build of Edgewise has no CUDA backend";
    return false;
  }
  bool built() const override { return false; }
  std::unique_ptr<Backend> make(const BackendOptions&) const override {
    throw BackendError("this build of Edgewise has no CUDA backend");
  }
};

}  // namespace

std::shared_ptr<const BackendProvider> cuda_backend_provider() { return std::make_shared<AbsentCuda>(); }

}  // namespace edgewise::cuda
