// The collaborative denoiser (Non-Local Bayes, core/filters/nlbayes.h) on the
// GPU: its entry in the kernel table (nlbayes.cu: the band kernel, scales
// and steps, as the CPU's cpu_fallback/nlbayes_cpu.cpp) and the group kernel
// it launches (nlbayes_groups.cu: one block per reference patch).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "device_band.h"
#include "hostdevice.h"
#include "nlbayes.h"

namespace edgewise::cuda {

// "" when the GPU can run the plan: every step's group fits a block's
// shared memory (nlb_group_layout).
std::string nlbayes_unsupported(const Plan& plan);
std::unique_ptr<DeviceBandKernel> make_nlbayes_device_kernel(const Plan& plan);
// The band kernel's own device memory (bytes) for a band of `rows` output
// rows: the backend's budget counts it (an upper bound of what run() takes).
BandCost nlbayes_device_cost(const Plan& plan);

// Rows [row0, row0 + rows) of one scale in planes (code values): `channels`
// colour planes (opponent, or grey), then alpha when `alpha`.
struct NlbDeviceRows {
  float* data = nullptr;
  int width = 0, height = 0;  // the scale's
  int row0 = 0, rows = 0;
  int channels = 0;
  bool alpha = false;
  size_t plane_stride = 0;
  EW_HD float* row(int plane, int y) const {
    return data + size_t(plane) * plane_stride + size_t(y - row0) * size_t(width);
  }
};

// A step's sums in fixed point (kNlbFixedOne per unit), so that the
// blocks' atomic adds give the same sums in any order: `channels`
// numerator planes, then the denominator, over rows [row0, row0 + rows).
struct NlbDeviceSums {
  unsigned long long* data = nullptr;
  int row0 = 0, rows = 0, width = 0, channels = 0;
  EW_HD unsigned long long* row(int plane, int y) const {
    return data + (size_t(plane) * size_t(rows) + size_t(y - row0)) * size_t(width);
  }
};

// 2^32 per code value: a pixel's sum holds at most (2R + p)^2 / s^2
// references x p^2 members (R 32, p 7, s 1: 247 009 contributions) of at
// most a few thousand code values (estimates overshoot 0-441 a little),
// under 2^63 with room; a float term of w x estimate is exact in it down
// to 2^-9 code values (every term that matters).
constexpr float kNlbFixedOne = 4294967296.0f;

// Where a group's working arrays lie in a block's dynamic shared memory
// (offsets in 4-byte words): member positions and weights, the members'
// samples ([sample][member], a row of member_stride), the second array
// (first the selection's candidate distances as bits and its histogram;
// then step 1: every channel's deviations; step 2: the basic estimate's
// members, then the solve's columns), the matrix (row stride
// matrix_stride; step 1: one per channel), the means, the reciprocals of
// the factors' diagonals, and the reductions' scratch.
struct NlbGroupLayout {
  int candidates = 0;  // the most a window holds at this scale
  int members = 0;     // the most a group holds
  int member_stride = 0, dim = 0, samples = 0, matrix_stride = 0;
  int member_x = 0, member_y = 0, weight = 0, noisy = 0, second = 0, matrix = 0, mean = 0, inverse = 0, scratch = 0,
      words = 0;
  size_t bytes() const { return size_t(words) * 4; }
};
constexpr int kNlbScratchWords = 64;  // holds nlbayes_groups.cu's GroupScratch (a static_assert there)
constexpr int kNlbBlockThreads = 128;

NlbGroupLayout nlb_group_layout(const NlbParams& params, const NlbStep& step, bool second, int width, int height);

// One step of one scale on the device: what its blocks read.
struct NlbDeviceStep {
  NlbParams params;
  NlbStep step;
  int scale = 0, patch = 0;
  const NlbNoiseTable* noise = nullptr;  // device copy of the plan's table
  NlbDeviceRows noisy, basic;            // basic.data null in step 1
  NlbDeviceSums sums;
  int grid0 = 0, grid_rows = 0, grid_columns = 0;  // reference grid rows [grid0, grid0 + grid_rows)
  NlbGroupLayout layout;
};

// Every reference of the job's grid rows adds its group to job.sums
// (zeroed by the caller).
void launch_nlbayes_groups(const NlbDeviceStep& job, cudaStream_t stream);
// Allows the group kernels `bytes` of dynamic shared memory (above 48 KiB).
void allow_nlbayes_shared_memory(size_t bytes);

}  // namespace edgewise::cuda
