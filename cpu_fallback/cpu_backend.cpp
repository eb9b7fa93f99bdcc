// The CPU backend: bands run one at a time, in order, each on all cores,
// through the family's band kernel (cpu_kernels.cpp); rows are unpacked
// from and packed to their stored sample type in parallel (a row-stream
// kernel, the pyramid filter's, unpacks and packs its own).
#include "cpu_backend.h"

#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "backend.h"
#include "band_io.h"
#include "cpu_kernels.h"
#include "cpu_sample_rows.h"

namespace edgewise::cpu {

namespace {

// A few rows run on the calling thread: waking the team for them costs more
// than it saves (see bilateral_cpu.cpp).
ParallelRows openmp_rows(int threads) {
  return [threads](int count, const std::function<void(int, int)>& body) {
#pragma omp parallel for schedule(static) num_threads(threads) if (count >= 16)
    for (int i = 0; i < count; ++i) body(i, i + 1);
  };
}

class CpuRunner : public BandRunner {
 public:
  CpuRunner(const Plan& plan, const KernelEntry& entry, int band_rows, int threads) : plan_(plan) {
    context_.band_rows = band_rows;
    context_.threads = threads;
    context_.parallel = openmp_rows(threads);
    context_.progress = &progress_;
    const int width = plan.shape.width, planes = plan.shape.channels;
    if (entry.make_stream) {
      stream_ = entry.make_stream(plan, context_);
      return;
    }
    input_.resize(padded_band_floats(band_rows + 2 * plan.reach, width, plan.pad, planes));
    output_.resize(size_t(band_rows) * size_t(width) * size_t(planes));
    extras_.resize(plan.extra_outputs.size());
    for (size_t e = 0; e < extras_.size(); ++e)
      extras_[e].resize(size_t(band_rows) * size_t(width) * size_t(plan.extra_outputs[e].channels));
    kernel_ = entry.make(plan, context_);
  }

  void submit(int, const BandTask& task) override {
    if (stream_) {
      stream_->run(task.input, plan_.shape.height, task.output);
      return;
    }
    const int width = plan_.shape.width, planes = plan_.shape.channels;
    PaddedBand input = describe_padded_band(task.y0 - plan_.reach, task.rows + 2 * plan_.reach, width, plan_.pad,
                                            planes, input_.data());
    unpack_rows(task.input, plan_.shape.height, input, context_.parallel, &sample_rows());
    const OutputBand output = describe_output_band(task.y0, task.rows, width, planes, output_.data());
    std::vector<OutputBand> extras;
    for (size_t e = 0; e < extras_.size(); ++e)
      extras.push_back(
          describe_output_band(task.y0, task.rows, width, plan_.extra_outputs[e].channels, extras_[e].data()));
    progress_ = task.progress;
    kernel_->run(input, output, extras);
    progress_ = nullptr;
    pack_rows(output, task.output, context_.parallel, &sample_rows());
    for (size_t e = 0; e < extras.size(); ++e) pack_rows(extras[e], task.extras[e], context_.parallel, &sample_rows());
  }

  void wait(int) override {}  // submit() finished the band

 private:
  const Plan& plan_;
  std::function<void(double)> progress_;  // the running band's (context_.progress)
  KernelContext context_;
  BandMemory input_, output_;
  std::vector<BandMemory> extras_;
  std::unique_ptr<BandKernel> kernel_;
  std::unique_ptr<RowStreamKernel> stream_;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& options)
      : threads_(options.threads > 0 ? options.threads : omp_get_num_procs()) {}

  std::string name() const override {
    return "cpu (" + std::string(instruction_set()) + ", " + std::to_string(threads_) + " threads)";
  }

  std::string unsupported(const Plan& plan) const override {
    return find_kernel(plan.family) ? "" : "the CPU backend has no kernel for the " + plan.family + " filters";
  }

  // One band at a time, its padded input around 16 MiB (or the family's
  // band_bytes): small enough that a band's unpack, filter and pack stay
  // near the cache and its buffers are reused, large enough that halo rows
  // cost little. A filter of long reach
  // (the Fourier filter's window, ceil(4 sigma-s) up to 400 rows) gets what
  // bands four reaches tall take, so its halos never cost more than half
  // again, rather than bands a few rows tall or none at all.
  BandBudget budget(const Plan& plan) const override {
    BandBudget budget;
    const KernelEntry* entry = find_kernel(plan.family);
    if (entry) {
      const BandCost own = entry->own_cost(plan);
      budget.own = {own.fixed * sizeof(float), own.per_row * sizeof(float)};
    }
    const size_t tall = std::min(size_t(plan.shape.height), 4 * size_t(plan.reach));
    const BandCost cost = plan.band_cost();
    const size_t needed =
        (cost.fixed + cost.per_row * tall) * sizeof(float) + budget.own.fixed + budget.own.per_row * tall;
    budget.bytes = std::max(entry && entry->band_bytes ? entry->band_bytes : size_t(48) << 20, needed);
    budget.name = "CPU band memory";
    return budget;
  }

  std::unique_ptr<BandRunner> prepare(const Plan& plan, int band_rows, int) override {
    const KernelEntry* entry = find_kernel(plan.family);
    if (!entry) throw BackendError(unsupported(plan));
    return std::make_unique<CpuRunner>(plan, *entry, band_rows, threads_);
  }

 private:
  int threads_;
};

class CpuProvider : public BackendProvider {
 public:
  std::string id() const override { return "cpu"; }
  std::string name() const override { return "CPU"; }
  std::string label() const override { return "CPU"; }
  bool is_fallback() const override { return true; }
  bool usable(std::string& description) const override {
    // The threads a run uses (OpenMP's team: the cores, or OMP_NUM_THREADS).
    description = std::to_string(omp_get_max_threads()) + " threads, " + instruction_set();
    return true;
  }
  std::unique_ptr<Backend> make(const BackendOptions& options) const override {
    return std::make_unique<CpuBackend>(options);
  }
};

}  // namespace

std::shared_ptr<const BackendProvider> cpu_backend_provider() { return std::make_shared<CpuProvider>(); }

}  // namespace edgewise::cpu
