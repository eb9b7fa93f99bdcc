#include "host_staging.h"

#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "device_band.h"  // check()

namespace edgewise::cuda {

namespace {

constexpr size_t kPage = 4096;
// Below this many bytes per thread a copy is not worth waking a thread for.
constexpr size_t kBytesPerThread = size_t(1) << 20;

}  // namespace

bool is_pinned(const void* data) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    cudaGetLastError();  // an unknown pointer: pageable, and no sticky error left behind
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

void copy_rows(void* to, size_t to_stride, const void* from, size_t from_stride, size_t row_bytes, size_t rows) {
  auto* target = static_cast<unsigned char*>(to);
  const auto* source = static_cast<const unsigned char*>(from);
  const size_t bytes = row_bytes * rows;
  const int threads = int(std::clamp<size_t>(bytes / kBytesPerThread, 1, size_t(omp_get_max_threads())));
  if (to_stride == row_bytes && from_stride == row_bytes) {
    // One block: cut it evenly, whatever the row count.
    const size_t share = (bytes + size_t(threads) - 1) / size_t(threads);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
      const size_t begin = std::min(bytes, share * size_t(t)), end = std::min(bytes, begin + share);
      std::memcpy(target + begin, source + begin, end - begin);
    }
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (long y = 0; y < long(rows); ++y)
    std::memcpy(target + size_t(y) * to_stride, source + size_t(y) * from_stride, row_bytes);
}

void* allocate_registered(size_t bytes) {
  const size_t rounded = std::max(kPage, (bytes + kPage - 1) / kPage * kPage);
  void* data = std::aligned_alloc(kPage, rounded);
  if (!data) throw std::bad_alloc();
  const cudaError_t status = cudaHostRegister(data, rounded, cudaHostRegisterDefault);
  if (status != cudaSuccess) {
    std::free(data);
    check(status, "pinning host memory");
  }
  return data;
}

void release_registered(void* data) {
  if (!data) return;
  cudaHostUnregister(data);
  std::free(data);
}

void PinnedStaging::reserve(size_t bytes) {
  if (bytes <= bytes_) return;
  release();
  data_ = allocate_registered(bytes);
  bytes_ = bytes;
}

void PinnedStaging::release() {
  release_registered(data_);
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace edgewise::cuda
