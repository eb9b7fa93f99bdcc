// Pinned host memory for the caller's pageable buffers. The driver copies
// from pageable memory through its own small pinned buffers, one thread,
// synchronously: 7-10 GB/s on the H100 machine, where pinned memory moves
// 53 GB/s (bench_host_memory). Pinning the caller's buffer per run
// (cudaHostRegister) costs as much as the driver's copy, and allocating
// pinned memory with cudaMallocHost ten times that; so the band runner
// copies pageable rows into pinned staging it keeps, on several host
// threads, and the staging is allocated once per kept backend.
#pragma once

#include <cstddef>

namespace edgewise::cuda {

// True when the GPU can copy from or to `data` asynchronously (cudaMallocHost
// or registered memory); false for ordinary pageable memory.
bool is_pinned(const void* data);

// Rows of `row_bytes` between strided buffers, on as many OpenMP threads as
// the size pays for (a MB each: the dialog's 6 MB preview input took 0.54 ms on
// 4 threads and 1.0 ms on 16).
void copy_rows(void* to, size_t to_stride, const void* from, size_t from_stride, size_t row_bytes, size_t rows);

// Page-aligned host memory pinned with cudaHostRegister, grown on demand.
class PinnedStaging {
 public:
  PinnedStaging() = default;
  ~PinnedStaging() { release(); }
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;
  // At least `bytes` (the contents are not kept when it grows).
  void reserve(size_t bytes);
  void* data() const { return data_; }

 private:
  void release();
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// The allocator behind Backend::allocate_host on the GPU: pinned memory for
// the executor's staged rows, owned by the pointer.
void* allocate_registered(size_t bytes);
void release_registered(void* data);

}  // namespace edgewise::cuda
