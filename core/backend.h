// The interface every compute backend implements, and the factories the
// engine selects from at run time. core/ itself depends on no backend.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "image_buffer.h"
#include "pixel_stream.h"
#include "plan.h"

namespace edgewise {

enum class BackendChoice { automatic = 0, cpu = 1, cuda = 2 };

// Errors a backend cannot recover from (no device, out of memory, a failed
// launch). In auto mode the engine reruns the job on the CPU.
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BackendOptions {
  int threads = 0;                          // CPU threads, 0 = all cores
  size_t gpu_memory_budget = size_t(1) << 30;  // bytes the GPU may hold for a pass
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Why this backend cannot run the plan, or "" when it can.
  virtual std::string unsupported(const Plan& /*plan*/) const { return ""; }
  // One pass: reads every row of source, writes every row of sink once.
  virtual void run_pass(const Plan& plan, PixelSource& source, PixelSink& sink,
                        const ProgressFn& progress, double progress_base, double progress_span) = 0;
  // A whole job on in-memory buffers, for backends that can move raw samples
  // themselves (the GPU uploads 8-bit data, not floats). Returns false when
  // this backend has no such path for the plan; the engine then streams rows.
  virtual bool run_buffers(const Plan& /*plan*/, const ImageBuffer& /*in*/, const ImageBuffer& /*out*/,
                           const ProgressFn& /*progress*/) {
    return false;
  }
};

// Implemented in cpu_fallback/ and cuda/ (or cuda/cuda_absent.cpp when the
// project is built without nvcc).
std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);
// Returns nullptr and sets why_not when no usable CUDA device exists.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options, std::string& why_not);
// A short description of the CUDA device that would be used, or why none.
std::string describe_cuda_device();
// True when a usable CUDA device exists; `description` then names it, and
// otherwise says why none is usable (for the dialog's backend choice).
bool cuda_device_usable(std::string& description);

}  // namespace edgewise
