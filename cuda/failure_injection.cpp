#include "failure_injection.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace edgewise::cuda {

InjectedFailure injected_failure() {
  const char* value = std::getenv("EDGEWISE_INJECT_GPU_FAILURE");
  if (!value || !*value) return InjectedFailure::none;
  if (std::strcmp(value, "launch") == 0) return InjectedFailure::launch;
  return InjectedFailure::out_of_memory;
}

namespace {

class SimulatedFailingGpu : public Backend {
 public:
  explicit SimulatedFailingGpu(InjectedFailure failure) : failure_(failure) {}
  std::string name() const override { return "simulated failing GPU"; }

  void run_pass(const Plan& plan, PixelSource&, PixelSink& sink, const ProgressFn&, double, double) override {
    const int rows = plan.band_rows;
    std::vector<float> garbage(size_t(rows) * size_t(plan.shape.width) * size_t(plan.shape.channels),
                               std::numeric_limits<float>::quiet_NaN());
    sink.write_rows(0, rows, garbage.data());
    throw BackendError(failure_ == InjectedFailure::launch
                           ? "injected failure: kernel launch failed (simulated device)"
                           : "injected failure: out of device memory (simulated device)");
  }

 private:
  InjectedFailure failure_;
};

}  // namespace

std::unique_ptr<Backend> make_simulated_failing_gpu(InjectedFailure failure) {
  return std::make_unique<SimulatedFailingGpu>(failure);
}

}  // namespace edgewise::cuda
