// RAII owners for device memory, pinned host memory and streams. A stream
// is synchronised before anything is freed, so an exception in the middle of
// a pipeline never frees memory a copy or kernel still uses.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "bilateral_cuda.h"

namespace edgewise::cuda {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(size_t bytes) {
    if (bytes) check(cudaMalloc(&data_, bytes), "allocating device memory");
  }
  ~DeviceMemory() { if (data_) cudaFree(data_); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  template <class T>
  T* as() const { return static_cast<T*>(data_); }

 private:
  void* data_ = nullptr;
};

class PinnedMemory {
 public:
  PinnedMemory() = default;
  explicit PinnedMemory(size_t bytes) {
    if (bytes) check(cudaMallocHost(&data_, bytes), "allocating pinned host memory");
  }
  ~PinnedMemory() { if (data_) cudaFreeHost(data_); }
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  PinnedMemory& operator=(PinnedMemory&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  template <class T>
  T* as() const { return static_cast<T*>(data_); }

 private:
  void* data_ = nullptr;
};

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
