// The engine on the CPU backend over 8-bit OpenCV images, and the process's
// CPU time, for the host benchmarks that time Edgewise beside its peers.
#pragma once

#include <time.h>

#include <opencv2/core.hpp>

#include "engine.h"

namespace edgewise_bench {

// CPU seconds of the whole process (all threads): on a machine shared with
// other jobs the steadier figure beside wall time.
inline double process_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

// `in` filtered into `out` (8-bit, same size; 3 channels in the engine's
// R, G, B order) on the CPU backend with `threads` threads.
inline void run_cpu_u8(const edgewise::FilterSpec& spec, const cv::Mat& in, cv::Mat& out, int threads) {
  const edgewise::ImageShape shape{in.cols, in.rows, in.channels()};
  edgewise::RunOptions options;
  options.backend = "cpu";
  options.backend_options.threads = threads;
  edgewise::run_filter(spec, edgewise::ImageBuffer{in.data, shape, edgewise::SampleType::u8, in.step},
                       edgewise::ImageBuffer{out.data, shape, edgewise::SampleType::u8, out.step}, options);
}

}  // namespace edgewise_bench
