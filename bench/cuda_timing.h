// Kernel timing for the GPU benchmarks: device events around each launch,
// after one warm-up launch, so that host overhead does not count.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "device_resources.h"

namespace edgewise_bench {

// The median of `repeats` device-event timings of `launch`, in ms.
template <class F>
float median_event_ms(F&& launch, int repeats) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();
  edgewise::cuda::check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> times;
  for (int i = 0; i < repeats; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  edgewise::cuda::check(cudaGetLastError(), "timed launches");
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace edgewise_bench
