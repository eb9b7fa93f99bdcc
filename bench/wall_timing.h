// Wall-clock timing for the host-side benchmarks: one warm-up run (thread
// pools, page faults, caches), then the median of `repeats` runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace edgewise_bench {

inline double seconds(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median_seconds(const std::function<void()>& run, int repeats) {
  run();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) times.push_back(seconds(run));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

inline double median_ms(const std::function<void()>& run, int repeats) { return 1000.0 * median_seconds(run, repeats); }

}  // namespace edgewise_bench
