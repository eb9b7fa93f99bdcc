#include "engine.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>

#include "float_image.h"

namespace edgewise {

BackendChoice parse_backend(const std::string& text, std::string& error) {
  error.clear();
  if (text == "auto") return BackendChoice::automatic;
  if (text == "cpu") return BackendChoice::cpu;
  if (text == "cuda") return BackendChoice::cuda;
  error = "invalid backend '" + text + "': expected auto, cpu or cuda";
  return BackendChoice::automatic;
}

// Runs every iteration on one backend. The intermediate is read and written
// in place (banded_pass.cpp explains why that is safe).
static void run_passes(Backend& backend, const Plan& plan, PixelSource& source, PixelSink& sink,
                       const ProgressFn& progress) {
  const int passes = plan.spec.iterations;
  const double span = 1.0 / passes;
  if (passes == 1) {
    backend.run_pass(plan, source, sink, progress, 0.0, 1.0);
    return;
  }
  FloatImage intermediate(plan.shape);
  backend.run_pass(plan, source, intermediate, progress, 0.0, span);
  for (int pass = 1; pass + 1 < passes; ++pass)
    backend.run_pass(plan, intermediate, intermediate, progress, pass * span, span);
  backend.run_pass(plan, intermediate, sink, progress, (passes - 1) * span, span);
}

// Runs the job on the requested backend, and in auto mode on the CPU when
// the GPU is absent or fails. `job` runs one backend over the whole image.
static RunReport run_with_fallback(const Plan& plan, const RunOptions& options,
                                   const std::function<void(Backend&)>& job) {
  RunReport report;
  if (options.backend != BackendChoice::cpu) {
    std::string why_not;
    std::unique_ptr<Backend> gpu = make_cuda_backend(options.backend_options, why_not);
    const std::string unsupported = gpu ? gpu->unsupported(plan) : std::string();
    if (!unsupported.empty()) {
      why_not = unsupported;
      gpu.reset();
      if (options.backend == BackendChoice::automatic && options.notice) options.notice(why_not + "; using the CPU");
    }
    if (!gpu && options.backend == BackendChoice::cuda)
      throw BackendError("CUDA backend requested but unavailable: " + why_not);
    if (gpu) {
      try {
        job(*gpu);
        report.backend = gpu->name();
        return report;
      } catch (const BackendError& error) {
        if (options.backend == BackendChoice::cuda) throw;
        // Every row is written again below, so nothing half-done survives.
        report.fallback_reason = error.what();
        if (options.notice)
          options.notice(std::string("GPU failed (") + error.what() + "); rerunning on the CPU");
      }
    }
  }
  std::unique_ptr<Backend> cpu = make_cpu_backend(options.backend_options);
  job(*cpu);
  report.backend = cpu->name();
  return report;
}

RunReport run_filter(const FilterSpec& spec, const ImageShape& shape, PixelSource& source,
                     PixelSink& sink, const RunOptions& options) {
  const Plan plan = make_plan(spec, shape, options.plan_options);
  return run_with_fallback(plan, options, [&](Backend& backend) {
    run_passes(backend, plan, source, sink, options.progress);
  });
}

RunReport run_filter(const FilterSpec& spec, const ImageBuffer& in, const ImageBuffer& out,
                     const RunOptions& options) {
  if (in.shape.width != out.shape.width || in.shape.height != out.shape.height ||
      in.shape.channels != out.shape.channels)
    throw std::invalid_argument("input and output images differ in size or channels");
  const Plan plan = make_plan(spec, in.shape, options.plan_options);
  return run_with_fallback(plan, options, [&](Backend& backend) {
    if (backend.run_buffers(plan, in, out, options.progress)) return;
    BufferSource source(in);
    BufferSink sink(out);
    run_passes(backend, plan, source, sink, options.progress);
  });
}

}  // namespace edgewise
