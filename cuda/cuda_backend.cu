// The CUDA backend's host side: finding a usable device, and the band
// runner core's executor drives. Each band slot has its own stream and
// device buffers: the band's raw rows go up as stored (8-bit images cross
// PCIe as 8-bit), are unpacked, filtered by the family's kernel and packed
// on the device, and come back as raw rows, while other slots' bands copy
// or compute. Band heights come from core (choose_band_rows) and this
// backend's budget; results do not depend on them.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "cuda_backend.h"
#include "device_band.h"
#include "device_resources.h"
#include "host_staging.h"

namespace edgewise {
namespace cuda {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear a sticky launch error so the CPU rerun starts clean
    throw BackendError(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

namespace {

// Three bands in flight: one uploading, one computing, one downloading.
constexpr int kSlots = 3;

int probe_device(std::string& why_not) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why_not = std::string("no usable CUDA driver or device (") + cudaGetErrorString(status) + ")";
    cudaGetLastError();
    return -1;
  }
  if (count == 0) {
    why_not = "no CUDA device found";
    return -1;
  }
  // Two attributes, not cudaGetDeviceProperties: that reads every property
  // and would be paid on every run (each preview of the dialog is one).
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess || major * 10 + minor < 75) {
    why_not = "CUDA device 0 is older than compute capability 7.5";
    return -1;
  }
  return 0;
}

// The device's name, asked once per process (the backend is made per run).
const std::string& device_name(int device) {
  static const std::string name = [device] {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "querying the CUDA device");
    return std::string(prop.name);
  }();
  return name;
}

// Device memory that grows to what a run asks and is kept for the next.
struct GrowingMemory {
  DeviceMemory memory;
  size_t bytes = 0;
  void reserve(size_t wanted) {
    if (wanted <= bytes) return;
    memory = DeviceMemory();  // free first: the old and new buffers need not fit together
    memory = DeviceMemory(wanted);
    bytes = wanted;
  }
  template <class T>
  T* as() const {
    return memory.as<T>();
  }
};

// Rows the GPU wrote into pinned staging, for the caller's pageable buffer
// once the slot's stream is done.
struct PendingCopy {
  void* to;
  size_t to_stride;
  const void* from;
  size_t row_bytes, rows;
};

// A band slot's stream and buffers. The backend keeps its slots from run to
// run (sized by the largest run so far), so a kept backend allocates
// nothing for a run like the last: the dialog's previews, the CLI's files.
struct Slot {
  GrowingMemory band, scratch, output, raw_in, raw_out;
  std::vector<GrowingMemory> extras, raw_extras;
  PinnedStaging host_in, host_out;
  std::vector<PinnedStaging> host_extras;
  std::vector<PendingCopy> pending;
  Stream stream;
};

using SlotPool = std::vector<std::unique_ptr<Slot>>;

class CudaRunner : public BandRunner {
 public:
  CudaRunner(const Plan& plan, const DeviceKernelEntry& entry, int band_rows, int slots, SlotPool& pool)
      : plan_(plan), band_rows_(band_rows), pool_(pool) {
    const int width = plan.shape.width, planes = plan.shape.channels;
    const size_t band_floats = size_t(band_rows + 2 * plan.reach) * size_t(plan.padded_width()) * size_t(planes);
    const size_t extras = plan.extra_outputs.size();
    for (int i = 0; i < slots; ++i) {
      std::unique_ptr<Slot> slot;
      if (pool_.empty()) {
        slot = std::make_unique<Slot>();
      } else {
        slot = std::move(pool_.back());
        pool_.pop_back();
      }
      slots_.push_back(std::move(slot));  // back to the pool with the runner, even when a reserve below throws
      Slot& kept = *slots_.back();
      kept.band.reserve(band_floats * sizeof(float));
      kept.scratch.reserve(band_floats * size_t(plan.scratch_bands) * sizeof(float));
      kept.output.reserve(size_t(band_rows) * size_t(width) * size_t(planes) * sizeof(float));
      if (kept.extras.size() < extras) {
        kept.extras.resize(extras);
        kept.raw_extras.resize(extras);
      }
      if (kept.host_extras.size() < extras) kept.host_extras = std::vector<PinnedStaging>(extras);
      for (size_t e = 0; e < extras; ++e) {
        const size_t bytes = size_t(band_rows) * size_t(width) * size_t(plan.extra_outputs[e].channels) * sizeof(float);
        kept.extras[e].reserve(bytes);
        kept.raw_extras[e].reserve(bytes);
      }
    }
    kernel_ = entry.make(plan);
  }

  ~CudaRunner() override {
    for (auto& slot : slots_) {
      cudaStreamSynchronize(slot->stream.get());
      slot->pending.clear();  // a run that stopped early delivers nothing more
      pool_.push_back(std::move(slot));
    }
  }

  void submit(int index, const BandTask& task) override {
    Slot& slot = *slots_[size_t(index)];
    cudaStream_t stream = slot.stream.get();
    const int width = plan_.shape.width, planes = plan_.shape.channels;
    const size_t in_row = size_t(width) * size_t(planes) * size_t(sample_bytes(task.input.type));
    const size_t out_row = size_t(width) * size_t(planes) * size_t(sample_bytes(task.output.type));
    const size_t in_rows = size_t(std::min(plan_.shape.height, band_rows_ + 2 * plan_.reach));
    slot.raw_in.reserve(in_row * in_rows);
    slot.raw_out.reserve(out_row * size_t(band_rows_));

    const void* source = task.input.data;
    size_t source_stride = task.input.stride;
    if (!is_pinned(source)) {
      slot.host_in.reserve(in_row * in_rows);
      copy_rows(slot.host_in.data(), in_row, source, source_stride, in_row, size_t(task.input.rows));
      source = slot.host_in.data();
      source_stride = in_row;
    }
    check(cudaMemcpy2DAsync(slot.raw_in.as<void>(), in_row, source, source_stride, in_row, size_t(task.input.rows),
                            cudaMemcpyHostToDevice, stream),
          "copying a band to the GPU");
    const DeviceBand band = describe_device_band(slot.band.as<float>(), task.y0 - plan_.reach,
                                                 task.rows + 2 * plan_.reach, width, plan_.pad);
    launch_unpack(task.input.type, slot.raw_in.as<void>(), in_row, task.input.first_row, task.input.rows, width, planes,
                  band, stream);
    const DeviceOutput output = tight(slot.output.as<float>(), task.y0, task.rows, width);
    std::vector<DeviceOutput> extras;
    for (size_t e = 0; e < plan_.extra_outputs.size(); ++e)
      extras.push_back(tight(slot.extras[e].as<float>(), task.y0, task.rows, width));
    kernel_->run(band, output, extras, slot.scratch.as<float>(), stream);

    launch_pack(task.output.type, output, planes, slot.raw_out.as<void>(), out_row, stream);
    download(slot, task.output.data, task.output.stride, slot.raw_out.as<void>(), out_row, size_t(task.rows),
             slot.host_out);
    for (size_t e = 0; e < extras.size(); ++e) {
      const int channels = plan_.extra_outputs[e].channels;
      const size_t row = size_t(width) * size_t(channels) * sizeof(float);
      launch_pack(SampleType::f32, extras[e], channels, slot.raw_extras[e].as<void>(), row, stream);
      download(slot, task.extras[e].data, task.extras[e].stride, slot.raw_extras[e].as<void>(), row, size_t(task.rows),
               slot.host_extras[e]);
    }
  }

  void wait(int index) override {
    Slot& slot = *slots_[size_t(index)];
    slot.stream.synchronize();
    for (const PendingCopy& copy : slot.pending)
      copy_rows(copy.to, copy.to_stride, copy.from, copy.row_bytes, copy.row_bytes, copy.rows);
    slot.pending.clear();
  }

 private:
  // Rows from the device to `to`: straight into pinned memory, else through
  // the slot's pinned staging and a host copy in wait().
  static void download(Slot& slot, void* to, size_t to_stride, const void* from, size_t row_bytes, size_t rows,
                       PinnedStaging& staging) {
    void* target = to;
    size_t target_stride = to_stride;
    if (!is_pinned(to)) {
      staging.reserve(row_bytes * rows);
      slot.pending.push_back({to, to_stride, staging.data(), row_bytes, rows});
      target = staging.data();
      target_stride = row_bytes;
    }
    check(cudaMemcpy2DAsync(target, target_stride, from, row_bytes, row_bytes, rows, cudaMemcpyDeviceToHost,
                            slot.stream.get()),
          "copying a band from the GPU");
  }

  static DeviceOutput tight(float* data, int first_row, int rows, int width) {
    DeviceOutput out;
    out.data = data;
    out.first_row = first_row;
    out.rows = rows;
    out.width = width;
    out.row_stride = size_t(width);
    out.plane_stride = size_t(rows) * size_t(width);
    return out;
  }

  const Plan& plan_;
  int band_rows_;
  SlotPool& pool_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::unique_ptr<DeviceBandKernel> kernel_;
};

class CudaBackend : public Backend {
 public:
  CudaBackend(int device, const BackendOptions& options) : device_(device), budget_(options.gpu_memory_budget) {
    check(cudaSetDevice(device_), "selecting the CUDA device");
    name_ = "cuda (" + device_name(device_) + ")";
  }

  std::string name() const override { return name_; }

  std::string unsupported(const Plan& plan) const override {
    const DeviceKernelEntry* entry = find_device_kernel(plan.family);
    if (!entry) return "the CUDA backend has no kernel for the " + plan.family + " filters";
    return entry->unsupported(plan);
  }

  // Three bands in flight, and up to 8 bands of 64 rows or more, so
  // copies overlap compute even on images that would fit whole; but a band
  // of at least a megapixel, since below that a band's copies take less
  // than its launches (the dialog's 0.5 MP preview: 0.36 ms in 8 bands,
  // 0.29 in one). Shorter bands only add launches (asked-for heights are
  // raised to this too): the preview took 8.3 ms in 16-row bands, 3.5 in 64.
  BandBudget budget(const Plan& plan) const override {
    BandBudget budget;
    budget.slots = kSlots;
    budget.bytes = budget_;
    const double megapixels = double(plan.shape.width) * double(plan.shape.height) * 1e-6;
    budget.min_bands = std::clamp(int(megapixels), 1, 8);
    budget.min_rows = std::max(64, (plan.shape.height + budget.min_bands - 1) / budget.min_bands);
    budget.name = "GPU memory budget";
    // Raw rows in and out, counted as floats (the widest samples).
    const size_t raw_row = size_t(plan.shape.width) * size_t(plan.shape.channels) * sizeof(float);
    budget.own = {2 * size_t(plan.reach) * raw_row, 2 * raw_row};
    const DeviceKernelEntry* entry = find_device_kernel(plan.family);
    if (entry && entry->own_cost) {
      const BandCost kernel = entry->own_cost(plan);
      budget.own.fixed += kernel.fixed;
      budget.own.per_row += kernel.per_row;
    }
    return budget;
  }

  std::unique_ptr<BandRunner> prepare(const Plan& plan, int band_rows, int slots) override {
    const std::string why_not = unsupported(plan);
    if (!why_not.empty()) throw BackendError(why_not);
    return std::make_unique<CudaRunner>(plan, *find_device_kernel(plan.family), band_rows, slots, pool_);
  }

  // Registered rather than cudaMallocHost: a tenth of the cost (bench_host_memory).
  std::shared_ptr<void> allocate_host(size_t bytes) override {
    return std::shared_ptr<void>(allocate_registered(bytes), release_registered);
  }

  // The real failure paths: an invalid launch, an impossible allocation.
  void provoke_failure(InjectedFailure failure) override {
    if (failure == InjectedFailure::launch) launch_invalid_configuration();
    void* impossible = nullptr;
    check(cudaMalloc(&impossible, size_t(1) << 60), "injected failure (EDGEWISE_INJECT_GPU_FAILURE)");
  }

 private:
  int device_;
  size_t budget_;
  std::string name_;
  SlotPool pool_;  // the last runs' slots (a runner borrows them; it never outlives the backend)
};

class CudaProvider : public BackendProvider {
 public:
  std::string id() const override { return "cuda"; }
  std::string name() const override { return "CUDA"; }
  std::string label() const override { return "GPU (CUDA)"; }

  // Cheap enough for every run (the engine asks before each job, and each
  // preview of the dialog is one): two attributes, the rest asked once.
  bool usable(std::string& description) const override {
    const int device = probe_device(description);
    if (device < 0) return false;
    static const std::string known = [device] {
      cudaDeviceProp prop{};
      cudaGetDeviceProperties(&prop, device);
      return std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "." +
             std::to_string(prop.minor) + ", " + std::to_string(prop.totalGlobalMem >> 20) + " MiB)";
    }();
    description = known;
    return true;
  }

  std::shared_ptr<void> allocate_host(size_t bytes) const override {
    return std::shared_ptr<void>(allocate_registered(bytes), release_registered);
  }

  std::unique_ptr<Backend> make(const BackendOptions& options) const override {
    std::string why_not;
    const int device = probe_device(why_not);
    if (device < 0) throw BackendError(why_not);
    return std::make_unique<CudaBackend>(device, options);
  }
};

}  // namespace

std::shared_ptr<const BackendProvider> cuda_backend_provider() { return std::make_shared<CudaProvider>(); }

}  // namespace cuda
}  // namespace edgewise
