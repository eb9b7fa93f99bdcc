// The CUDA backend's host side: finding a usable device, and two pipelines
// that overlap copies with compute on streams:
//  - run_pass streams float rows through pinned staging (any source/sink,
//    every iteration, images of any size);
//  - run_buffers moves raw 8/16-bit or float samples and converts on the
//    device, the fast path for whole images in memory (one iteration).
// Bands are sized from the memory budget; results do not depend on it.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "banded_pass.h"
#include "bilateral_cuda.h"
#include "device_resources.h"
#include "failure_injection.h"

namespace edgewise {
namespace cuda {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear a sticky launch error so the CPU rerun starts clean
    throw BackendError(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

void raise_injected_failure(InjectedFailure failure) {
  if (failure == InjectedFailure::launch) launch_invalid_configuration();
  void* impossible = nullptr;
  check(cudaMalloc(&impossible, size_t(1) << 60), "injected failure (EDGEWISE_INJECT_GPU_FAILURE)");
}

namespace {

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
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess ||
      major * 10 + minor < 75) {
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

// Output rows per band: as many as the budget allows for kSlots bands in
// flight, but at most an eighth of the image so copies overlap compute.
int band_rows_for(const Plan& plan, size_t budget, size_t raw_bytes_per_row) {
  const size_t c = size_t(plan.shape.channels), r = size_t(plan.radius);
  const size_t padded_row = size_t(plan.padded_width()) * c * sizeof(float);
  const size_t out_row = size_t(plan.shape.width) * c * sizeof(float);
  const size_t per_slot = budget / kSlots;
  const size_t fixed = 2 * r * (padded_row + raw_bytes_per_row);
  const size_t per_row = padded_row + out_row + 2 * raw_bytes_per_row;
  if (per_slot <= fixed + per_row * std::max<size_t>(r, 1))
    throw BackendError("GPU memory budget of " + std::to_string(budget >> 20) +
                       " MiB is too small for this image width and radius");
  const int fit = int(std::min<size_t>((per_slot - fixed) / per_row, size_t(plan.shape.height)));
  const int eighth = (plan.shape.height + 7) / 8;
  return std::max({std::min(fit, std::max(eighth, 64)), plan.radius, 1});
}

struct FloatSlot {
  PinnedMemory host_in, host_out;
  DeviceMemory device_in, device_out;
  Stream stream;
  int y0 = 0, rows = 0;
  bool busy = false;
};

class CudaBackend : public Backend {
 public:
  CudaBackend(int device, const BackendOptions& options) : device_(device), budget_(options.gpu_memory_budget) {
    check(cudaSetDevice(device_), "selecting the CUDA device");
    name_ = "cuda (" + device_name(device_) + ")";
    check(cudaMalloc(&table_, size_t(257) * 257 * sizeof(float)), "allocating the spatial table");
  }
  ~CudaBackend() override { cudaFree(table_); }

  std::string name() const override { return name_; }

  std::string unsupported(const Plan& plan) const override {
    // The adaptive walk exists only in the shared-memory kernels.
    if (plan.params.output_sigma) return "the sigma map is computed on the CPU";
    return plan.params.adaptive && plan.radius > kMaxTiledRadius
               ? "the adaptive filter runs on the GPU up to radius " + std::to_string(kMaxTiledRadius)
               : "";
  }

  void run_pass(const Plan& cpu_plan, PixelSource& source, PixelSink& sink, const ProgressFn& progress,
                double progress_base, double progress_span) override {
    Plan plan = cpu_plan;
    plan.band_rows = band_rows_for(cpu_plan, budget_, 0);
    const InjectedFailure failure = injected_failure();
    BandGatherer gatherer(plan);
    const size_t in_floats = padded_band_floats(plan), out_floats = output_band_floats(plan);
    std::vector<std::unique_ptr<FloatSlot>> slots;
    for (int i = 0; i < 2; ++i) {
      auto slot = std::make_unique<FloatSlot>();
      slot->host_in = PinnedMemory(in_floats * sizeof(float));
      slot->host_out = PinnedMemory(out_floats * sizeof(float));
      slot->device_in = DeviceMemory(in_floats * sizeof(float));
      slot->device_out = DeviceMemory(out_floats * sizeof(float));
      slots.push_back(std::move(slot));
    }
    upload_spatial_table(plan, table_, slots[0]->stream.get());
    slots[0]->stream.synchronize();

    const int height = plan.shape.height;
    int band = 0;
    // Scatter of band b happens after band b+1 is gathered, as in core's
    // banded pass, so in-place iterations read only original rows.
    auto finish = [&](FloatSlot& slot) {
      slot.stream.synchronize();
      gatherer.scatter(describe_output_band(plan, slot.y0, slot.rows, slot.host_out.as<float>()), sink);
      slot.busy = false;
      if (failure != InjectedFailure::none) raise_injected_failure(failure);
      if (progress && !progress(progress_base + progress_span * double(slot.y0 + slot.rows) / height))
        throw Cancelled{};
    };
    for (int y0 = 0; y0 < height; y0 += plan.band_rows, ++band) {
      FloatSlot& slot = *slots[size_t(band % 2)];
      const int rows = std::min(plan.band_rows, height - y0);
      if (slot.busy) finish(slot);
      PaddedBand host_band;
      host_band.data = slot.host_in.as<float>();
      gatherer.gather(source, y0, rows, host_band);
      const size_t bytes_in = host_band.plane_stride * size_t(host_band.planes) * sizeof(float);
      check(cudaMemcpyAsync(slot.device_in.as<float>(), host_band.data, bytes_in, cudaMemcpyHostToDevice,
                            slot.stream.get()),
            "copying a band to the GPU");
      const DeviceBand in{slot.device_in.as<float>(), host_band.width, rows + 2 * plan.radius,
                          host_band.plane_stride};
      const DeviceOutput out{slot.device_out.as<float>(), plan.shape.width, rows,
                             size_t(rows) * size_t(plan.shape.width)};
      launch_bilateral(plan, in, out, table_, slot.stream.get());
      check(cudaMemcpyAsync(slot.host_out.as<float>(), out.data, out.plane_stride * plan.shape.channels * sizeof(float),
                            cudaMemcpyDeviceToHost, slot.stream.get()),
            "copying a band from the GPU");
      slot.y0 = y0;
      slot.rows = rows;
      slot.busy = true;
    }
    // The older band first, so rows reach the sink in order.
    for (int i = 0; i < 2; ++i) {
      FloatSlot& slot = *slots[size_t((band + i) % 2)];
      if (slot.busy) finish(slot);
    }
  }

  bool run_buffers(const Plan& cpu_plan, const ImageBuffer& in, const ImageBuffer& out,
                   const ProgressFn& progress) override {
    if (cpu_plan.spec.iterations != 1 || in.data == out.data) return false;
    const size_t raw_row = size_t(cpu_plan.shape.width) * size_t(cpu_plan.shape.channels) *
                           size_t(std::max(sample_bytes(in.type), sample_bytes(out.type)));
    Plan plan = cpu_plan;
    plan.band_rows = band_rows_for(cpu_plan, budget_, raw_row);
    const InjectedFailure failure = injected_failure();
    const int r = plan.radius, height = plan.shape.height, channels = plan.shape.channels;
    const size_t in_floats = padded_band_floats(plan), out_floats = output_band_floats(plan);
    const size_t raw_in_bytes = size_t(plan.band_rows + 2 * r) * in.stride();
    const size_t raw_out_bytes = size_t(plan.band_rows) * out.stride();

    struct RawSlot {
      DeviceMemory raw_in, raw_out, band, output;
      Stream stream;
    };
    std::vector<std::unique_ptr<RawSlot>> slots;
    for (int i = 0; i < kSlots; ++i) {
      auto slot = std::make_unique<RawSlot>();
      slot->raw_in = DeviceMemory(raw_in_bytes);
      slot->raw_out = DeviceMemory(raw_out_bytes);
      slot->band = DeviceMemory(in_floats * sizeof(float));
      slot->output = DeviceMemory(out_floats * sizeof(float));
      slots.push_back(std::move(slot));
    }
    upload_spatial_table(plan, table_, slots[0]->stream.get());
    slots[0]->stream.synchronize();

    int band = 0;
    for (int y0 = 0; y0 < height; y0 += plan.band_rows, ++band) {
      RawSlot& slot = *slots[size_t(band % kSlots)];
      cudaStream_t stream = slot.stream.get();
      if (band >= kSlots) {
        slot.stream.synchronize();  // its previous band is done with the buffers
        if (progress && !progress(double(y0) / height)) throw Cancelled{};
      }
      const int rows = std::min(plan.band_rows, height - y0);
      const int first = std::max(0, y0 - r), last = std::min(height, y0 + rows + r);
      check(cudaMemcpy2DAsync(slot.raw_in.as<void>(), in.stride(), in.row(first), in.stride(),
                              size_t(plan.shape.width) * channels * sample_bytes(in.type), size_t(last - first),
                              cudaMemcpyHostToDevice, stream),
            "copying a band to the GPU");
      const int padded_rows = rows + 2 * r;
      const DeviceBand dband{slot.band.as<float>(), plan.padded_width(), padded_rows,
                             size_t(padded_rows) * size_t(plan.padded_width())};
      launch_unpack(in.type, slot.raw_in.as<void>(), in.stride(), first, last - first, y0, plan, dband, stream);
      const DeviceOutput dout{slot.output.as<float>(), plan.shape.width, rows, size_t(rows) * size_t(plan.shape.width)};
      launch_bilateral(plan, dband, dout, table_, stream);
      launch_pack(out.type, dout, channels, slot.raw_out.as<void>(), out.stride(), stream);
      check(cudaMemcpy2DAsync(out.row(y0), out.stride(), slot.raw_out.as<void>(), out.stride(),
                              size_t(plan.shape.width) * channels * sample_bytes(out.type), size_t(rows),
                              cudaMemcpyDeviceToHost, stream),
            "copying a band from the GPU");
      if (band == 0 && failure != InjectedFailure::none) {
        slot.stream.synchronize();
        raise_injected_failure(failure);
      }
    }
    for (auto& slot : slots) slot->stream.synchronize();
    if (progress && !progress(1.0)) throw Cancelled{};
    return true;
  }

 private:
  int device_;
  size_t budget_;
  std::string name_;
  float* table_ = nullptr;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options, std::string& why_not) {
  const int device = cuda::probe_device(why_not);
  if (device < 0) {
    const cuda::InjectedFailure failure = cuda::injected_failure();
    if (failure != cuda::InjectedFailure::none) return cuda::make_simulated_failing_gpu(failure);
    return nullptr;
  }
  try {
    return std::make_unique<cuda::CudaBackend>(device, options);
  } catch (const BackendError& error) {
    why_not = error.what();
    return nullptr;
  }
}

bool cuda_device_usable(std::string& description) {
  const int device = cuda::probe_device(description);
  if (device < 0) return false;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  description = std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "." +
                std::to_string(prop.minor) + ", " + std::to_string(prop.totalGlobalMem >> 20) + " MiB)";
  return true;
}

std::string describe_cuda_device() {
  std::string description;
  cuda_device_usable(description);
  return description;
}

}  // namespace edgewise
