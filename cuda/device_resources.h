// RAII owners for device memory, pinned host memory and streams. A stream
// is synchronised before anything is freed, so an exception in the middle of
// a pipeline never frees memory a copy or kernel still uses.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "device_band.h"  // check()

namespace edgewise::cuda {

// Memory from one CUDA allocator, freed by its matching call.
template <cudaError_t (*Allocate)(void**, size_t), cudaError_t (*Release)(void*)>
class CudaMemory {
 public:
  CudaMemory() = default;
  explicit CudaMemory(size_t bytes) {
    if (bytes) check(Allocate(&data_, bytes), "allocating GPU or pinned host memory");
  }
  ~CudaMemory() {
    if (data_) Release(data_);
  }
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;
  CudaMemory(CudaMemory&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  CudaMemory& operator=(CudaMemory&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
};

inline cudaError_t allocate_device(void** data, size_t bytes) { return cudaMalloc(data, bytes); }
inline cudaError_t allocate_pinned(void** data, size_t bytes) { return cudaMallocHost(data, bytes); }
inline cudaError_t release_device(void* data) { return cudaFree(data); }
inline cudaError_t release_pinned(void* data) { return cudaFreeHost(data); }

using DeviceMemory = CudaMemory<allocate_device, release_device>;
using PinnedMemory = CudaMemory<allocate_pinned, release_pinned>;

class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream"); }
  ~Stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check(cudaStreamSynchronize(stream_), "running the filter on the GPU"); }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace edgewise::cuda
