// The collaborative denoiser's groups on the GPU: one block of
// kNlbBlockThreads threads per reference patch, every array of the group in
// shared memory (nlb_group_layout), the per-group math of nlbayes_math.h.
// Per block, as cpu_fallback/nlbayes_groups.h per reference:
//   1. the squared distances of the window's candidates to the reference
//      (a thread per candidate, summed in the CPU's order: channel, row,
//      column), stored as their bits;
//   2. the K - 1 smallest (distance, raster index) keys: the (K-1)-th
//      smallest distance found bit by bit from the top by counting (the
//      CPU's selection), then the candidates below it and the first ones at
//      it in raster order, compacted in raster order by warp ballots; the
//      same members as nlb_candidate_key's order gives, ties included;
//   3. member weights (mean alpha), the members' samples gathered into
//      [sample][member] rows (an odd row stride: a warp reading a sample of
//      consecutive members, or consecutive samples of a member, hits
//      distinct banks);
//   4. the group's intensity and each channel's flat test (block sums in a
//      fixed tree: the same result on every run);
//   5. step 1 per channel, step 2 jointly: means and deviations (a thread
//      per sample), the covariance (a thread per matrix entry), the
//      Cholesky factor (one warp: a lane per row of each column, with the
//      CPU's functions, so every entry is rounded as on the CPU), the
//      solve (a thread per member, nlb_cholesky_solve on the member's
//      column) and the estimates;
//   6. aggregation: every member's samples times its weight added to the
//      step's sums in 32.32 fixed point by 64-bit integer atomics. Integer
//      sums do not depend on the order the blocks add in, so the output is
//      the same on every run and for every band height.
#include <algorithm>

#include "nlbayes_cuda.h"
#include "nlbayes_math.h"

namespace edgewise::cuda {

namespace {

constexpr int kWarps = kNlbBlockThreads / 32;

// A member's column of a [sample][member] array, indexed like a vector.
struct Column {
  float* base;
  int stride;
  __device__ float& operator[](int i) const { return base[size_t(i) * size_t(stride)]; }
};

// Sums of N values over the block, the same tree every time (butterfly
// within each warp, then the warps in order); every thread gets them.
// `scratch` holds kWarps * N floats; the trailing barrier lets the caller
// reuse it at once.
template <int N>
__device__ void block_sums(float (&value)[N], float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = 0; k < N; ++k) {
    float v = value[k];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0) scratch[warp * N + k] = v;
  }
  __syncthreads();
  for (int k = 0; k < N; ++k) {
    float total = scratch[k];
    for (int w = 1; w < kWarps; ++w) total += scratch[w * N + k];
    value[k] = total;
  }
  __syncthreads();
}

__device__ int block_count(int value, int* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  int total = 0;
  for (int w = 0; w < kWarps; ++w) total += scratch[w];
  __syncthreads();
  return total;
}

// The exclusive prefix of `flag` over the block's threads in order, and
// the total. `scratch` (2 x kWarps ints) alternates halves by `parity`, so
// one barrier serves: a half is written again only two calls later, after
// every thread passed the barrier between.
__device__ int block_prefix(bool flag, int* scratch, int parity, int& total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned ballot = __ballot_sync(0xffffffffu, flag);
  int* half = scratch + parity * kWarps;
  if (lane == 0) half[warp] = __popc(ballot);
  __syncthreads();
  int before = __popc(ballot & ((1u << lane) - 1u));
  total = 0;
  for (int w = 0; w < kWarps; ++w) {
    if (w < warp) before += half[w];
    total += half[w];
  }
  return before;
}

// One warp factors the matrix (nlb_cholesky's arithmetic, a lane per row).
__device__ void warp_cholesky(float* M, int dim, int stride, float noise_diagonal) {
  const int lane = threadIdx.x % 32;
  const float ridge = nlb_cholesky_ridge(M, dim, stride, noise_diagonal);
  __syncwarp();
  for (int j = 0; j < dim; ++j) {
    float* row_j = M + j * stride;
    if (lane == 0) nlb_cholesky_pivot(row_j, j, ridge);
    __syncwarp();
    const float inverse = 1.0f / row_j[j];
    for (int i = j + 1 + lane; i < dim; i += 32) nlb_cholesky_below(M + i * stride, row_j, j, inverse);
    __syncwarp();
  }
}

// The noise covariance of a channel times a member's solved column x
// (samples first..first + n), at sample t: as the CPU's noise_times.
__device__ float noise_times(const NlbNoiseChannel& noise, float scaled, int p, int t, const Column& x, int first) {
  float sum = 0.0f;
  for (int j = 0; j < p * p; ++j) sum += (scaled * nlb_autocovariance(noise, p, t, j)) * x[first + j];
  return sum;
}

// Shared scalars of a group (in the layout's scratch, after the reductions').
struct GroupState {
  float weight_sum;
};

// Entry e of a lower triangle in row order: (0,0), (1,0), (1,1), (2,0), ...
__device__ void triangle_entry(int e, int& i, int& j) {
  i = int((sqrtf(8.0f * float(e) + 1.0f) - 1.0f) * 0.5f);
  while (i * (i + 1) / 2 > e) --i;
  while ((i + 1) * (i + 2) / 2 <= e) ++i;
  j = e - i * (i + 1) / 2;
}

template <bool Second>
__global__ void __launch_bounds__(kNlbBlockThreads) nlbayes_group_kernel(NlbDeviceStep job) {
  extern __shared__ float shared[];
  const NlbGroupLayout& L = job.layout;
  const NlbParams& params = job.params;
  const NlbStep& step = job.step;
  const int tid = threadIdx.x;
  const int p = job.patch, n = p * p, channels = params.channels, samples = channels * n;
  const int dim = Second ? samples : n;
  const int width = job.noisy.width, height = job.noisy.height;
  const NlbDeviceRows& guide = Second ? job.basic : job.noisy;

  uint32_t* const bits = reinterpret_cast<uint32_t*>(shared + L.bits);
  int* const member_x = reinterpret_cast<int*>(shared + L.member_x);
  int* const member_y = reinterpret_cast<int*>(shared + L.member_y);
  float* const weight = shared + L.weight;
  float* const noisy = shared + L.noisy;    // [sample][member]: the noisy members, then their estimates
  float* const second = shared + L.second;  // step 1: deviations; step 2: the basic members, then solved columns
  float* const matrix = shared + L.matrix;
  float* const mean = shared + L.mean;
  float* const mean_basic = shared + L.mean_basic;
  float* const reduce = shared + L.scratch;  // kWarps * 8 floats
  int* const scan = reinterpret_cast<int*>(shared + L.scratch + kWarps * 8);
  GroupState* const state = reinterpret_cast<GroupState*>(shared + L.scratch + kWarps * 8 + 2 * kWarps);
  const int KS = L.member_stride;

  const int reference = blockIdx.x;
  const int gx = reference % job.grid_columns, gy = job.grid0 + reference / job.grid_columns;
  const int rx = nlb_grid_position(gx, width, p, step.step), ry = nlb_grid_position(gy, height, p, step.step);
  int x0, x1, y0, y1;
  nlb_search_range(rx, width, p, step.search_radius, x0, x1);
  nlb_search_range(ry, height, p, step.search_radius, y0, y1);
  const int nx = x1 - x0 + 1, ny = y1 - y0 + 1, candidates = nx * ny;
  const int reference_index = (ry - y0) * nx + (rx - x0);
  const int searched = Second ? channels : 1;

  // 1. Distances (the reference patch in `mean` first).
  for (int i = tid; i < searched * n; i += kNlbBlockThreads) {
    const int c = i / n, t = i % n;
    mean[i] = guide.row(c, ry + t / p)[rx + t % p];
  }
  __syncthreads();
  const float tau = step.tau * float(n * searched);
  int closer = 0;
  for (int i = tid; i < candidates; i += kNlbBlockThreads) {
    const int qx = x0 + i % nx, qy = y0 + i / nx;
    float distance = 0.0f;
    for (int c = 0; c < searched; ++c)
      for (int ty = 0; ty < p; ++ty) {
        const float* row = guide.row(c, qy + ty) + qx;
        const float* reference_row = mean + c * n + ty * p;
        for (int tx = 0; tx < p; ++tx) {
          const float e = reference_row[tx] - row[tx];
          distance = fmaf(e, e, distance);
        }
      }
    if (Second && distance < tau && i != reference_index) ++closer;
    bits[i] = i == reference_index ? 0xffffffffu : float_bits(distance);
  }
  int members = min(step.group, candidates);
  if (Second) members = nlb_group_size(step, 1 + block_count(closer, scan), candidates);
  else __syncthreads();  // bits complete
  const int others = members - 1;

  // 2. Selection: the limit by counting, bit by bit (block_count's barriers
  // order the passes).
  uint32_t limit = 0x7fffffffu;
  int below = others;
  if (others < candidates - 1) {
    uint32_t value = 0;
    for (int bit = 30; bit >= 0; --bit) {
      const uint32_t trial = value | ((1u << bit) - 1u);
      int count = 0;
      for (int i = tid; i < candidates; i += kNlbBlockThreads) count += bits[i] <= trial ? 1 : 0;
      if (block_count(count, scan) < others) value |= 1u << bit;
    }
    limit = value;
    int count = 0;
    if (value > 0)
      for (int i = tid; i < candidates; i += kNlbBlockThreads) count += bits[i] <= value - 1u ? 1 : 0;
    below = block_count(count, scan);
  }
  const int quota = others - below;  // candidates at the limit taken, first in raster order
  int equal_before = 0, taken_before = 0, parity = 0;
  for (int base = 0; base < candidates; base += kNlbBlockThreads) {
    const int i = base + tid;
    const bool valid = i < candidates;
    const uint32_t b = valid ? bits[i] : 0xffffffffu;
    int equal_total, taken_total;
    const bool equal = valid && b == limit;
    const int equal_rank = equal_before + block_prefix(equal, scan, parity, equal_total);
    parity ^= 1;
    const bool take = valid && (i == reference_index || b < limit || (equal && equal_rank < quota));
    const int slot = taken_before + block_prefix(take, scan, parity, taken_total);
    parity ^= 1;
    if (take && slot < L.members) {
      member_x[slot] = x0 + i % nx;
      member_y[slot] = y0 + i / nx;
    }
    equal_before += equal_total;
    taken_before += taken_total;
  }
  __syncthreads();

  // 3. Weights, their sum in member order (as the CPU), the samples.
  for (int m = tid; m < members; m += kNlbBlockThreads) {
    float w = 1.0f;
    if (params.has_alpha) {
      w = 0.0f;
      for (int ty = 0; ty < p; ++ty) {
        const float* alpha = job.noisy.row(channels, member_y[m] + ty) + member_x[m];
        for (int tx = 0; tx < p; ++tx) w += alpha[tx];
      }
      w /= float(n);
    }
    weight[m] = w;
  }
  for (int k = tid; k < members * samples; k += kNlbBlockThreads) {
    const int m = k / samples, s = k % samples, c = s / n, t = s % n;
    const int y = member_y[m] + t / p, x = member_x[m] + t % p;
    noisy[s * KS + m] = job.noisy.row(c, y)[x];
    if (Second) second[s * KS + m] = job.basic.row(c, y)[x];
  }
  __syncthreads();
  if (tid == 0) {
    float sum = 0.0f;
    for (int m = 0; m < members; ++m) sum += weight[m];
    state->weight_sum = sum;
  }
  __syncthreads();
  const float weight_sum = state->weight_sum;
  if (!(weight_sum > 0.0f)) return;  // the whole block: a uniform value
  const float inverse_weight = 1.0f / weight_sum;
  const float* const basic = Second ? second : noisy;

  // 4. Intensity and flat tests: sums over members and pixels per channel.
  float sums[7] = {0, 0, 0, 0, 0, 0, 0};  // noisy per channel, basic per channel, unused
  for (int k = tid; k < members * n; k += kNlbBlockThreads) {
    const int m = k % members, t = k / members;
    const float w = weight[m];
    for (int c = 0; c < channels; ++c) {
      sums[c] += w * noisy[(c * n + t) * KS + m];
      if (Second) sums[3 + c] += w * basic[(c * n + t) * KS + m];
    }
  }
  block_sums(sums, reduce);
  float channel_mean[3];
  for (int c = 0; c < channels; ++c) channel_mean[c] = sums[c] * inverse_weight / float(n);
  float squares[3] = {0, 0, 0};
  for (int k = tid; k < members * n; k += kNlbBlockThreads) {
    const int m = k % members, t = k / members;
    const float w = weight[m];
    for (int c = 0; c < channels; ++c) {
      const float d = noisy[(c * n + t) * KS + m] - channel_mean[c];
      squares[c] += w * d * d;
    }
  }
  block_sums(squares, reduce);
  const float luma = Second ? sums[3] : sums[0];
  const float intensity = nlb_intensity(params, luma * inverse_weight / float(n));
  float variance[3], flat_value[3];
  bool flat[3], all_flat = true;
  for (int c = 0; c < channels; ++c) {
    variance[c] = nlb_noise_variance(*job.noise, job.scale, c, intensity);
    flat[c] = nlb_is_flat(params, c, squares[c] * inverse_weight / float(n), variance[c]);
    flat_value[c] = Second ? sums[3 + c] * inverse_weight / float(n) : channel_mean[c];
    all_flat = all_flat && flat[c];
  }
  const float noise_scale = nlb_noise_scale(params, step);
  const float covariance_scale = nlb_covariance_scale(members) * inverse_weight;
  const int MS = L.matrix_stride;
  const bool white = job.noise->white;

  // 5. Estimates (in place in `noisy`).
  if (!Second && !all_flat && members >= n) {
    for (int c = 0; c < channels; ++c) {
      if (flat[c]) continue;
      for (int i = tid; i < n; i += kNlbBlockThreads) {
        const float* source = noisy + (c * n + i) * KS;
        float sum = 0.0f;
        for (int m = 0; m < members; ++m) sum += weight[m] * source[m];
        const float mu = sum * inverse_weight;
        for (int m = 0; m < members; ++m) second[i * KS + m] = source[m] - mu;
      }
      __syncthreads();
      for (int e = tid; e < n * (n + 1) / 2; e += kNlbBlockThreads) {
        int i, j;
        triangle_entry(e, i, j);
        float sum = 0.0f;
        for (int m = 0; m < members; ++m) sum += weight[m] * second[i * KS + m] * second[j * KS + m];
        matrix[i * MS + j] = matrix[j * MS + i] = sum * covariance_scale;
      }
      __syncthreads();
      const float scaled = noise_scale * variance[c];
      if (tid < 32) warp_cholesky(matrix, n, MS, scaled);
      __syncthreads();
      const NlbNoiseChannel& noise = job.noise->channel[job.scale][c];
      for (int m = tid; m < members; m += kNlbBlockThreads) {
        const Column x{second + m, KS};
        nlb_cholesky_solve(matrix, n, MS, x);
        const Column e{noisy + c * n * KS + m, KS};
        for (int t = 0; t < n; ++t) e[t] -= white ? scaled * x[t] : noise_times(noise, scaled, p, t, x, 0);
      }
      __syncthreads();
    }
  } else if (Second && !all_flat) {
    for (int i = tid; i < dim; i += kNlbBlockThreads) {
      const float* source = noisy + i * KS;
      float* deviation = second + i * KS;
      float sum = 0.0f, basic_sum = 0.0f;
      for (int m = 0; m < members; ++m) {
        sum += weight[m] * source[m];
        basic_sum += weight[m] * deviation[m];
      }
      mean[i] = sum * inverse_weight;
      const float mu = basic_sum * inverse_weight;
      mean_basic[i] = mu;
      for (int m = 0; m < members; ++m) deviation[m] -= mu;
    }
    __syncthreads();
    for (int e = tid; e < dim * (dim + 1) / 2; e += kNlbBlockThreads) {
      int i, j;
      triangle_entry(e, i, j);
      float sum = 0.0f;
      for (int m = 0; m < members; ++m) sum += weight[m] * second[i * KS + m] * second[j * KS + m];
      float value = sum * covariance_scale;
      // The noise covariance on the channels' diagonal blocks.
      const int ci = i / n, cj = j / n;
      if (ci == cj) {
        const NlbNoiseChannel& noise = job.noise->channel[job.scale][ci];
        value += noise_scale * variance[ci] * nlb_autocovariance(noise, p, i % n, j % n);
      }
      matrix[i * MS + j] = matrix[j * MS + i] = value;
    }
    __syncthreads();
    float noise_diagonal = 0.0f;
    for (int c = 0; c < channels; ++c) noise_diagonal += noise_scale * variance[c];
    if (tid < 32) warp_cholesky(matrix, dim, MS, noise_diagonal / float(channels));
    __syncthreads();
    for (int m = tid; m < members; m += kNlbBlockThreads) {
      const Column x{second + m, KS};
      for (int i = 0; i < dim; ++i) x[i] = noisy[i * KS + m] - mean[i];
      nlb_cholesky_solve(matrix, dim, MS, x);
      for (int c = 0; c < channels; ++c) {
        const NlbNoiseChannel& noise = job.noise->channel[job.scale][c];
        const float scaled = noise_scale * variance[c];
        const Column e{noisy + c * n * KS + m, KS};
        for (int t = 0; t < n; ++t)
          e[t] -= white ? scaled * x[c * n + t] : noise_times(noise, scaled, p, t, x, c * n);
      }
    }
    __syncthreads();
  }

  // 6. Aggregation (flat channels take their value here).
  const NlbDeviceSums& out = job.sums;
  for (int k = tid; k < members * n; k += kNlbBlockThreads) {
    const int m = k / n, t = k % n;
    const int y = member_y[m] + t / p;
    if (y < out.row0 || y >= out.row0 + out.rows) continue;
    const int x = member_x[m] + t % p;
    const float w = weight[m];
    for (int c = 0; c < channels; ++c) {
      const float value = flat[c] ? flat_value[c] : noisy[(c * n + t) * KS + m];
      atomicAdd(out.row(c, y) + x, (unsigned long long)__float2ll_rn((w * value) * kNlbFixedOne));
    }
    atomicAdd(out.row(channels, y) + x, (unsigned long long)__float2ll_rn(w * kNlbFixedOne));
  }
}

}  // namespace

NlbGroupLayout nlb_group_layout(const NlbParams& params, const NlbStep& step, bool second, int width, int height) {
  NlbGroupLayout L;
  const int p = nlb_patch_side(step.patch, width, height), n = p * p;
  const int side = 2 * step.search_radius + 1;
  L.candidates = std::min(side, width - p + 1) * std::min(side, height - p + 1);
  L.members = std::max(1, std::min(std::max(step.group, step.group_max), L.candidates));
  L.member_stride = L.members | 1;
  L.samples = params.channels * n;
  L.dim = second ? L.samples : n;
  L.matrix_stride = L.dim | 1;
  int at = 0;
  auto take = [&](int words) {
    const int start = at;
    at += (words + 3) / 4 * 4;  // 16-byte aligned pieces
    return start;
  };
  L.bits = take(L.candidates);
  L.member_x = take(L.members);
  L.member_y = take(L.members);
  L.weight = take(L.members);
  L.noisy = take(L.samples * L.member_stride);
  L.second = take(L.dim * L.member_stride);
  L.matrix = take(L.dim * L.matrix_stride);
  L.mean = take(L.samples);
  L.mean_basic = take(L.samples);
  L.scratch = take(kNlbScratchWords);
  L.words = at;
  return L;
}

void launch_nlbayes_groups(const NlbDeviceStep& job, cudaStream_t stream) {
  const unsigned blocks = unsigned(job.grid_rows) * unsigned(job.grid_columns);
  if (blocks == 0) return;
  if (job.basic.data)
    nlbayes_group_kernel<true><<<blocks, kNlbBlockThreads, job.layout.bytes(), stream>>>(job);
  else
    nlbayes_group_kernel<false><<<blocks, kNlbBlockThreads, job.layout.bytes(), stream>>>(job);
  check(cudaGetLastError(), "launching the nlbayes group kernel");
}

void allow_nlbayes_shared_memory(size_t bytes) {
  if (bytes <= 48 * 1024) return;
  check(cudaFuncSetAttribute(nlbayes_group_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
        "allowing the nlbayes group kernel its shared memory");
  check(cudaFuncSetAttribute(nlbayes_group_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
        "allowing the nlbayes group kernel its shared memory");
}

}  // namespace edgewise::cuda
