// The collaborative denoiser's groups on the GPU: one block of 128 threads
// (64 for step 2 at its default sizes: kernel_for) per reference patch,
// every array of the group in
// shared memory (nlb_group_layout), the per-group math of nlbayes_math.h.
// Per block, as cpu_fallback/nlbayes_groups.h per reference:
//   1. the squared distances of the window's candidates to the reference
//      (a thread per candidate, summed in the CPU's order: channel, row,
//      column), stored as their bits (load_reference, group_distances);
//   2. the K - 1 smallest (distance, raster index) keys: the (K-1)-th
//      smallest distance by a radix select (four 8-bit digits from the top,
//      a shared histogram each), then the candidates below it and the first
//      ones at it in raster order, compacted in raster order by warp
//      ballots; the same members as nlb_candidate_key's order gives, ties
//      included (select_group);
//   3. member weights (mean alpha), the members' samples gathered into
//      [sample][member] rows (an odd row stride: a warp reading a sample of
//      consecutive members, or consecutive samples of a member, hits
//      distinct banks) (gather_group, sum_weights);
//   4. the group's intensity and each channel's flat test (block sums in a
//      fixed tree: the same result on every run) (group_noise);
//   5. step 1 for all channels at once (their systems are independent),
//      step 2 jointly: means (a thread per sample) and deviations, the
//      covariance (a thread per matrix entry), the Cholesky factor (a warp
//      per matrix: a lane per row of each column, with the CPU's functions,
//      so every entry is rounded as on the CPU), the solve (a thread per
//      member and system: nlb_cholesky_solve_fixed with the column in
//      registers for the default patch sizes, nlb_cholesky_solve on the
//      column in shared memory otherwise) and the estimates (centre_group,
//      group_covariance, factor_covariance, solve_group);
//   6. aggregation: every member's samples times its weight added to the
//      step's sums in 32.32 fixed point by 64-bit integer atomics. Integer
//      sums do not depend on the order the blocks add in, so the output is
//      the same on every run and for every band height (aggregate_group).
// Each step is a __forceinline__ device function, so that the kernel, which
// calls them in order with the barriers between them, compiles to the one
// body's arithmetic in the same order (shared memory: GroupArrays).
// The kernel is compiled for the default patch sizes (step 1: 4 px; step 2:
// 3 px in colour, 5 px grey) with the patch side and the system's size
// known at compile time, and once for any size (P = 0).
#include <algorithm>

#include "nlbayes_cuda.h"
#include "nlbayes_math.h"

namespace edgewise::cuda {

namespace {

// A block's threads (T, a template parameter of every phase): 128, or 64
// for step 2 at its fixed sizes (kSecondThreads). Step 2's solves give a
// thread to each of 27-54 members, so in blocks of 128 two or three of the
// four warps waited at the barrier after them (stop 46's profile). Blocks of
// 64 made step 2 only 2.5 % faster, not the 15-30 % predicted: the SM's
// issue rate and its L1/shared pipe (about 60 % busy) stayed where they
// were (bench/RESULTS.md, stop 48). Step 1 in blocks of 192 (its 144
// solves in one pass) was 9 % slower; kMaxThreads keeps that measurable.
constexpr int kFirstThreads = kNlbBlockThreads;
constexpr int kSecondThreads = 64;
constexpr int kMaxThreads = 192;
// The floating-point block sums (group_noise's) follow the partition of
// kSumThreads threads whatever the block's size: a block of 64 threads sums
// for two of those "virtual" threads each, one of 192 leaves its last two
// warps out, and the warps' totals are added in the same order, so the
// rounding, and so the output, do not depend on T.
constexpr int kSumThreads = 128;
constexpr int kSumWarps = kSumThreads / 32;
template <int T>
constexpr int kVirtualThreads = T < kSumThreads ? kSumThreads / T : 1;  // a thread sums for
// Blocks an SM keeps: with 128 threads, 8 (64 registers a thread): the
// occupancy the latency of the selection's and the factors' barriers needs,
// and a cap that keeps the compiler from hoisting a whole unrolled solve's
// loads into registers. With 64 threads, 11 (80 registers; step 2's colour
// kernel spills 8 bytes): measured on an H100 at 24 MP, 582 ms against 589
// at 10 (96 registers), 597 at 8 and 604 at 13 (72 registers, 96 bytes
// spilled; 13 blocks is all the shared memory admits). (192: 5 blocks.)
// With the covariance in register tiles the colour kernel spills 28 bytes
// at 11 blocks and 4 at 10, and 11 is still faster: 548 ms against 555.
template <int T>
constexpr int kMinBlocks = T == 64 ? 11 : T == 128 ? 8 : 5;
constexpr int kBins = 256;  // the radix select's digit: 8 bits
template <int T>
constexpr int kBinsPerThread = (kBins + T - 1) / T;  // the select's scan: consecutive bins a thread
static_assert(kFirstThreads % 32 == 0 && kSecondThreads % 32 == 0 && kFirstThreads <= kMaxThreads &&
                  kSecondThreads <= kMaxThreads && kSumThreads % kSecondThreads == 0,
              "whole warps; a block of fewer than kSumThreads sums for whole virtual threads");

// The reductions' scratch at the layout's `scratch` (kNlbScratchWords):
// block_sums' partial sums (up to 8 values a warp), the scans of
// block_count, block_prefix (two halves) and block_select (two more words),
// and the weights' sum that every thread reads.
struct GroupScratch {
  float reduce[kSumWarps * 8];
  int scan[2 * (kMaxThreads / 32) + 2];
  float weight_total;
};
static_assert(sizeof(GroupScratch) <= kNlbScratchWords * 4, "the layout's scratch holds the reductions'");

// A group's arrays in the block's dynamic shared memory, where
// nlb_group_layout (the host's, in the kernel's parameter) puts them.
struct GroupArrays {
  uint32_t* bits;  // the selection's candidate distances, then its histogram, where `second` lies later
  int* histogram;
  int* member_x;
  int* member_y;
  float* weight;
  float* noisy;   // [sample][member]: the noisy members, then their estimates
  float* second;  // deviations (step 2: of the basic members), then solved columns
  float* matrix;  // step 1: one per channel
  float* mean;
  float* inverse;  // 1 / the factors' diagonals
  GroupScratch* scratch;
};

__device__ __forceinline__ GroupArrays group_arrays(float* shared, const NlbGroupLayout& L) {
  GroupArrays a;
  a.bits = reinterpret_cast<uint32_t*>(shared + L.second);
  a.histogram = reinterpret_cast<int*>(shared + L.second + L.candidates);
  a.member_x = reinterpret_cast<int*>(shared + L.member_x);
  a.member_y = reinterpret_cast<int*>(shared + L.member_y);
  a.weight = shared + L.weight;
  a.noisy = shared + L.noisy;
  a.second = shared + L.second;
  a.matrix = shared + L.matrix;
  a.mean = shared + L.mean;
  a.inverse = shared + L.inverse;
  a.scratch = reinterpret_cast<GroupScratch*>(shared + L.scratch);
  return a;
}

// A member's column of a [sample][member] array, indexed like a vector.
struct Column {
  float* base;
  int stride;
  __device__ float& operator[](int i) const { return base[i * stride]; }
};

// Division by a divisor known only at run time, without the integer
// division's long instruction sequence: a float estimate corrected to the
// exact quotient (k < 2^24).
struct Divisor {
  int d;
  float inverse;
  __device__ explicit Divisor(int divisor) : d(divisor), inverse(1.0f / float(divisor)) {}
  __device__ int quotient(int k) const {
    int q = __float2int_rz(float(k) * inverse);
    if (q * d > k) --q;
    if ((q + 1) * d <= k) ++q;
    return q;
  }
};

// Sums of N values over the kSumThreads virtual threads (value[v]: virtual
// thread threadIdx.x + v x T's), the same tree every time and for every T
// (butterfly within each virtual warp, then those warps in order); every
// thread gets them in value[0]. `scratch` holds kSumWarps * N floats; the
// trailing barrier lets the caller reuse it at once.
template <int T, int V, int N>
__device__ void block_sums(float (&value)[V][N], float* scratch) {
  static_assert(V == kVirtualThreads<T>, "value[v] is virtual thread threadIdx.x + v x T's");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  EW_UNROLL
  for (int v = 0; v < V; ++v) {
    const int virtual_warp = v * (T / 32) + warp;
    if (virtual_warp >= kSumWarps) break;  // (T > kSumThreads: a whole warp without a share)
    EW_UNROLL
    for (int k = 0; k < N; ++k) {
      float x = value[v][k];
      for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
      if (lane == 0) scratch[virtual_warp * N + k] = x;
    }
  }
  __syncthreads();
  EW_UNROLL
  for (int k = 0; k < N; ++k) {
    float total = scratch[k];
    for (int w = 1; w < kSumWarps; ++w) total += scratch[w * N + k];
    value[0][k] = total;
  }
  __syncthreads();
}

template <int T>
__device__ int block_count(int value, int* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  int total = 0;
  for (int w = 0; w < T / 32; ++w) total += scratch[w];
  __syncthreads();
  return total;
}

// The exclusive prefix of `flag` over the block's threads in order, and
// the total. `scratch` (2 x T / 32 ints) alternates halves by `parity`, so
// one barrier serves: a half is written again only two calls later, after
// every thread passed the barrier between.
template <int T>
__device__ int block_prefix(bool flag, int* scratch, int parity, int& total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned ballot = __ballot_sync(0xffffffffu, flag);
  int* half = scratch + parity * (T / 32);
  if (lane == 0) half[warp] = __popc(ballot);
  __syncthreads();
  int before = __popc(ballot & ((1u << lane) - 1u));
  total = 0;
  for (int w = 0; w < T / 32; ++w) {
    if (w < warp) before += half[w];
    total += half[w];
  }
  return before;
}

// The rank-th smallest (1-based) of bits[0..count) and, in `at_limit`, its
// rank among the values equal to it (so rank - at_limit values lie below
// it). Four passes of one 8-bit digit each, from the top: a histogram of
// the digit over the values that share the digits found so far, then the
// bin that holds the rank by a block scan. `histogram` holds kBins ints,
// `scan` T / 32 + 2 ints.
template <int T>
__device__ uint32_t block_select(const uint32_t* bits, int count, int rank, int* histogram, int* scan,
                                 int& at_limit) {
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  uint32_t prefix = 0, mask = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int b = tid; b < kBins; b += T) histogram[b] = 0;
    __syncthreads();
    for (int i = tid; i < count; i += T) {
      const uint32_t b = bits[i];
      if ((b & mask) == prefix) atomicAdd(histogram + ((b >> shift) & 0xffu), 1);
    }
    __syncthreads();
    // Each thread's bins, their running sum over the block in bin order.
    constexpr int B = kBinsPerThread<T>;
    int own[B], sum = 0;
    EW_UNROLL
    for (int k = 0; k < B; ++k) sum += own[k] = tid * B + k < kBins ? histogram[tid * B + k] : 0;
    int inclusive = sum;
    for (int offset = 1; offset < 32; offset *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, inclusive, offset);
      if (lane >= offset) inclusive += other;
    }
    if (lane == 31) scan[warp] = inclusive;
    __syncthreads();
    int before = inclusive - sum;
    for (int w = 0; w < warp; ++w) before += scan[w];
    if (before < rank && rank <= before + sum) {
      int digit = tid * B, within = rank - before;
      EW_UNROLL
      for (int k = 0; k + 1 < B; ++k) {
        if (within <= own[k]) break;
        within -= own[k];
        ++digit;
      }
      scan[T / 32] = digit;
      scan[T / 32 + 1] = within;
    }
    __syncthreads();
    prefix |= uint32_t(scan[T / 32]) << shift;
    mask |= 0xffu << shift;
    rank = scan[T / 32 + 1];
    __syncthreads();  // scan is written again in the next pass
  }
  at_limit = rank;
  return prefix;
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

// The noise covariance of a channel times x (samples first..first + p^2 of
// a solved column), at sample t: as the CPU's noise_times.
template <class X>
__device__ float noise_times(const NlbNoiseChannel& noise, float scaled, int p, int t, const X& x, int first) {
  float sum = 0.0f;
  for (int j = 0; j < p * p; ++j) sum += (scaled * nlb_autocovariance(noise, p, t, j)) * x[first + j];
  return sum;
}
template <int P, class X>
__device__ float noise_times_fixed(const NlbNoiseChannel& noise, float scaled, int t, const X& x, int first) {
  float sum = 0.0f;
  EW_UNROLL
  for (int j = 0; j < P * P; ++j) sum += (scaled * nlb_autocovariance(noise, P, t, j)) * x[first + j];
  return sum;
}

// A value per channel, read with a run-time channel by selects (an array
// indexed at run time would live in local memory).
struct PerChannel {
  float v[3];
  __device__ float operator()(int c) const { return c == 0 ? v[0] : c == 1 ? v[1] : v[2]; }
};

// Entry e of a lower triangle in row order: (0,0), (1,0), (1,1), (2,0), ...
__device__ void triangle_entry(int e, int& i, int& j) {
  i = int((sqrtf(8.0f * float(e) + 1.0f) - 1.0f) * 0.5f);
  while (i * (i + 1) / 2 > e) --i;
  while ((i + 1) * (i + 2) / 2 <= e) ++i;
  j = e - i * (i + 1) / 2;
}

// The member's solve and estimate for one system: the samples
// [first, first + D) of its column in `x_shared` (the right-hand side on
// entry), the estimates in `e` (the noisy samples on entry) lose the noise
// covariance times the solution. Fixed size (P > 0: D = C x P^2): the
// column in registers.
template <int P, int C>
__device__ void solve_member(const float* L, int stride, const float* inverse, Column x_shared, Column e, int first,
                             int p, int dim, const NlbNoiseTable* table, int scale, int channel0, PerChannel scaled,
                             bool white) {
  if constexpr (P > 0) {
    constexpr int n = P * P, D = C * n;
    float x[D];
    EW_UNROLL
    for (int i = 0; i < D; ++i) x[i] = x_shared[first + i];
    nlb_cholesky_solve_fixed<D>(L, stride, inverse, x);
    if (white) {
      EW_UNROLL
      for (int i = 0; i < D; ++i) e[first + i] -= scaled(i / n) * x[i];
    } else {
      EW_UNROLL
      for (int c = 0; c < C; ++c) {
        const NlbNoiseChannel& noise = table->channel[scale][channel0 + c];
#pragma unroll 1
        for (int t = 0; t < n; ++t) e[first + c * n + t] -= noise_times_fixed<P>(noise, scaled(c), t, x, c * n);
      }
    }
  } else {
    const Column x{&x_shared[first], x_shared.stride};
    nlb_cholesky_solve(L, dim, stride, x);
    const int n = p * p;
    for (int c = 0; c < dim / n; ++c) {
      const NlbNoiseChannel& noise = table->channel[scale][channel0 + c];
      for (int t = 0; t < n; ++t)
        e[first + c * n + t] -= white ? scaled(c) * x[c * n + t] : noise_times(noise, scaled(c), p, t, x, c * n);
    }
  }
}

// What every phase of a block's group indexes by: the patch, the samples
// ([channel][pixel]) and the systems solved (step 1: one per channel, of n
// samples; step 2: one of all samples).
struct GroupShape {
  int p, n;
  int channels, samples;
  int member_stride;  // the [sample][member] arrays' row stride
  int systems, dim;
};

// P > 0 and C fixed at compile time make p, n and step 2's channels
// constants, which the unrolled loops and the fixed-size solve need.
template <bool Second, int P, int C>
__device__ __forceinline__ GroupShape group_shape(const NlbDeviceStep& job) {
  GroupShape shape;
  shape.p = P > 0 ? P : job.patch;
  shape.n = shape.p * shape.p;
  shape.channels = Second && P > 0 ? C : job.params.channels;
  shape.samples = shape.channels * shape.n;
  shape.member_stride = job.layout.member_stride;
  shape.systems = Second ? 1 : shape.channels;
  shape.dim = Second ? shape.samples : shape.n;
  return shape;
}

// The block's reference patch (of the job's grid) and its search window,
// as the CPU's: the candidates are the window's patch corners in raster
// order.
struct SearchWindow {
  int rx, ry;  // the reference's corner
  int x0, y0, nx, candidates;
  int reference_index;  // the reference among the candidates
  Divisor by_nx;        // a candidate's window row
};

__device__ __forceinline__ SearchWindow search_window(const NlbDeviceStep& job, int p) {
  const NlbStep& step = job.step;
  const int width = job.noisy.width, height = job.noisy.height;
  const int reference = blockIdx.x;
  const int gx = reference % job.grid_columns, gy = job.grid0 + reference / job.grid_columns;
  const int rx = nlb_grid_position(gx, width, p, step.step), ry = nlb_grid_position(gy, height, p, step.step);
  int x0, x1, y0, y1;
  nlb_search_range(rx, width, p, step.search_radius, x0, x1);
  nlb_search_range(ry, height, p, step.search_radius, y0, y1);
  const int nx = x1 - x0 + 1, ny = y1 - y0 + 1;
  return {rx, ry, x0, y0, nx, nx * ny, (ry - y0) * nx + (rx - x0), Divisor(nx)};
}

// 1. Distances: the reference patch (step 2: the basic estimate's, every
// channel; step 1: the noisy first channel's) into `mean`, which every
// candidate's distance reads.
template <int T, bool Second>
__device__ __forceinline__ void load_reference(const NlbDeviceStep& job, const GroupShape& shape,
                                               const SearchWindow& window, const GroupArrays& arrays) {
  const int tid = threadIdx.x, p = shape.p, n = shape.n;
  const int searched = Second ? shape.channels : 1;
  const NlbDeviceRows& guide = Second ? job.basic : job.noisy;
  for (int i = tid; i < searched * n; i += T) {
    const int c = i / n, t = i % n;
    arrays.mean[i] = guide.row(c, window.ry + t / p)[window.rx + t % p];
  }
}

// Every candidate's distance to the reference into `bits`, summed in the
// CPU's order (channel, row, column), the reference's all ones (above every
// distance: select_group takes it by its index); returns how many of this
// thread's candidates lie closer than tau (step 2 sizes its group by them).
template <int T, bool Second, int P>
__device__ __forceinline__ int group_distances(const NlbDeviceStep& job, const GroupShape& shape,
                                               const SearchWindow& window, const GroupArrays& arrays) {
  const int tid = threadIdx.x, p = shape.p, n = shape.n;
  const int searched = Second ? shape.channels : 1;
  const NlbDeviceRows& guide = Second ? job.basic : job.noisy;
  const int x0 = window.x0, y0 = window.y0, nx = window.nx, reference_index = window.reference_index;
  const float tau = job.step.tau * float(n * searched);
  int closer = 0;
  for (int i = tid; i < window.candidates; i += T) {
    const int row = window.by_nx.quotient(i);
    const int qx = x0 + i - row * nx, qy = y0 + row;
    float distance = 0.0f;
    for (int c = 0; c < searched; ++c) {
      EW_UNROLL
      for (int ty = 0; ty < (P > 0 ? P : kNlbMaxPatch); ++ty) {
        if (P == 0 && ty >= p) break;
        const float* guide_row = guide.row(c, qy + ty) + qx;
        const float* reference_row = arrays.mean + c * n + ty * p;
        EW_UNROLL
        for (int tx = 0; tx < (P > 0 ? P : kNlbMaxPatch); ++tx) {
          if (P == 0 && tx >= p) break;
          const float e = reference_row[tx] - guide_row[tx];
          distance = fmaf(e, e, distance);
        }
      }
    }
    if (Second && distance < tau && i != reference_index) ++closer;
    arrays.bits[i] = i == reference_index ? 0xffffffffu : float_bits(distance);
  }
  return closer;
}

// 2. Selection: the limit (the others-th smallest distance, the
// reference's all-ones bits above every distance) and how many at it join;
// the members' corners in raster order.
template <int T>
__device__ __forceinline__ void select_group(const NlbDeviceStep& job, const SearchWindow& window, int members,
                                             const GroupArrays& arrays) {
  const int tid = threadIdx.x, candidates = window.candidates, reference_index = window.reference_index;
  const int others = members - 1;
  uint32_t limit = 0x7fffffffu;
  int quota = 0;  // candidates at the limit taken, first in raster order
  if (others == 0)
    limit = 0;  // the reference alone
  else if (others < candidates - 1)
    limit = block_select<T>(arrays.bits, candidates, others, arrays.histogram, arrays.scratch->scan, quota);
  int equal_before = 0, taken_before = 0, parity = 0;
  for (int base = 0; base < candidates; base += T) {
    const int i = base + tid;
    const bool valid = i < candidates;
    const uint32_t b = valid ? arrays.bits[i] : 0xffffffffu;
    int equal_total, taken_total;
    const bool equal = valid && b == limit;
    const int equal_rank = equal_before + block_prefix<T>(equal, arrays.scratch->scan, parity, equal_total);
    parity ^= 1;
    const bool take = valid && (i == reference_index || b < limit || (equal && equal_rank < quota));
    const int slot = taken_before + block_prefix<T>(take, arrays.scratch->scan, parity, taken_total);
    parity ^= 1;
    if (take && slot < job.layout.members) {
      const int row = window.by_nx.quotient(i);
      arrays.member_x[slot] = window.x0 + i - row * window.nx;
      arrays.member_y[slot] = window.y0 + row;
    }
    equal_before += equal_total;
    taken_before += taken_total;
  }
}

// 3. Weights (mean alpha), the samples: a warp per sample row, a lane per
// member.
template <int T, bool Second>
__device__ __forceinline__ void gather_group(const NlbDeviceStep& job, const GroupShape& shape, int members,
                                             const GroupArrays& arrays) {
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int p = shape.p, n = shape.n, KS = shape.member_stride;
  for (int m = tid; m < members; m += T) {
    float w = 1.0f;
    if (job.params.has_alpha) {
      w = 0.0f;
      for (int ty = 0; ty < p; ++ty) {
        const float* alpha = job.noisy.row(shape.channels, arrays.member_y[m] + ty) + arrays.member_x[m];
        for (int tx = 0; tx < p; ++tx) w += alpha[tx];
      }
      w /= float(n);
    }
    arrays.weight[m] = w;
  }
  for (int s = warp; s < shape.samples; s += T / 32) {
    const int c = s / n, t = s % n, ty = t / p, tx = t % p;
    for (int m = lane; m < members; m += 32) {
      const int y = arrays.member_y[m] + ty, x = arrays.member_x[m] + tx;
      arrays.noisy[s * KS + m] = job.noisy.row(c, y)[x];
      if (Second) arrays.second[s * KS + m] = job.basic.row(c, y)[x];
    }
  }
}

// The weights' sum in member order (as the CPU), by one thread.
__device__ __forceinline__ void sum_weights(int members, const GroupArrays& arrays) {
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int m = 0; m < members; ++m) sum += arrays.weight[m];
    arrays.scratch->weight_total = sum;
  }
}

// What the group's noise decides for the phases after it.
struct GroupNoise {
  PerChannel scaled;     // each channel's noise variance times the step's scale
  float flat_value[3];   // a flat channel's value for all its samples
  int flat;              // a bit per channel
  bool white, estimate;  // estimate: some channel is not flat (step 1: and the group can hold a covariance)
};

// Calls f(v, t, m) for each (pixel t, member m) term that this thread's
// virtual thread v sums (kSumThreads' partition, whatever T is), in the
// order of k = t x members + m: group_noise's two sums walk the same terms.
template <int T, typename F>
__device__ __forceinline__ void for_each_summed_term(int members, int n, const Divisor& by_members, F&& f) {
  EW_UNROLL
  for (int v = 0; v < kVirtualThreads<T>; ++v)
    for (int k = threadIdx.x + v * T; k < members * n && threadIdx.x + v * T < kSumThreads; k += kSumThreads) {
      const int t = by_members.quotient(k);
      f(v, t, k - t * members);
    }
}

// 4. Intensity and flat tests: sums over members and pixels per channel.
// (Each thread's terms in the order of k = t x members + m: the sums'
// rounding is the earlier kernel's, which the tests' tolerances were
// measured on.)
template <int T, bool Second>
__device__ __forceinline__ GroupNoise group_noise(const NlbDeviceStep& job, const GroupShape& shape, int members,
                                                  float inverse_weight, const GroupArrays& arrays) {
  const NlbParams& params = job.params;
  const int n = shape.n, channels = shape.channels, KS = shape.member_stride;
  const float* const basic = Second ? arrays.second : arrays.noisy;
  const Divisor by_members(members);
  constexpr int V = kVirtualThreads<T>;  // (block_sums)
  float sums[V][6] = {};                 // noisy per channel, basic per channel
  for_each_summed_term<T>(members, n, by_members, [&](int v, int t, int m) {
    const float w = arrays.weight[m];
    EW_UNROLL
    for (int c = 0; c < 3; ++c)
      if (c < channels) {
        sums[v][c] += w * arrays.noisy[(c * n + t) * KS + m];
        if (Second) sums[v][3 + c] += w * basic[(c * n + t) * KS + m];
      }
  });
  block_sums<T>(sums, arrays.scratch->reduce);
  float channel_mean[3];
  EW_UNROLL
  for (int c = 0; c < 3; ++c) channel_mean[c] = sums[0][c] * inverse_weight / float(n);
  float squares[V][3] = {};
  for_each_summed_term<T>(members, n, by_members, [&](int v, int t, int m) {
    const float w = arrays.weight[m];
    EW_UNROLL
    for (int c = 0; c < 3; ++c)
      if (c < channels) {
        const float d = arrays.noisy[(c * n + t) * KS + m] - channel_mean[c];
        squares[v][c] += w * d * d;
      }
  });
  block_sums<T>(squares, arrays.scratch->reduce);
  const float luma = Second ? sums[0][3] : sums[0][0];
  const float intensity = nlb_intensity(params, luma * inverse_weight / float(n));
  const float noise_scale = nlb_noise_scale(params, job.step);
  GroupNoise noise;
  noise.scaled = PerChannel{{0.0f, 0.0f, 0.0f}};
  noise.flat = 0;
  EW_UNROLL
  for (int c = 0; c < 3; ++c) {
    if (c >= channels) continue;
    const float variance = nlb_noise_variance(*job.noise, job.scale, c, intensity);
    noise.scaled.v[c] = noise_scale * variance;
    if (nlb_is_flat(params, c, squares[0][c] * inverse_weight / float(n), variance)) noise.flat |= 1 << c;
    noise.flat_value[c] = Second ? sums[0][3 + c] * inverse_weight / float(n) : channel_mean[c];
  }
  const bool all_flat = noise.flat == (1 << channels) - 1;
  noise.white = job.noise->white;
  noise.estimate = Second ? !all_flat : !all_flat && members >= n;
  return noise;
}

// 5. Estimates (in place in `noisy`), in four phases. Means, a thread per
// sample, summed in member order (step 2: of the noisy and of the basic
// members); the deviations into `second` (step 2: in place there). (A warp
// per sample with a butterfly sum rounds the means otherwise, and a group
// of equal clipped samples then keeps deviations of a rounding that a
// nearly singular covariance amplifies past the reference tests' bound.)
template <int T, bool Second>
__device__ __forceinline__ void centre_group(const GroupShape& shape, int members, int flat, float inverse_weight,
                                             const GroupArrays& arrays) {
  const int tid = threadIdx.x, n = shape.n, KS = shape.member_stride;
  for (int s = tid; s < shape.samples; s += T) {
    if (!Second && (flat >> (s / n) & 1)) continue;
    float sum = 0.0f, basic_sum = 0.0f;
    for (int m = 0; m < members; ++m) {
      sum += arrays.weight[m] * arrays.noisy[s * KS + m];
      if (Second) basic_sum += arrays.weight[m] * arrays.second[s * KS + m];
    }
    const float mu = (Second ? basic_sum : sum) * inverse_weight;
    if (Second) arrays.mean[s] = sum * inverse_weight;
    for (int m = 0; m < members; ++m)
      arrays.second[s * KS + m] = (Second ? arrays.second : arrays.noisy)[s * KS + m] - mu;
  }
}

// Entry (i, j), i >= j, of a system's covariance from its weighted sum
// over the members: scaled, plus (step 2) the noise covariance on the
// channels' diagonal blocks, written to both halves of the matrix.
template <bool Second>
__device__ __forceinline__ void store_covariance(const NlbDeviceStep& job, const GroupShape& shape,
                                                 const GroupNoise& noise, float covariance_scale, float* M, int i,
                                                 int j, float sum) {
  const int n = shape.n, MS = job.layout.matrix_stride;
  float value = sum * covariance_scale;
  if (Second) {
    const int ci = i / n, cj = j / n;
    if (ci == cj)
      value += noise.scaled(ci) * nlb_autocovariance(job.noise->channel[job.scale][ci], shape.p, i % n, j % n);
  }
  M[i * MS + j] = M[j * MS + i] = value;
}

// The covariance tile's side at a fixed patch side P: P itself (step 2: 3
// in colour, 5 grey), 2 for step 1's 4 (a 4 x 4 tile's 16 sums spilled
// step 1's kernel at its 64 registers).
template <int P>
constexpr int kCovarianceTile = P == 4 ? 2 : P;

// The covariances: step 1 a lower triangle per channel, step 2 one (with
// the noise covariance on the channels' diagonal blocks). Each entry (i, j),
// i >= j, is the sum over the members in order of (weight x deviation i) x
// deviation j, one fused multiply-add a member, as the CPU sums it. At the
// fixed sizes (P > 0) a thread takes an S x S tile of the lower triangle
// (S = kCovarianceTile<P>, the dimension is a multiple of it): per member it
// reads S deviations of the tile's rows and S of its columns from shared
// memory for S^2 entries, where a thread per entry read three values for
// each (the kernels are bound by the shared-memory pipe and the
// instructions issued: bench/RESULTS.md, stops 48 and 49: 5 % less time).
// Each entry's sum is the same sequence of operations either way, so the
// bits do not change.
template <int T, bool Second, int P>
__device__ __forceinline__ void group_covariance(const NlbDeviceStep& job, const GroupShape& shape, int members,
                                                 const GroupNoise& noise, float covariance_scale,
                                                 const GroupArrays& arrays) {
  const int tid = threadIdx.x, n = shape.n, KS = shape.member_stride, MS = job.layout.matrix_stride;
  const int dim = shape.dim;
  if constexpr (P > 0) {
    constexpr int S = kCovarianceTile<P>;
    const int tile_rows = dim / S, tiles = tile_rows * (tile_rows + 1) / 2;
    for (int task = tid; task < shape.systems * tiles; task += T) {
      const int system = Second ? 0 : task / tiles, t = task - system * tiles;
      if (!Second && (noise.flat >> system & 1)) continue;
      int I, J;  // the tile's row and column of tiles, I >= J
      triangle_entry(t, I, J);
      const float* rows = arrays.second + (system * n + I * S) * KS;
      const float* columns = arrays.second + (system * n + J * S) * KS;
      float sum[S][S];
      EW_UNROLL
      for (int a = 0; a < S; ++a) {
        EW_UNROLL
        for (int b = 0; b < S; ++b) sum[a][b] = 0.0f;
      }
      for (int m = 0; m < members; ++m) {
        const float w = arrays.weight[m];
        float weighted[S], column[S];
        EW_UNROLL
        for (int a = 0; a < S; ++a) weighted[a] = w * rows[a * KS + m];
        EW_UNROLL
        for (int b = 0; b < S; ++b) column[b] = columns[b * KS + m];
        EW_UNROLL
        for (int a = 0; a < S; ++a) {
          EW_UNROLL
          for (int b = 0; b < S; ++b) sum[a][b] = fmaf(weighted[a], column[b], sum[a][b]);
        }
      }
      float* M = arrays.matrix + system * dim * MS;
      EW_UNROLL
      for (int a = 0; a < S; ++a) {
        EW_UNROLL
        for (int b = 0; b < S; ++b) {
          const int i = I * S + a, j = J * S + b;
          if (j <= i) store_covariance<Second>(job, shape, noise, covariance_scale, M, i, j, sum[a][b]);
        }
      }
    }
  } else {
    const int entries = dim * (dim + 1) / 2;
    for (int task = tid; task < shape.systems * entries; task += T) {
      const int system = Second ? 0 : task / entries, e = task - system * entries;
      if (!Second && (noise.flat >> system & 1)) continue;
      int i, j;
      triangle_entry(e, i, j);
      const float* di = arrays.second + (system * n + i) * KS;
      const float* dj = arrays.second + (system * n + j) * KS;
      float sum = 0.0f;
      for (int m = 0; m < members; ++m) sum += arrays.weight[m] * di[m] * dj[m];
      store_covariance<Second>(job, shape, noise, covariance_scale, arrays.matrix + system * dim * MS, i, j, sum);
    }
  }
}

// The Cholesky factors, a warp per matrix, and their diagonals' reciprocals.
template <int T, bool Second>
__device__ __forceinline__ void factor_covariance(const NlbDeviceStep& job, const GroupShape& shape,
                                                  const GroupNoise& noise, const GroupArrays& arrays) {
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int n = shape.n, channels = shape.channels, dim = shape.dim, MS = job.layout.matrix_stride;
  if (Second) {
    float noise_diagonal = 0.0f;
    for (int c = 0; c < channels; ++c) noise_diagonal += noise.scaled(c);
    if (warp == 0) {
      warp_cholesky(arrays.matrix, dim, MS, noise_diagonal / float(channels));
      for (int i = lane; i < dim; i += 32) arrays.inverse[i] = nlb_inverse_diagonal(arrays.matrix, MS, i);
    }
  } else {
    for (int c = warp; c < channels; c += T / 32) {  // a warp per channel
      if (noise.flat >> c & 1) continue;
      warp_cholesky(arrays.matrix + c * n * MS, n, MS, noise.scaled(c));
      for (int i = lane; i < n; i += 32)
        arrays.inverse[c * n + i] = nlb_inverse_diagonal(arrays.matrix + c * n * MS, MS, i);
    }
  }
}

// The solves, a thread per member and system: step 2 the noisy deviations
// (into `second`), step 1 the deviations in place; the estimates in `noisy`.
template <int T, bool Second, int P, int C>
__device__ __forceinline__ void solve_group(const NlbDeviceStep& job, const GroupShape& shape, int members,
                                            const GroupNoise& noise, const GroupArrays& arrays) {
  const int tid = threadIdx.x, p = shape.p, n = shape.n, dim = shape.dim;
  const int KS = shape.member_stride, MS = job.layout.matrix_stride;
  for (int task = tid; task < shape.systems * members; task += T) {
    const int system = Second ? 0 : task / members, m = task - system * members;
    if (!Second && (noise.flat >> system & 1)) continue;
    const Column x{arrays.second + m, KS}, e{arrays.noisy + m, KS};
    if (Second)
      for (int i = 0; i < dim; ++i) x[i] = e[i] - arrays.mean[i];
    const float own = noise.scaled(system);
    solve_member<P, Second ? C : 1>(arrays.matrix + system * dim * MS, MS, arrays.inverse + system * n, x, e,
                                    system * n, p, dim, job.noise, job.scale, system,
                                    Second ? noise.scaled : PerChannel{{own, own, own}}, noise.white);
  }
}

// 6. Aggregation (flat channels take their value here), a thread per
// member pixel, consecutive threads along a member's rows.
template <int T, int P>
__device__ __forceinline__ void aggregate_group(const NlbDeviceStep& job, const GroupShape& shape, int members,
                                                const GroupNoise& noise, const GroupArrays& arrays) {
  const int tid = threadIdx.x, p = shape.p, n = shape.n, channels = shape.channels, KS = shape.member_stride;
  const NlbDeviceSums& out = job.sums;
  const Divisor by_n(n);
  for (int k = tid; k < members * n; k += T) {
    const int m = P > 0 ? k / n : by_n.quotient(k), t = k - m * n;
    const int y = arrays.member_y[m] + t / p;
    if (y < out.row0 || y >= out.row0 + out.rows) continue;
    const int x = arrays.member_x[m] + t % p;
    const float w = arrays.weight[m];
    EW_UNROLL
    for (int c = 0; c < 3; ++c)
      if (c < channels) {
        const float value = (noise.flat >> c & 1) ? noise.flat_value[c] : arrays.noisy[(c * n + t) * KS + m];
        atomicAdd(out.row(c, y) + x, (unsigned long long)__float2ll_rn((w * value) * kNlbFixedOne));
      }
    atomicAdd(out.row(channels, y) + x, (unsigned long long)__float2ll_rn(w * kNlbFixedOne));
  }
}

// P: the patch side the kernel is compiled for (0: any, job.patch); C: the
// channels of step 2's joint system when P > 0 (step 1's systems are one
// channel each). The phases' barriers are here; those inside a phase
// (block_select, block_prefix, block_count, block_sums) serve its own
// reductions.
template <int T, bool Second, int P, int C>
__global__ void __launch_bounds__(T, kMinBlocks<T>) nlbayes_group_kernel(NlbDeviceStep job) {
  extern __shared__ float shared[];
  const GroupArrays arrays = group_arrays(shared, job.layout);
  const GroupShape shape = group_shape<Second, P, C>(job);
  const SearchWindow window = search_window(job, shape.p);

  load_reference<T, Second>(job, shape, window, arrays);
  __syncthreads();
  const int closer = group_distances<T, Second, P>(job, shape, window, arrays);
  int members = min(job.step.group, window.candidates);
  if (Second)
    members = nlb_group_size(job.step, 1 + block_count<T>(closer, arrays.scratch->scan), window.candidates);
  else
    __syncthreads();  // bits complete

  select_group<T>(job, window, members, arrays);
  __syncthreads();

  gather_group<T, Second>(job, shape, members, arrays);
  __syncthreads();
  sum_weights(members, arrays);
  __syncthreads();
  const float weight_sum = arrays.scratch->weight_total;
  if (!(weight_sum > 0.0f)) return;  // the whole block: a uniform value
  const float inverse_weight = 1.0f / weight_sum;

  const GroupNoise noise = group_noise<T, Second>(job, shape, members, inverse_weight, arrays);
  const float covariance_scale = nlb_covariance_scale(members) * inverse_weight;
  if (noise.estimate) {
    centre_group<T, Second>(shape, members, noise.flat, inverse_weight, arrays);
    __syncthreads();
    group_covariance<T, Second, P>(job, shape, members, noise, covariance_scale, arrays);
    __syncthreads();
    factor_covariance<T, Second>(job, shape, noise, arrays);
    __syncthreads();
    solve_group<T, Second, P, C>(job, shape, members, noise, arrays);
    __syncthreads();
  }

  aggregate_group<T, P>(job, shape, members, noise, arrays);
}

// The kernels compiled for fixed sizes: step 1's patch side, step 2's
// patch side and channels.
constexpr int kFirstFixed = 4;
struct SecondFixed {
  int patch, channels;
};
constexpr SecondFixed kSecondFixed[] = {{3, 3}, {5, 1}};

// A kernel and its block's threads: step 2's fixed sizes in blocks of
// kSecondThreads (one or two warps solve), the rest in blocks of 128 (step
// 1's three channels' solves: up to 144 tasks).
struct GroupKernel {
  void (*kernel)(NlbDeviceStep);
  int threads;
};

GroupKernel kernel_for(bool second, int patch, int channels) {
  constexpr int F = kFirstThreads, S = kSecondThreads;
  if (!second)
    return patch == kFirstFixed ? GroupKernel{nlbayes_group_kernel<F, false, kFirstFixed, 1>, F}
                                : GroupKernel{nlbayes_group_kernel<F, false, 0, 0>, F};
  if (patch == kSecondFixed[0].patch && channels == kSecondFixed[0].channels)
    return {nlbayes_group_kernel<S, true, kSecondFixed[0].patch, kSecondFixed[0].channels>, S};
  if (patch == kSecondFixed[1].patch && channels == kSecondFixed[1].channels)
    return {nlbayes_group_kernel<S, true, kSecondFixed[1].patch, kSecondFixed[1].channels>, S};
  return {nlbayes_group_kernel<F, true, 0, 0>, F};
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
  L.member_x = take(L.members);
  L.member_y = take(L.members);
  L.weight = take(L.members);
  L.noisy = take(L.samples * L.member_stride);
  // The deviations, or before them the selection's distance bits and histogram.
  L.second = take(std::max(L.samples * L.member_stride, L.candidates + kBins));
  L.matrix = take((second ? 1 : params.channels) * L.dim * L.matrix_stride);
  L.mean = take(L.samples);
  L.inverse = take(L.samples);
  L.scratch = take(kNlbScratchWords);
  L.words = at;
  return L;
}

void launch_nlbayes_groups(const NlbDeviceStep& job, cudaStream_t stream) {
  const unsigned blocks = unsigned(job.grid_rows) * unsigned(job.grid_columns);
  if (blocks == 0) return;
  const GroupKernel k = kernel_for(job.basic.data != nullptr, job.patch, job.params.channels);
  k.kernel<<<blocks, k.threads, job.layout.bytes(), stream>>>(job);
  check(cudaGetLastError(), "launching the nlbayes group kernel");
}

void allow_nlbayes_shared_memory(size_t bytes) {
  if (bytes <= 48 * 1024) return;
  for (bool second : {false, true})
    for (int patch : {kFirstFixed, kSecondFixed[0].patch, kSecondFixed[1].patch, 0})
      for (int channels : {1, 3})
        check(cudaFuncSetAttribute(kernel_for(second, patch, channels).kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(bytes)),
              "allowing the nlbayes group kernel its shared memory");
}

}  // namespace edgewise::cuda
