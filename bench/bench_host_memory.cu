// What moving a 24 MP 8-bit RGBA image (96 MB) between pageable host memory
// and the GPU costs each way the CUDA backend could take (issue 17, goal 3):
// the driver's own staging (cudaMemcpy from pageable memory), pinning the
// caller's buffer for the run (cudaHostRegister), allocating pinned memory
// to decode into (cudaMallocHost), and copying through a pinned staging
// buffer with the host's memcpy on 1 to 16 threads. Median of 5; prints a
// table.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace {

constexpr size_t kBytes = size_t(6000) * 4000 * 4;

void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
    std::exit(1);
  }
}

double median_ms(const std::function<void()>& run) {
  run();
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void parallel_copy(void* to, const void* from, size_t bytes, int threads) {
  std::vector<std::thread> pool;
  const size_t share = (bytes + size_t(threads) - 1) / size_t(threads);
  for (int t = 0; t < threads; ++t) {
    const size_t begin = std::min(bytes, share * size_t(t)), end = std::min(bytes, begin + share);
    pool.emplace_back(
        [=] { std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, end - begin); });
  }
  for (auto& thread : pool) thread.join();
}

}  // namespace

int main() {
  check(cudaFree(nullptr), "starting CUDA");
  std::vector<unsigned char> pageable(kBytes, 1), pageable_out(kBytes, 2);
  void *device = nullptr, *pinned = nullptr;
  check(cudaMalloc(&device, kBytes), "cudaMalloc");
  check(cudaMallocHost(&pinned, kBytes), "cudaMallocHost");
  std::memset(pinned, 3, kBytes);
  std::printf("96 MB (24 MP 8-bit RGBA), median of 5, %u host threads available\n\n",
              std::thread::hardware_concurrency());
  std::printf("| operation | ms | GB/s |\n|---|---:|---:|\n");
  auto row = [](const char* what, double ms) { std::printf("| %s | %.2f | %.1f |\n", what, ms, kBytes / ms * 1e-6); };
  row("H2D from pageable (cudaMemcpy)",
      median_ms([&] { check(cudaMemcpy(device, pageable.data(), kBytes, cudaMemcpyHostToDevice), "h2d"); }));
  row("D2H to pageable (cudaMemcpy)",
      median_ms([&] { check(cudaMemcpy(pageable_out.data(), device, kBytes, cudaMemcpyDeviceToHost), "d2h"); }));
  row("H2D from pinned", median_ms([&] { check(cudaMemcpy(device, pinned, kBytes, cudaMemcpyHostToDevice), "h2d"); }));
  row("D2H to pinned", median_ms([&] { check(cudaMemcpy(pinned, device, kBytes, cudaMemcpyDeviceToHost), "d2h"); }));
  row("cudaHostRegister + cudaHostUnregister", median_ms([&] {
        check(cudaHostRegister(pageable.data(), kBytes, cudaHostRegisterDefault), "register");
        check(cudaHostUnregister(pageable.data()), "unregister");
      }));
  row("cudaHostRegister, H2D, unregister", median_ms([&] {
        check(cudaHostRegister(pageable.data(), kBytes, cudaHostRegisterDefault), "register");
        check(cudaMemcpy(device, pageable.data(), kBytes, cudaMemcpyHostToDevice), "h2d");
        check(cudaHostUnregister(pageable.data()), "unregister");
      }));
  row("cudaMallocHost + cudaFreeHost", median_ms([&] {
        void* p = nullptr;
        check(cudaMallocHost(&p, kBytes), "cudaMallocHost");
        check(cudaFreeHost(p), "cudaFreeHost");
      }));
  row("cudaMallocHost, first touch, cudaFreeHost", median_ms([&] {
        void* p = nullptr;
        check(cudaMallocHost(&p, kBytes), "cudaMallocHost");
        std::memset(p, 0, kBytes);
        check(cudaFreeHost(p), "cudaFreeHost");
      }));
  for (int threads : {1, 2, 4, 8, 16}) {
    char what[64];
    std::snprintf(what, sizeof what, "memcpy pageable -> pinned, %d threads", threads);
    row(what, median_ms([&] { parallel_copy(pinned, pageable.data(), kBytes, threads); }));
  }
  cudaFree(device);
  cudaFreeHost(pinned);
  return 0;
}
