// The Fourier bilateral filter on the GPU: the CPU kernel's order (columns
// first, so halo rows cost only their terms and the column recursion;
// then rows, combined into D and E), in two kernels a pass of up to 8
// terms:
//   1. columns: a warp per (32 columns, term) runs the truncated recursion
//      down a chunk of rows (anticausal to memory, then causal) on the term
//      values it computes from the samples, and writes the column-blurred
//      cos and sin lanes transposed (x-major: staged per warp in shared
//      memory), so that
//   2. rows: a thread per (output row, term) walks the row along x with
//      consecutive rows in consecutive threads, anticausal then causal;
//      D and E are linear in the blurred lanes, so each half is combined as
//      it runs (a warp holds 4 rows x 8 terms, summed by shuffles) and no
//      lanes go back to memory;
//   3. the output formula in the transposed layout, transposed back.
// The recursions are chains of dependent steps: each walk issues the loads
// of 8 steps before their steps (walk()). Per channel; alpha's blur once
// per band as a pass of one term whose cos lane is 1. The per-pixel math
// (phases, sin in turns, recursion steps, output) is core's
// fourier_math.h, as on the CPU. The recursion's exact window lets both
// kernels run in chunks of rows and segments of columns started r + 1
// samples early, which gives the GPU threads enough. Device memory per
// band in flight: 37 floats per output pixel (32 lanes, 5 planes), held by
// the kernel per stream (not in the backend's budget, which has no hook
// for a kernel's own memory).
// H100, 24 MP RGB 8-bit, sigma-r 25 (N = 6): kernel 21.0-28.7 ms at
// sigma-s 4-64, 22.4 at 2 (direct taps); bench/RESULTS.md.
#include <algorithm>
#include <map>
#include <vector>

#include "color_lab.h"
#include "device_resources.h"
#include "fourier_cuda.h"
#include "fourier_design.h"
#include "fourier_math.h"

namespace edgewise::cuda {

namespace {

constexpr int kPassTerms = 8;                            // terms a pass: a warp of the row kernel is 4 rows x 8
constexpr int kColumnsPerBlock = 32;                     // column kernel: 32 columns x 8 terms
constexpr int kRowThreads = 128;                         // row kernel: 16 rows x 8 terms
constexpr int kRowsPerBlock = kRowThreads / kPassTerms;  // 16
constexpr int kStageRows = 8;                            // column kernel: rows a warp stages before writing
constexpr int kBatch = 8;                                // recursion steps whose loads are issued together
constexpr unsigned kAllLanes = 0xffffffffu;

// One pass's terms: k = first .. first + count - 1 (frequency k / T, the
// series' a_k and b_k). The alpha pass has frequency 0 and a = 1, b = 0.
struct PassTerms {
  int count;
  float frequency[kPassTerms];
  float cosine[kPassTerms];
  float sine[kPassTerms];
};

struct Taps {
  float tap[kDirectRadius + 1];
};

// One channel of the band: centred samples and alpha (or null), band row i
// at i * width; output row j is band row j + reach.
struct ChannelView {
  const float* samples;
  const float* alpha;
  int rows, width, reach, out_rows;
};

// A sample and its alpha (1 without), band row i, column x.
struct Sample {
  float u, a;
};

__device__ Sample load_sample(const ChannelView& in, int i, int x) {
  const size_t at = size_t(i) * size_t(in.width) + size_t(x);
  return {in.samples[at], in.alpha ? in.alpha[at] : 1.0f};
}

__device__ void term_pair(Sample sample, float frequency, float& c, float& s) {
  c = fourier_term(sample.u, frequency, 0.25f) * sample.a;
  s = fourier_term(sample.u, frequency, 0.0f) * sample.a;
}

__device__ void term_pair(const ChannelView& in, float frequency, int i, int x, float& c, float& s) {
  term_pair(load_sample(in, i, x), frequency, c, s);
}

// Indices from `from` to `to` inclusive, stepping by `dir` (+1 or -1). The
// recursions are chains of dependent steps, so the loads of kBatch steps
// are issued first and their steps follow with no branch between them, so
// that the compiler interleaves the batch's independent term evaluations;
// `after(first index, count)` ends each batch (the last may be short).
template <class Load, class Step, class After>
__device__ void walk(int from, int to, int dir, Load load, Step step, After after) {
  int count = (to - from) * dir + 1, i = from;
  for (; count >= kBatch; count -= kBatch, i += dir * kBatch) {
    decltype(load(0)) loaded[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) loaded[b] = load(i + dir * b);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) step(b, i + dir * b, loaded[b]);
    after(i, kBatch);
  }
  if (count <= 0) return;
#pragma unroll
  for (int b = 0; b < kBatch; ++b)  // b stays a constant: batch arrays stay in registers
    if (b < count) step(b, i + dir * b, load(i + dir * b));
  after(i, count);
}

// A warp's staging tile: its term's cos and sin lanes for kStageRows
// output rows of its 32 columns, written out transposed (x-major), so the
// row pass reads consecutive rows in consecutive threads without a
// transpose of its own.
struct StageTile {
  float lane[2][kStageRows][kColumnsPerBlock + 1];
};

// The staged rows j0 .. j0 + count - 1 of the warp's columns x0 .. x0 + 31
// into VT (lane planes of width x out_rows, lane 2k cos, 2k + 1 sin): a
// store covers 32 / kStageRows columns' kStageRows rows (32 B each).
__device__ void write_staged(const StageTile& tile, int k, int x0, int j0, int count, int width, int out_rows,
                             float* VT) {
  constexpr int kColumnsAStore = 32 / kStageRows;
  const int t = int(threadIdx.x), row = t % kStageRows, first = t / kStageRows;
  const size_t plane = size_t(width) * size_t(out_rows);
  for (int p = 0; p < 2; ++p)
    for (int column = first; column < kColumnsPerBlock; column += kColumnsAStore) {
      const int x = x0 + column;
      if (x < width && row < count)
        VT[size_t(2 * k + p) * plane + size_t(x) * size_t(out_rows) + size_t(j0 + row)] = tile.lane[p][row][column];
    }
}

// Column pass: VT (lane planes, x-major) for the output rows of chunk
// blockIdx.y. A warp is one term on 32 columns. The truncated recursion
// holds exactly the window's samples once r + 1 samples have passed, so a
// chunk starts r + 1 rows before its first (the samples before the start
// taken as copies of the start's, which the leaving samples then remove):
// the band's columns run in parallel chunks, as the whole band would (up to
// float rounding). The anticausal half goes to V (row-major) and back;
// the sums are staged per warp and written transposed.
__global__ void fourier_columns_kernel(FourierParams p, Taps taps, PassTerms terms, ChannelView in, int chunk,
                                       float* V, float* VT) {
  __shared__ StageTile stage[kPassTerms];
  const int k = int(threadIdx.y);
  if (k >= terms.count) return;  // whole warps: no shuffles or block barriers below
  const int x0 = int(blockIdx.x) * kColumnsPerBlock, x = x0 + int(threadIdx.x);
  const bool inside = x < in.width;
  const int column = inside ? x : in.width - 1;  // threads past the edge compute a copy, store nothing
  StageTile& tile = stage[k];
  const float frequency = terms.frequency[k];
  const size_t plane = size_t(in.out_rows) * size_t(in.width);
  float* Vc = V + size_t(2 * k) * plane + column;
  float* Vs = Vc + plane;
  const int rows = in.rows, reach = in.reach, r = p.radius;
  const int first = int(blockIdx.y) * chunk, end = min(in.out_rows, first + chunk);  // output rows
  int staged = 0, j0 = first;
  // Stages output row j's sums; writes the tile when full or at the chunk's end.
  auto stage_row = [&](int j, float c, float s) {
    tile.lane[0][staged][threadIdx.x] = c;
    tile.lane[1][staged][threadIdx.x] = s;
    if (++staged == kStageRows || j == end - 1) {
      __syncwarp();
      write_staged(tile, k, x0, j0, staged, in.width, in.out_rows, VT);
      __syncwarp();
      j0 += staged;
      staged = 0;
    }
  };
  if (!p.recursive) {
    // The window's term values in registers, rows j + reach - 8 .. j + reach
    // + 8 (clamped into the band; taps past r are 0), each computed once.
    constexpr int W = 2 * kDirectRadius + 1;
    float wc[W], ws[W];
    auto band_row = [&](int i) { return min(max(i, 0), rows - 1); };
#pragma unroll
    for (int n = 1; n < W; ++n) term_pair(in, frequency, band_row(first + reach - kDirectRadius - 1 + n), column, wc[n], ws[n]);
    for (int j = first; j < end; ++j) {
#pragma unroll
      for (int n = 0; n + 1 < W; ++n) {
        wc[n] = wc[n + 1];
        ws[n] = ws[n + 1];
      }
      term_pair(in, frequency, band_row(j + reach + kDirectRadius), column, wc[W - 1], ws[W - 1]);
      float sum_c = wc[kDirectRadius] * taps.tap[0], sum_s = ws[kDirectRadius] * taps.tap[0];
#pragma unroll
      for (int n = 1; n <= kDirectRadius; ++n) {
        sum_c += (wc[kDirectRadius - n] + wc[kDirectRadius + n]) * taps.tap[n];
        sum_s += (ws[kDirectRadius - n] + ws[kDirectRadius + n]) * taps.tap[n];
      }
      stage_row(j, sum_c, sum_s);
    }
    return;
  }
  const int low = first + reach, high = end - 1 + reach;  // band rows of the chunk
  FourierRecursion<float> rc, rs;
  struct Pair {
    Sample sample, leaving;
  };
  struct Staged {
    Pair pair;
    float anti_c, anti_s;
  };
  auto advance = [&](const Pair& q, float& c, float& s, float& yc, float& ys) {
    float lc, ls;
    term_pair(q.sample, frequency, c, s);
    term_pair(q.leaving, frequency, lc, ls);
    yc = rc.step(p, c, lc);
    ys = rs.step(p, s, ls);
  };
  auto warm_up = [&](int, int, const Pair& q) {
    float c, s, yc, ys;
    advance(q, c, s, yc, ys);
  };
  auto nothing = [](int, int) {};
  float c0, s0;
  // Anticausal, from r + 1 rows below the chunk up: to V.
  const int below = min(high + r + 1, rows - 1);
  term_pair(in, frequency, below, column, c0, s0);
  rc.start(p, c0);
  rs.start(p, s0);
  auto load_down = [&](int row) {
    return Pair{load_sample(in, row, column), load_sample(in, min(row + r + 1, below), column)};
  };
  walk(below, high + 1, -1, load_down, warm_up, nothing);
  walk(high, low, -1, load_down,
       [&](int, int row, const Pair& q) {
         float c, s, yc, ys;
         advance(q, c, s, yc, ys);
         if (inside) {
           Vc[size_t(row - reach) * size_t(in.width)] = yc - c * p.centre;
           Vs[size_t(row - reach) * size_t(in.width)] = ys - s * p.centre;
         }
       },
       nothing);
  // Causal, from r + 1 rows above the chunk down: with V's sums, staged
  // (kBatch rows a batch) and written transposed.
  static_assert(kStageRows == kBatch, "a batch fills the staging tile");
  const int above = max(low - r - 1, 0);
  term_pair(in, frequency, above, column, c0, s0);
  rc.start(p, c0);
  rs.start(p, s0);
  auto load_up = [&](int row) {
    return Pair{load_sample(in, row, column), load_sample(in, max(row - r - 1, above), column)};
  };
  walk(above, low - 1, 1, load_up, warm_up, nothing);
  auto load_staged = [&](int row) {
    // The anticausal sums this thread wrote (none past the edge).
    const size_t at = size_t(row - reach) * size_t(in.width);
    return Staged{load_up(row), inside ? Vc[at] : 0.0f, inside ? Vs[at] : 0.0f};
  };
  walk(low, high, 1, load_staged,
       [&](int b, int, const Staged& q) {
         float c, s, yc, ys;
         advance(q.pair, c, s, yc, ys);
         tile.lane[0][b][threadIdx.x] = q.anti_c + yc;
         tile.lane[1][b][threadIdx.x] = q.anti_s + ys;
       },
       [&](int row, int count) {
         __syncwarp();
         write_staged(tile, k, x0, row - reach, count, in.width, in.out_rows, VT);
         __syncwarp();
       });
}

// out[c][r] = in[r][c], `rows` x `cols`, one plane per blockIdx.z.
__global__ void transpose_kernel(const float* in, size_t in_stride, size_t in_plane, float* out, size_t out_stride,
                                 size_t out_plane, int rows, int cols) {
  __shared__ float tile[32][33];
  in += blockIdx.z * in_plane;
  out += blockIdx.z * out_plane;
  const int c0 = int(blockIdx.x) * 32, r0 = int(blockIdx.y) * 32;
  for (int dy = int(threadIdx.y); dy < 32; dy += int(blockDim.y)) {
    const int row = r0 + dy, col = c0 + int(threadIdx.x);
    if (row < rows && col < cols) tile[dy][threadIdx.x] = in[size_t(row) * in_stride + size_t(col)];
  }
  __syncthreads();
  for (int dy = int(threadIdx.y); dy < 32; dy += int(blockDim.y)) {
    const int col = c0 + dy, row = r0 + int(threadIdx.x);
    if (col < cols && row < rows) out[size_t(col) * out_stride + size_t(row)] = tile[threadIdx.x][dy];
  }
}

// Row pass in the transposed layout (x-major: lane plane [x][j]): blurs
// each term's lanes along x and adds the pass's D and E (or A) at (j, x),
// for the columns of segment blockIdx.y (started r + 1 columns early, as
// the column pass's chunks). D and E are linear in the blurred lanes, so
// the anticausal half is combined as it runs and only the causal half's
// share is left: no lanes go back to memory.
__global__ void __launch_bounds__(kRowThreads, 8) fourier_rows_kernel(FourierParams p, Taps taps, PassTerms terms, int width, int out_rows, int segment,
                                    const float* VT, const float* uT, float* DT, float* ET) {
  const int k = int(threadIdx.x) % kPassTerms;
  const int j = int(blockIdx.x) * kRowsPerBlock + int(threadIdx.x) / kPassTerms;
  const bool valid = k < terms.count && j < out_rows;
  const int term = valid ? k : 0, row = min(j, out_rows - 1);  // loads stay inside when not valid
  const size_t plane = size_t(width) * size_t(out_rows), stride = size_t(out_rows);
  const float* Vc = VT + size_t(2 * term) * plane + row;
  const float* Vs = Vc + plane;
  const float frequency = terms.frequency[term], a = terms.cosine[term], b = terms.sine[term];
  const int r = p.radius;
  const int first = int(blockIdx.y) * segment, last = min(width, first + segment) - 1;
  // Every thread of a warp runs the same loops (same segment): the shuffles see all 32.
  // The pixel's D and E shares of this pass's terms, summed over the warp's 8 terms.
  auto combine = [&](float u, float yc, float ys, float& d_sum, float& e_sum) {
    const float tc = fourier_term(u, frequency, 0.25f), ts = fourier_term(u, frequency, 0.0f);
    float dk = valid ? a * (tc * yc + ts * ys) : 0.0f, ek = valid ? b * (tc * ys - ts * yc) : 0.0f;
    for (int m = 1; m < kPassTerms; m <<= 1) {
      dk += __shfl_xor_sync(kAllLanes, dk, m);
      ek += __shfl_xor_sync(kAllLanes, ek, m);
    }
    d_sum = dk;
    e_sum = ek;
  };
  if (!p.recursive) {
    for (int x = first; x <= last; ++x) {
      float sum_c = Vc[size_t(x) * stride] * taps.tap[0], sum_s = Vs[size_t(x) * stride] * taps.tap[0];
      // Always kDirectRadius taps (those past r are 0): unrolled, the loads go out together.
#pragma unroll
      for (int n = 1; n <= kDirectRadius; ++n) {
        const size_t before = size_t(max(x - n, 0)) * stride, after = size_t(min(x + n, width - 1)) * stride;
        sum_c += (Vc[before] + Vc[after]) * taps.tap[n];
        sum_s += (Vs[before] + Vs[after]) * taps.tap[n];
      }
      float d, e;
      combine(uT[size_t(x) * stride + size_t(row)], sum_c, sum_s, d, e);
      if (k == 0 && j < out_rows) {
        DT[size_t(x) * stride + size_t(j)] += d;
        if (ET) ET[size_t(x) * stride + size_t(j)] += e;
      }
    }
    return;
  }
  FourierRecursion<float> rc, rs;
  struct Lanes {
    float vc, vs, lc, ls, u;
  };
  float d[kBatch], e[kBatch];  // a batch's D and E shares, added after it
  auto add_batch = [&](int x, int count, int dir) {
    if (k != 0 || j >= out_rows) return;
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (b >= count) break;
      const size_t at = size_t(x + dir * b) * stride + size_t(j);
      DT[at] += d[b];
      if (ET) ET[at] += e[b];
    }
  };
  auto nothing = [](int, int) {};
  // Anticausal, from r + 1 columns right of the segment.
  const int right = min(last + r + 1, width - 1);
  rc.start(p, Vc[size_t(right) * stride]);
  rs.start(p, Vs[size_t(right) * stride]);
  auto load_left = [&](int x) {
    const size_t at = size_t(x) * stride, leaving = size_t(min(x + r + 1, right)) * stride;
    return Lanes{Vc[at], Vs[at], Vc[leaving], Vs[leaving], uT[at + size_t(row)]};
  };
  auto anticausal = [&](const Lanes& q, float& yc, float& ys) {
    yc = rc.step(p, q.vc, q.lc) - q.vc * p.centre;
    ys = rs.step(p, q.vs, q.ls) - q.vs * p.centre;
  };
  walk(right, last + 1, -1, load_left,
       [&](int, int, const Lanes& q) {
         float yc, ys;
         anticausal(q, yc, ys);
       },
       nothing);
  walk(last, first, -1, load_left,
       [&](int b, int, const Lanes& q) {
         float yc, ys;
         anticausal(q, yc, ys);
         combine(q.u, yc, ys, d[b], e[b]);
       },
       [&](int x, int count) { add_batch(x, count, -1); });
  // Causal, from r + 1 columns left of it.
  const int left = max(first - r - 1, 0);
  rc.start(p, Vc[size_t(left) * stride]);
  rs.start(p, Vs[size_t(left) * stride]);
  auto load_right = [&](int x) {
    const size_t at = size_t(x) * stride, leaving = size_t(max(x - r - 1, left)) * stride;
    return Lanes{Vc[at], Vs[at], Vc[leaving], Vs[leaving], uT[at + size_t(row)]};
  };
  walk(left, first - 1, 1, load_right,
       [&](int, int, const Lanes& q) {
         rc.step(p, q.vc, q.lc);
         rs.step(p, q.vs, q.ls);
       },
       nothing);
  walk(first, last, 1, load_right,
       [&](int b, int, const Lanes& q) {
         combine(q.u, rc.step(p, q.vc, q.lc), rs.step(p, q.vs, q.ls), d[b], e[b]);
       },
       [&](int x, int count) { add_batch(x, count, 1); });
}

// Working units in place over the whole band: Lab, the unit, clamped and centred.
__global__ void fourier_prepare_kernel(FourierParams p, DeviceBand band) {
  const size_t count = size_t(band.rows) * size_t(band.width);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    float v[3];
    for (int c = 0; c < p.color_channels; ++c) v[c] = band.plane(c)[i];
    if (p.lab) rgb_to_lab(v[0], v[1], v[2], v[0], v[1], v[2]);
    for (int c = 0; c < p.color_channels; ++c) band.plane(c)[i] = fourier_centred(p.channel[c], v[c] * p.unit);
  }
}

// D = a_0 A (or a_0), E = 0, over the transposed output.
__global__ void fourier_start_kernel(float a0, const float* AT, float* DT, float* ET, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    DT[i] = AT ? a0 * AT[i] : a0;
    ET[i] = 0.0f;
  }
}

__global__ void fourier_output_kernel(FourierParams p, int c, const float* uT, const float* DT, const float* ET,
                                      const float* AT, float* outT, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    outT[i] = fourier_output(p, p.channel[c], uT[i], ET[i], DT[i], AT ? AT[i] : 1.0f) * p.inverse_unit;
}

__global__ void fourier_from_lab_kernel(DeviceOutput out) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out.width || y >= out.rows) return;
  const size_t at = size_t(y) * out.row_stride + size_t(x);
  float* L = out.plane(0) + at;
  float* a = out.plane(1) + at;
  float* b = out.plane(2) + at;
  lab_to_rgb(*L, *a, *b, *L, *a, *b);
}

// `planes` planes of rows x cols (row stride in_stride, in_plane apart)
// transposed into cols x rows (row stride out_stride, out_plane apart).
void transpose(const float* in, size_t in_stride, size_t in_plane, float* out, size_t out_stride, size_t out_plane,
               int rows, int cols, int planes, cudaStream_t stream) {
  const dim3 grid(unsigned(cols + 31) / 32, unsigned(rows + 31) / 32, unsigned(planes));
  transpose_kernel<<<grid, dim3(32, 8), 0, stream>>>(in, in_stride, in_plane, out, out_stride, out_plane, rows, cols);
  check(cudaGetLastError(), "launching the fourier transpose");
}

int grid_for(size_t count) { return int(std::min<size_t>((count + 255) / 256, 4096)); }

// A band's device scratch: lane planes (row-major, then transposed; the
// first also holds the row pass's anticausal lanes), and per-pixel planes
// of the transposed output rows.
struct Scratch {
  size_t pixels = 0;  // out_rows x width the planes hold
  DeviceMemory lanes, lanes_t, samples_t, denominator_t, numerator_t, alpha_t, output_t;
};

class FourierDeviceKernel : public DeviceBandKernel {
 public:
  explicit FourierDeviceKernel(const FourierPlan& plan) : plan_(plan) {
    for (size_t n = 0; n < plan.taps.size() && n <= size_t(kDirectRadius); ++n) taps_.tap[n] = plan.taps[n];
  }

  void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>&, float*,
           cudaStream_t stream) override {
    const FourierParams& p = plan_.params;
    const int width = output.width, out_rows = output.rows, colours = p.color_channels;
    const size_t pixels = size_t(width) * size_t(out_rows);
    Scratch& s = scratch(stream, pixels);
    fourier_prepare_kernel<<<grid_for(size_t(input.rows) * size_t(input.width)), 256, 0, stream>>>(p, input);
    check(cudaGetLastError(), "launching the fourier preparation");

    ChannelView view{nullptr, p.has_alpha ? input.plane(colours) : nullptr, input.rows, width, plan_.reach, out_rows};
    float* AT = nullptr;
    if (p.has_alpha) {
      AT = s.alpha_t.as<float>();
      check(cudaMemsetAsync(AT, 0, pixels * sizeof(float), stream), "clearing the blurred alpha");
      view.samples = input.plane(0);
      PassTerms alpha{};
      alpha.count = 1;
      alpha.cosine[0] = 1.0f;
      // Alpha's lane: the cos lane of frequency 0 is 1, times alpha.
      run_pass(view, alpha, s, nullptr, AT, nullptr, stream);
    }
    const int passes = (p.terms + kPassTerms - 1) / kPassTerms;
    for (int c = 0; c < colours; ++c) {
      view.samples = input.plane(c);
      transpose(input.plane(c) + size_t(plan_.reach) * size_t(input.width), size_t(input.width), 0,
                s.samples_t.as<float>(), size_t(out_rows), 0, out_rows, width, 1, stream);
      float* DT = s.denominator_t.as<float>();
      float* ET = s.numerator_t.as<float>();
      fourier_start_kernel<<<grid_for(pixels), 256, 0, stream>>>(plan_.cosine[plan_.coefficient(c, 0)], AT, DT, ET,
                                                                 pixels);
      check(cudaGetLastError(), "launching the fourier start");
      for (int pass = 0; pass < passes; ++pass) {
        PassTerms terms{};
        for (int t = 0; t < kPassTerms; ++t) {
          const int k = pass * kPassTerms + t + 1;
          if (k > p.terms) break;
          terms.count = t + 1;
          terms.frequency[t] = float(double(k) * double(p.channel[c].turns_per_unit));
          terms.cosine[t] = plan_.cosine[plan_.coefficient(c, k)];
          terms.sine[t] = plan_.sine[plan_.coefficient(c, k)];
        }
        run_pass(view, terms, s, s.samples_t.as<float>(), DT, ET, stream);
      }
      fourier_output_kernel<<<grid_for(pixels), 256, 0, stream>>>(p, c, s.samples_t.as<float>(), DT, ET, AT,
                                                                  s.output_t.as<float>(), pixels);
      check(cudaGetLastError(), "launching the fourier output");
      transpose(s.output_t.as<float>(), size_t(out_rows), 0, output.plane(c), output.row_stride, 0, width, out_rows, 1,
                stream);
    }
    if (p.lab) {
      const dim3 block(32, 8), grid((width + 31) / 32, (out_rows + 7) / 8);
      fourier_from_lab_kernel<<<grid, block, 0, stream>>>(output);
      check(cudaGetLastError(), "launching the Lab conversion");
    }
    if (p.has_alpha) launch_copy_plane(input, plan_.reach, output, colours, stream);
  }

 private:
  // Columns (written transposed), rows: the pass's terms added to D and E
  // (alpha's to A, with uT null: its lanes ignore the samples).
  void run_pass(const ChannelView& view, const PassTerms& terms, Scratch& s, const float* uT, float* DT, float* ET,
                cudaStream_t stream) {
    const FourierParams& p = plan_.params;
    const int width = view.width, out_rows = view.out_rows;
    float* V = s.lanes.as<float>();
    float* VT = s.lanes_t.as<float>();
    const int chunk = segment_length(), chunks = (out_rows + chunk - 1) / chunk;
    const int segments = (width + chunk - 1) / chunk;
    fourier_columns_kernel<<<dim3((width + kColumnsPerBlock - 1) / kColumnsPerBlock, chunks),
                             dim3(kColumnsPerBlock, kPassTerms), 0, stream>>>(p, taps_, terms, view, chunk, V, VT);
    check(cudaGetLastError(), "launching the fourier column pass");
    // The alpha pass reads no samples: any plane of the right size will do.
    const float* samples = uT ? uT : VT;
    fourier_rows_kernel<<<dim3((out_rows + kRowsPerBlock - 1) / kRowsPerBlock, segments), kRowThreads, 0, stream>>>(
        p, taps_, terms, width, out_rows, chunk, VT, samples, DT, ET);
    check(cudaGetLastError(), "launching the fourier row pass");
  }

  // Rows a column chunk, columns a row segment: each thread walks this many
  // samples plus the r + 1 of its start, so twice r + 1 keeps the warm-up
  // at half at most (three times made bands of 500 rows slower). Measured on
  // the H100, 24 MP RGB, N = 6: whole columns and rows per thread took
  // 86-90 ms (the row kernel had a few thousand threads a band); segments
  // of 256 took 26-34 ms at sigma-s 4-64 in the earlier, transposing design.
  int segment_length() const { return std::max(256, 2 * (plan_.params.radius + 1)); }

  // The stream's scratch (one band in flight per stream), grown to `pixels`.
  Scratch& scratch(cudaStream_t stream, size_t pixels) {
    Scratch& s = scratch_[stream];
    if (s.pixels >= pixels) return s;
    const size_t lanes = size_t(2 * kPassTerms) * pixels * sizeof(float), plane = pixels * sizeof(float);
    s.lanes = DeviceMemory(lanes);
    s.lanes_t = DeviceMemory(lanes);
    s.samples_t = DeviceMemory(plane);
    s.denominator_t = DeviceMemory(plane);
    s.numerator_t = DeviceMemory(plane);
    s.alpha_t = DeviceMemory(plane);
    s.output_t = DeviceMemory(plane);
    s.pixels = pixels;
    return s;
  }

  const FourierPlan& plan_;
  Taps taps_{};
  std::map<cudaStream_t, Scratch> scratch_;
};

}  // namespace

std::string fourier_unsupported(const Plan&) { return ""; }

std::unique_ptr<DeviceBandKernel> make_fourier_device_kernel(const Plan& plan) {
  return std::make_unique<FourierDeviceKernel>(static_cast<const FourierPlan&>(plan));
}

}  // namespace edgewise::cuda
