// The Fourier bilateral filter on the GPU, in two kernels a pass of up to
// eight terms, with nothing but the column-blurred lanes between them:
//   1. columns: a thread per (column, colour channel, three terms, part of
//      the column) holds the lanes of its terms (cos and sin, the first
//      pass also alpha) and walks its part: first upwards, keeping the
//      anticausal recursion's state every kChunkRows rows (checkpoints),
//      then downwards, chunk by chunk: the chunk's anticausal half from its
//      checkpoint into shared memory, then the causal half, which runs on
//      from the chunk above, added to it and written (Y, row-major). Chunks
//      need no warm-up rows; parts (for parallelism) start r + 1 rows early.
//      The term values of a thread's terms come from one or two
//      fourier_term_pair evaluations (the hardware's sin and cos) and
//      rotations (fourier_rotate).
//   2. rows: a block per (output row, channel) holds the row's samples and
//      one term's lanes at a time in shared memory (the next term's loaded
//      asynchronously meanwhile), so Y is read once and the samples that
//      leave the truncated window are at hand. The recursion along the row
//      is cut into 13-pixel segments, a thread each: every thread runs its
//      segment from a zero state both ways, holding the outputs in
//      registers, the segments' end states are joined by a parallel scan
//      (fourier_carry: the recursion is linear), and every thread adds its
//      true start states' share to the held outputs (Re(c z^n S), weights
//      from the host) and combines them with the pixel's own term values
//      into D, E and A. The last pass writes the output (fourier_output).
// sigma-s <= 2 takes the window's taps in both kernels. From sigma-s 12 on
// (coarse_step > 1) neither runs: fourier_coarse.cu averages the term images
// over cells of s x s pixels, blurs the cells and interpolates back. The per-pixel math
// (phases, sin in turns, rotation, recursion steps, carries, output) is
// core's fourier_math.h, as on the CPU. Device memory per band in flight:
// Y (17 lanes a pixel and channel at most), the checkpoints (about 2.3
// floats a pixel and channel) and, over several passes, D, E and A; held
// per stream, not counted in the backend's budget (which has no hook for a
// kernel's own memory).
// H100, 24 MP RGB 8-bit, sigma-r 25 (N = 6): kernel 7.7 ms at sigma-s 2,
// 8.8 at 4 and 8; the coarse path 2.6-3.7 ms at 16-64 (bench/RESULTS.md,
// "Fourier bilateral (issue 14)", fourth design and lead 4 built).
#include <cuda_pipeline.h>

#include <algorithm>
#include <complex>
#include <map>
#include <vector>

#include "color_lab.h"
#include "device_resources.h"
#include "fourier_coarse.h"
#include "fourier_cuda.h"
#include "fourier_design.h"
#include "fourier_math.h"

namespace edgewise::cuda {

namespace {

constexpr int kPassTerms = 8;           // terms a pass: Y holds 2 x 8 + 1 lanes a channel
constexpr int kTermsPerThread = 3;      // column kernel: a thread's terms
constexpr int kColumnThreads = 64;      // column kernel: columns a block
constexpr int kChunkRows = 12;          // column kernel: rows between checkpoints (shared memory: 21.5 KB a block)
constexpr int kColumnBlocksPerSM = 10;  // column kernel: 20 warps an SM (at most 96 registers a thread)
// With alpha (seven lanes a thread) 96 registers spilled 140 bytes: 8 blocks, 128 registers.
constexpr int column_blocks_per_sm(bool alpha) { return alpha ? 8 : kColumnBlocksPerSM; }
constexpr int kRowThreads = 512;  // row kernel: segments a row, at most
constexpr int kMaxSegment = 13;   // row kernel: rows up to 512 x 13 pixels are cut into 13-pixel segments
constexpr int kBatch = 4;         // recursion steps whose loads are issued together
constexpr unsigned kAllLanes = 0xffffffffu;

// One pass's terms k = first .. first + count - 1 and their constants per
// colour channel. Y's lanes for a channel: [alpha], then cos and sin of
// each term.
struct PassTerms {
  int first, count;
  int alpha_lanes;  // 1 when lane 0 is alpha (the first pass, with alpha)
  int lanes;        // alpha_lanes + 2 count
  bool first_pass, last_pass;
  float base[3];                   // 1 / T: term 1's frequency, the rotations' step
  float frequency[3][kPassTerms];  // k / T
  float cosine[3][kPassTerms];     // a_k
  float sine[3][kPassTerms];       // b_k
  float a0[3];
};

struct Taps {
  float tap[kDirectRadius + 1];
};

// The prepared band: centred samples per colour plane, alpha (or null);
// output row j is band row j + reach.
struct BandView {
  const float* samples;
  size_t plane;
  const float* alpha;
  int rows, width, reach, out_rows;
  __device__ const float* channel(int c) const { return samples + size_t(c) * plane; }
};

struct Sample {
  float u, a;
};

__device__ Sample load_sample(const BandView& in, int c, int i, int x) {
  const size_t at = size_t(i) * size_t(in.width) + size_t(x);
  return {in.channel(c)[at], in.alpha ? in.alpha[at] : 1.0f};
}

// A thread's lanes of a sample: with an alpha plane (Alpha) alpha, then
// cos and sin of its Terms terms from the one at `frequency` on (the later
// ones by rotation through `base`, term 1's angle, which is the first
// term's when `from_term_1`), times alpha.
template <int Terms, bool Alpha>
__device__ __forceinline__ void sample_lanes(Sample s, float frequency, float base, bool from_term_1,
                                             float (&lane)[(Alpha ? 1 : 0) + 2 * Terms]) {
  constexpr int o = Alpha ? 1 : 0;
  if (Alpha) lane[0] = s.a;
  float c, sn;
  fourier_term_pair(s.u, frequency, c, sn);
  float base_c = c, base_s = sn;
  if (Terms > 1 && !from_term_1) fourier_term_pair(s.u, base, base_c, base_s);
#pragma unroll
  for (int t = 0; t < Terms; ++t) {
    lane[o + 2 * t] = Alpha ? c * s.a : c;
    lane[o + 2 * t + 1] = Alpha ? sn * s.a : sn;
    if (t + 1 < Terms) fourier_rotate(c, sn, base_c, base_s);
  }
}

// Indices from `from` to `to` inclusive, stepping by `dir` (+1 or -1). The
// recursions are chains of dependent steps, so the loads of kBatch steps
// are issued first and their steps follow with no branch between them.
template <class Load, class Step>
__device__ void walk(int from, int to, int dir, Load load, Step step) {
  int count = (to - from) * dir + 1, i = from;
  for (; count >= kBatch; count -= kBatch, i += dir * kBatch) {
    decltype(load(0)) loaded[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) loaded[b] = load(i + dir * b);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) step(i + dir * b, loaded[b]);
  }
  // The last few steps one by one, in a loop: the walks are unrolled
  // enough, and a kernel this long stalls on instruction fetches.
#pragma unroll 1
  for (; count > 0; --count, i += dir) step(i, load(i));
}

// Column pass, recursive: Y's lanes of this thread's terms for the output
// rows of its part (see the file's header). Alpha: the band has an alpha
// plane (lane 0 holds it on the first pass's first thread; every lane is
// weighted by it). A column is cut into `parts` of whole chunks, a thread
// each (blockIdx.z = part * term threads + term thread): a part starts its
// upward walk r + 1 rows below its last chunk (or at the band's end) and
// its downward walk r + 1 rows above its first chunk (or at the band's
// top); after r + 1 steps both hold exactly the window's samples (the
// truncated recursion), as the whole column would (up to rounding). More parts, more threads in flight: the kernel has
// too few otherwise (a thread per column and term group).
template <int Terms, bool Alpha>
__global__ void __launch_bounds__(kColumnThreads, column_blocks_per_sm(Alpha))
    fourier_columns_kernel(FourierParams p, PassTerms pass, BandView in, int stride, float* Y, float* checkpoints,
                           int chunks, int term_threads, int part_chunks) {
  constexpr int o = Alpha ? 1 : 0, L = o + 2 * Terms;
  __shared__ float anticausal[kChunkRows][L][kColumnThreads];
  const int x = int(blockIdx.x) * kColumnThreads + int(threadIdx.x), c = int(blockIdx.y);
  const int z = int(blockIdx.z) % term_threads, part = int(blockIdx.z) / term_threads;
  if (x >= in.width) return;  // each thread on its own: no barriers below
  const int column = x;
  const int first_term = z * Terms, count = min(Terms, pass.count - first_term);
  const bool alpha_lane = z == 0 && pass.alpha_lanes;
  const float frequency = pass.frequency[c][first_term], base = pass.base[c];
  const bool from_term_1 = pass.first + first_term == 1;
  const int rows = in.rows, r = p.radius, reach = in.reach, out_rows = in.out_rows, width = in.width;
  const int first_chunk = part * part_chunks, end_chunk = min(chunks, first_chunk + part_chunks);
  // Which lanes this thread keeps: alpha on the first thread of the first
  // pass, its terms'. Every lane is computed (a branch around each lane's
  // step cost more than the step where all are kept, as at N = 6); only
  // the kept ones are written. Y holds the alpha lane, then the terms'
  // lanes, so a thread's term lanes are consecutive planes.
  auto kept = [&](int l) { return Alpha && l == 0 ? alpha_lane : (l - o) / 2 < count; };
  const size_t plane = size_t(out_rows) * size_t(stride);
  float* const Y_alpha = Y + size_t(c) * pass.lanes * plane + size_t(x);
  float* const Y_terms = Y_alpha + size_t(pass.alpha_lanes + 2 * first_term) * plane;
  float* own_checkpoints = checkpoints +
                           (size_t(c) * size_t(term_threads) + size_t(z)) * size_t(chunks) * L * 4 * size_t(width) +
                           size_t(column);
  auto checkpoint = [&](int q, int l, int half) -> float& {
    return own_checkpoints[((size_t(q) * L + size_t(l)) * 4 + size_t(half)) * size_t(width)];
  };
  struct Pair {
    Sample entering, leaving;
  };
  auto lanes_of = [&](const Pair& s, float(&entering)[L], float(&leaving)[L]) {
    sample_lanes<Terms, Alpha>(s.entering, frequency, base, from_term_1, entering);
    sample_lanes<Terms, Alpha>(s.leaving, frequency, base, from_term_1, leaving);
  };
  // Both walks of a part start as the CPU's chunks do: as if the samples
  // beyond the start repeated it (a constant run, the clamp-to-edge start
  // at the band's ends), which r + 1 steps replace by the true window.
  auto start_at = [&](FourierRecursion<float>(&recursion)[L], int row) {
    float lane[L];
    sample_lanes<Terms, Alpha>(load_sample(in, c, row, column), frequency, base, from_term_1, lane);
#pragma unroll
    for (int l = 0; l < L; ++l) recursion[l].start(p, lane[l]);
  };
  FourierRecursion<float> anti[L], causal[L];
  // The last output row of chunk q is band row boundary(q) - 1; the
  // checkpoint is the anticausal state after stepping boundary(q).
  auto boundary = [&](int q) { return reach + min((q + 1) * kChunkRows, out_rows); };

  {  // Upwards: the checkpoints of this part's chunks.
    const int top = min(boundary(end_chunk - 1) + r + 1, rows - 1);
    start_at(anti, top);
    int q = end_chunk - 1;
    walk(
        top, boundary(first_chunk), -1,
        [&](int i) {
          return Pair{load_sample(in, c, i, column), load_sample(in, c, min(i + r + 1, top), column)};
        },
        [&](int i, const Pair& s) {
          float entering[L], leaving[L];
          lanes_of(s, entering, leaving);
#pragma unroll
          for (int l = 0; l < L; ++l) anti[l].step(p, entering[l], leaving[l]);
          if (q >= first_chunk && i == boundary(q)) {
#pragma unroll
            for (int l = 0; l < L; ++l)
              if (kept(l))
#pragma unroll
                for (int sec = 0; sec < 2; ++sec) {
                  checkpoint(q, l, 2 * sec) = anti[l].section[sec].re;
                  checkpoint(q, l, 2 * sec + 1) = anti[l].section[sec].im;
                }
            --q;
          }
        });
  }

  // Downwards: from r + 1 rows above the part (the band's top at most),
  // then chunk by chunk.
  const int part_top = reach + first_chunk * kChunkRows, low = max(part_top - r - 1, 0);
  start_at(causal, low);
  auto down_pair = [&](int i) {
    return Pair{load_sample(in, c, i, column), load_sample(in, c, max(i - r - 1, low), column)};
  };
  auto causal_step = [&](const Pair& s, float(&y)[L], float(&entering)[L]) {
    float leaving[L];
    lanes_of(s, entering, leaving);
#pragma unroll
    for (int l = 0; l < L; ++l) y[l] = causal[l].step(p, entering[l], leaving[l]);
  };
  if (part_top > low)
    walk(low, part_top - 1, 1, down_pair, [&](int, const Pair& s) {
      float y[L], entering[L];
      causal_step(s, y, entering);
    });
  for (int q = first_chunk; q < end_chunk; ++q) {
    const int start = reach + q * kChunkRows, end = boundary(q);
#pragma unroll
    for (int l = 0; l < L; ++l)
      if (kept(l))
#pragma unroll
        for (int sec = 0; sec < 2; ++sec) {
          anti[l].section[sec].re = checkpoint(q, l, 2 * sec);
          anti[l].section[sec].im = checkpoint(q, l, 2 * sec + 1);
        }
    walk(
        end - 1, start, -1,
        [&](int i) {
          return Pair{load_sample(in, c, i, column), load_sample(in, c, min(i + r + 1, rows - 1), column)};
        },
        [&](int i, const Pair& s) {
          float entering[L], leaving[L];
          lanes_of(s, entering, leaving);
#pragma unroll
          for (int l = 0; l < L; ++l)
            anticausal[i - start][l][threadIdx.x] = anti[l].step(p, entering[l], leaving[l]) - entering[l] * p.centre;
        });
    walk(start, end - 1, 1, down_pair, [&](int i, const Pair& s) {
      float y[L], entering[L];
      causal_step(s, y, entering);
      const size_t row_at = size_t(i - reach) * size_t(stride);
      if (Alpha && alpha_lane) Y_alpha[row_at] = y[0] + anticausal[i - start][0][threadIdx.x];
      float* lane_at = Y_terms + row_at;
#pragma unroll
      for (int l = o; l < L; ++l, lane_at += plane)
        if (kept(l)) *lane_at = y[l] + anticausal[i - start][l][threadIdx.x];
    });
  }
}

// Column pass, direct taps (sigma-s <= 2): a thread per (column, channel,
// term) with the window's lane values in registers, each computed once.
__global__ void __launch_bounds__(kColumnThreads)
    fourier_column_taps_kernel(PassTerms pass, Taps taps, BandView in, int stride, float* Y) {
  constexpr int L = 3, W = 2 * kDirectRadius + 1;
  const int x = int(blockIdx.x) * kColumnThreads + int(threadIdx.x), c = int(blockIdx.y), term = int(blockIdx.z);
  if (x >= in.width) return;
  const bool alpha_lane = term == 0 && pass.alpha_lanes;
  const float frequency = pass.frequency[c][term];
  const int rows = in.rows, reach = in.reach;
  float window[W][L];
  auto band_row = [&](int i) { return min(max(i, 0), rows - 1); };  // taps past r are 0
#pragma unroll
  for (int n = 1; n < W; ++n)
    sample_lanes<1, true>(load_sample(in, c, band_row(reach - kDirectRadius - 1 + n), x), frequency, frequency, true,
                          window[n]);
  const size_t plane = size_t(in.out_rows) * size_t(stride);
  for (int j = 0; j < in.out_rows; ++j) {
#pragma unroll
    for (int n = 0; n + 1 < W; ++n)
#pragma unroll
      for (int l = 0; l < L; ++l) window[n][l] = window[n + 1][l];
    sample_lanes<1, true>(load_sample(in, c, band_row(j + reach + kDirectRadius), x), frequency, frequency, true,
                          window[W - 1]);
    const size_t row_at = size_t(j) * size_t(stride) + size_t(x);
#pragma unroll
    for (int l = 0; l < L; ++l) {
      if (l == 0 && !alpha_lane) continue;
      float sum = window[kDirectRadius][l] * taps.tap[0];
#pragma unroll
      for (int n = 1; n <= kDirectRadius; ++n)
        sum += (window[kDirectRadius - n][l] + window[kDirectRadius + n][l]) * taps.tap[n];
      const int lane = l == 0 ? 0 : pass.alpha_lanes + 2 * term + (l - 1);
      Y[(size_t(c) * pass.lanes + size_t(lane)) * plane + row_at] = sum;
    }
  }
}

// The row kernel's cut of a row into segments: thread t < active holds
// pixels [t segment, (t + 1) segment); an odd segment keeps a warp's
// shared-memory reads on distinct banks. The shared rows are padded to
// active x segment with the row's last value, which continues the
// clamp-to-edge border, so every segment is whole: the carries need one
// power, and a segment's correction weights are the same for every thread.
// power: z_i^segment per section. Segments up to kMaxSegment long keep
// their outputs in registers and add their start state's share afterwards:
// causal[i] and anticausal[i] are c_i z_i^(n + 1) for the causal output n
// steps into the segment and c_i z_i^(segment - n) for the anticausal one.
struct RowWeights {
  float re[2], im[2];
};
struct RowLayout {
  int width, stride;  // pixels; floats between rows of Y (a multiple of 4)
  int padded;         // floats between the shared rows: active x segment, rounded up to 4
  int segment, active;
  int buffers;       // groups' lane buffers in shared memory: 2 loads the next group during this one
  bool shared_sums;  // D, E, A in shared memory (else in the partial sums' rows)
  float power_re[2], power_im[2];
  RowWeights causal[kMaxSegment], anticausal[kMaxSegment];

  int threads() const { return (active + 31) / 32 * 32; }  // the block: whole warps
};

// A group of the row kernel: one term's cos and sin lanes, or alpha alone.
// Its constants are read once (runtime indices into the pass's tables).
struct GroupConstants {
  float frequency, cosine, sine;
};

// The segment's scan (section sec of a lane, one direction) for the warp
// running it: the segments' own states in `states` become their true
// starts. Lanes of the warp take runs of segments in the order the
// direction visits them (at most kRunLength each: a row has at most
// kRowThreads segments), loaded first so that the carries' chain waits on
// no load; runs are joined by shuffles (fourier_carry: the recursion is
// linear). `outside`: the state before the first segment.
constexpr int kRunLength = kRowThreads / 32;
__device__ void scan_segments(const RowLayout& g, int dir, int sec, FourierSection<float> outside, float2* states) {
  const int lane = int(threadIdx.x) % 32, run = (g.active + 31) / 32;
  auto segment_of = [&](int position) { return dir == 0 ? position : g.active - 1 - position; };
  const float step_re = g.power_re[sec], step_im = g.power_im[sec];
  const int from = min(lane * run, g.active), count = min(from + run, g.active) - from;
  float2 own[kRunLength];
#pragma unroll
  for (int i = 0; i < kRunLength; ++i) own[i] = i < count ? states[segment_of(from + i)] : make_float2(0.0f, 0.0f);
  FourierSection<float> sum{0.0f, 0.0f}, power{1.0f, 0.0f};  // this lane's run: state = sum + power * start
#pragma unroll
  for (int i = 0; i < kRunLength; ++i)
    if (i < count) {
      sum = fourier_carry(FourierSection<float>{own[i].x, own[i].y}, sum, step_re, step_im);
      power = fourier_carry(FourierSection<float>{0.0f, 0.0f}, power, step_re, step_im);
    }
  for (int offset = 1; offset < 32; offset <<= 1) {
    const FourierSection<float> before_sum{__shfl_up_sync(kAllLanes, sum.re, offset),
                                           __shfl_up_sync(kAllLanes, sum.im, offset)};
    const FourierSection<float> before_power{__shfl_up_sync(kAllLanes, power.re, offset),
                                             __shfl_up_sync(kAllLanes, power.im, offset)};
    if (lane >= offset) {
      sum = fourier_carry(sum, before_sum, power.re, power.im);
      power = fourier_carry(FourierSection<float>{0.0f, 0.0f}, before_power, power.re, power.im);
    }
  }
  FourierSection<float> start_sum{__shfl_up_sync(kAllLanes, sum.re, 1), __shfl_up_sync(kAllLanes, sum.im, 1)};
  FourierSection<float> start_power{__shfl_up_sync(kAllLanes, power.re, 1), __shfl_up_sync(kAllLanes, power.im, 1)};
  if (lane == 0) {
    start_sum = {0.0f, 0.0f};
    start_power = {1.0f, 0.0f};
  }
  FourierSection<float> state = fourier_carry(start_sum, outside, start_power.re, start_power.im);
#pragma unroll
  for (int i = 0; i < kRunLength; ++i)
    if (i < count) {
      states[segment_of(from + i)] = make_float2(state.re, state.im);
      state = fourier_carry(FourierSection<float>{own[i].x, own[i].y}, state, step_re, step_im);
    }
}

// The pixel's D, E and A shares of a group's blurred lanes y (Lanes 1:
// alpha; 2: a term's cos and sin lanes).
template <int Lanes>
__device__ __forceinline__ void combine(const GroupConstants& k, float a0, float u, const float (&y)[2], float& d,
                                        float& e, float& a) {
  if (Lanes == 1) {
    d += a0 * y[0];
    a += y[0];
  } else {
    float cs, sn;
    fourier_term_pair(u, k.frequency, cs, sn);
    d += k.cosine * (cs * y[0] + sn * y[1]);
    e += k.sine * (cs * y[1] - sn * y[0]);
  }
}

// The group's lanes x (Lanes rows of the padded shared stride) blurred
// along the row over this thread's segment and combined into D, E, A:
// recursive (segments from a zero state, the scan of their end states,
// then each segment's start state added) or by the window's taps.
template <bool Recursive, int Lanes>
__device__ __forceinline__ void filter_group(const FourierParams& p, const Taps& taps, const RowLayout& g,
                                             const GroupConstants& k, float a0, const float* x, const float* u,
                                             float* D, float* E, float* A, float2* carries) {
  const int t = int(threadIdx.x), width = g.width, stride = g.padded, r = p.radius;
  const int first = t * g.segment, end = first + g.segment;  // end may pass width: the padding
  const bool active = t < g.active;
  auto add = [&](int n, const float(&y)[2]) {
    float a = 0.0f;
    combine<Lanes>(k, a0, u[n], y, D[n], E[n], a);
    if (Lanes == 1) A[n] += a;
  };
  if (!Recursive) {
    if (!active) return;
    for (int n = first; n < min(end, width); ++n) {
      float y[2] = {0.0f, 0.0f};
#pragma unroll
      for (int l = 0; l < Lanes; ++l) {
        const float* lane = x + l * stride;
        float sum = lane[n] * taps.tap[0];
#pragma unroll
        for (int m = 1; m <= kDirectRadius; ++m)
          sum += (lane[max(n - m, 0)] + lane[min(n + m, width - 1)]) * taps.tap[m];
        y[l] = sum;
      }
      add(n, y);
    }
    return;
  }
  auto chain = [&](int l, int dir, int sec) { return carries + ((l * 2 + dir) * 2 + sec) * g.active; };
  FourierRecursion<float> causal[Lanes], anti[Lanes];
  auto anticausal_at = [&](int n, int l) {
    const float v = x[l * stride + n];
    return anti[l].step(p, v, x[l * stride + min(n + r + 1, width - 1)]) - v * p.centre;
  };
  auto causal_at = [&](int n, int l) {
    return causal[l].step(p, x[l * stride + n], x[l * stride + max(n - r - 1, 0)]);
  };
  auto save_states = [&] {
#pragma unroll
    for (int l = 0; l < Lanes; ++l)
#pragma unroll
      for (int sec = 0; sec < 2; ++sec) {
        chain(l, 0, sec)[t] = make_float2(causal[l].section[sec].re, causal[l].section[sec].im);
        chain(l, 1, sec)[t] = make_float2(anti[l].section[sec].re, anti[l].section[sec].im);
      }
  };
  auto load_starts = [&] {
#pragma unroll
    for (int l = 0; l < Lanes; ++l)
#pragma unroll
      for (int sec = 0; sec < 2; ++sec) {
        const float2 before = chain(l, 0, sec)[t], after = chain(l, 1, sec)[t];
        causal[l].section[sec] = {before.x, before.y};
        anti[l].section[sec] = {after.x, after.y};
      }
  };
  auto scan = [&] {
    __syncthreads();
    // A warp a chain (lane, direction, section).
    for (int ch = t / 32; ch < Lanes * 4; ch += int(blockDim.x) / 32) {
      const int l = ch / 4, dir = (ch / 2) % 2, sec = ch % 2;
      const float edge = x[l * stride + (dir == 0 ? 0 : width - 1)];  // a constant run before the first segment
      scan_segments(g, dir, sec, FourierSection<float>{edge * p.steady_re[sec], edge * p.steady_im[sec]},
                    carries + ch * g.active);
    }
    __syncthreads();
  };
#pragma unroll
  for (int l = 0; l < Lanes; ++l) {
    causal[l].clear();
    anti[l].clear();
  }
  if (g.segment == kMaxSegment) {
    // 1. The segment's outputs from a zero state, held in registers (both
    // directions summed), and its own end states.
    float held[kMaxSegment][Lanes];
    if (active) {
#pragma unroll
      for (int i = kMaxSegment - 1; i >= 0; --i)
#pragma unroll
        for (int l = 0; l < Lanes; ++l) held[i][l] = anticausal_at(first + i, l);
#pragma unroll
      for (int i = 0; i < kMaxSegment; ++i)
#pragma unroll
        for (int l = 0; l < Lanes; ++l) held[i][l] += causal_at(first + i, l);
      save_states();
    }
    // 2. The true start states.
    scan();
    if (!active) return;
    // 3. The recursion is linear: a start state S adds Re(c z^n S) to the
    // output n steps on, so each pixel takes its share once, and its term
    // values are computed once.
    load_starts();
#pragma unroll
    for (int i = 0; i < kMaxSegment; ++i)
      if (first + i < width) {
        float y[2] = {0.0f, 0.0f};
#pragma unroll
        for (int l = 0; l < Lanes; ++l) {
          float sum = held[i][l];
#pragma unroll
          for (int sec = 0; sec < 2; ++sec) {
            const RowWeights &w = g.causal[i], &v = g.anticausal[i];
            sum += w.re[sec] * causal[l].section[sec].re - w.im[sec] * causal[l].section[sec].im;
            sum += v.re[sec] * anti[l].section[sec].re - v.im[sec] * anti[l].section[sec].im;
          }
          y[l] = sum;
        }
        add(first + i, y);
      }
    return;
  }
  // Long segments (rows over kRowThreads x kMaxSegment): the end states from
  // a zero state, the scan, then each segment again from its true start.
  if (active) {
    for (int n = first; n < end; ++n)
#pragma unroll
      for (int l = 0; l < Lanes; ++l) causal[l].step(p, x[l * stride + n], x[l * stride + max(n - r - 1, 0)]);
    for (int n = end - 1; n >= first; --n)
#pragma unroll
      for (int l = 0; l < Lanes; ++l) anti[l].step(p, x[l * stride + n], x[l * stride + min(n + r + 1, width - 1)]);
    save_states();
  }
  scan();
  if (!active) return;
  load_starts();
  for (int n = end - 1; n >= first; --n) {
    float y[2] = {0.0f, 0.0f};
#pragma unroll
    for (int l = 0; l < Lanes; ++l) y[l] = anticausal_at(n, l);
    if (n < width) add(n, y);
  }
  for (int n = first; n < end; ++n) {
    float y[2] = {0.0f, 0.0f};
#pragma unroll
    for (int l = 0; l < Lanes; ++l) y[l] = causal_at(n, l);
    if (n < width) add(n, y);
  }
}

// Copies `lanes` rows of Y (the group's lanes of output row j) into shared
// rows of the padded stride, asynchronously: the whole quads 16 bytes a
// copy, the rest up to the padding's end 4 bytes a copy, past the row's end
// its last value; every thread a share.
__device__ void load_group(const float* from, size_t plane, int lanes, const RowLayout& g, float* to) {
  const int quads = g.width / 4;
  for (int l = 0; l < lanes; ++l) {
    for (int i = int(threadIdx.x); i < quads; i += int(blockDim.x))
      __pipeline_memcpy_async(to + l * g.padded + 4 * i, from + size_t(l) * plane + 4 * size_t(i), 16);
    for (int i = 4 * quads + int(threadIdx.x); i < g.padded; i += int(blockDim.x))
      __pipeline_memcpy_async(to + l * g.padded + i, from + size_t(l) * plane + size_t(min(i, g.width - 1)), 4);
  }
  __pipeline_commit();
}

// Row pass: a block per (output row, channel). D, E and A start from the
// previous pass's partial sums (or the constant term) and take this pass's
// groups (alpha, then one term each), each group's lanes loaded while the
// one before is filtered; they end as the output (last pass) or partial
// sums.
template <bool Recursive>
__global__ void __launch_bounds__(kRowThreads, 1)
    fourier_rows_kernel(FourierParams p, Taps taps, PassTerms pass, RowLayout g, BandView in, const float* Y,
                        float* partial, DeviceOutput out) {
  extern __shared__ __align__(16) float shared[];
  const int j = int(blockIdx.x), c = int(blockIdx.y), width = g.width, stride = g.stride, t = int(threadIdx.x);
  const bool alpha = p.has_alpha;
  const size_t plane = size_t(in.out_rows) * size_t(stride);
  float* buffers = shared;  // one or two groups' lanes
  float* U = buffers + 2 * g.buffers * g.padded;
  float2* carries = reinterpret_cast<float2*>(U + stride);
  float* partial_row = partial ? partial + size_t(c) * 3 * plane + size_t(j) * size_t(stride) : nullptr;
  float *D, *E, *A;
  if (g.shared_sums) {
    D = reinterpret_cast<float*>(carries) + (Recursive ? 16 * g.active : 0);
    E = D + stride;
    A = E + stride;
  } else {
    D = partial_row;
    E = D + plane;
    A = E + plane;
  }
  const float* Y_row = Y + size_t(c) * size_t(pass.lanes) * plane + size_t(j) * size_t(stride);
  const int groups = pass.alpha_lanes + pass.count;
  auto group_lanes = [&](int group) { return group < pass.alpha_lanes ? 1 : 2; };
  auto group_lane0 = [&](int group) {
    return group < pass.alpha_lanes ? 0 : pass.alpha_lanes + 2 * (group - pass.alpha_lanes);
  };
  load_group(Y_row + size_t(group_lane0(0)) * plane, plane, group_lanes(0), g, buffers);

  const float* u_row = in.channel(c) + size_t(j + in.reach) * size_t(width);
  for (int x = t; x < width; x += int(blockDim.x)) {
    U[x] = u_row[x];
    const float d = pass.first_pass ? (alpha ? 0.0f : pass.a0[c]) : partial_row[x];
    const float e = pass.first_pass ? 0.0f : partial_row[plane + x];
    D[x] = d;
    E[x] = e;
    if (alpha) A[x] = pass.first_pass ? 0.0f : partial_row[2 * plane + x];
  }
  const float a0 = pass.a0[c];
  const bool prefetch = g.buffers == 2;
  for (int group = 0; group < groups; ++group) {
    const bool next = group + 1 < groups;
    auto load_next = [&] {
      load_group(Y_row + size_t(group_lane0(group + 1)) * plane, plane, group_lanes(group + 1), g,
                 buffers + (prefetch ? ((group + 1) % 2) * 2 * g.padded : 0));
    };
    if (next && prefetch) load_next();
    if (next && prefetch)
      __pipeline_wait_prior(1);
    else
      __pipeline_wait_prior(0);
    __syncthreads();
    const float* x = buffers + (prefetch ? (group % 2) * 2 * g.padded : 0);
    if (group < pass.alpha_lanes) {
      filter_group<Recursive, 1>(p, taps, g, GroupConstants{}, a0, x, U, D, E, A, carries);
    } else {
      const int term = group - pass.alpha_lanes;
      const GroupConstants k{pass.frequency[c][term], pass.cosine[c][term], pass.sine[c][term]};
      filter_group<Recursive, 2>(p, taps, g, k, a0, x, U, D, E, A, carries);
    }
    __syncthreads();  // the buffer is loaded again one or two groups on
    if (next && !prefetch) load_next();
  }
  for (int x = t; x < width; x += int(blockDim.x)) {
    const float a = alpha ? A[x] : 1.0f;
    if (pass.last_pass) {
      out.plane(c)[size_t(j) * out.row_stride + size_t(x)] =
          fourier_output(p, p.channel[c], U[x], E[x], D[x], a) * p.inverse_unit;
    } else if (g.shared_sums) {
      partial_row[x] = D[x];
      partial_row[plane + x] = E[x];
      if (alpha) partial_row[2 * plane + x] = a;
    }
  }
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

__global__ void fourier_from_lab_kernel(DeviceOutput out) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= out.width || y >= out.rows) return;
  const size_t at = size_t(y) * out.row_stride + size_t(x);
  float* L = out.plane(0) + at;
  float* a = out.plane(1) + at;
  float* b = out.plane(2) + at;
  lab_to_rgb(*L, *a, *b, *L, *a, *b);
}

int grid_for(size_t count) { return int(std::min<size_t>((count + 255) / 256, 4096)); }

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// The device's multiprocessors, once per process.
int multiprocessors() {
  static const int count = [] {
    int device = 0, sms = 1;
    if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms;
  }();
  return count;
}

// Shared memory a block may have (the opt-in maximum), once per process.
int shared_memory_limit() {
  static const int limit = [] {
    int device = 0, bytes = 48 << 10;
    if (cudaGetDevice(&device) == cudaSuccess)
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    return bytes;
  }();
  return limit;
}

// The row kernel's layout for a row of `width` and its shared memory, in
// floats: the lane buffers (two groups', or one where a row is too wide),
// the samples, the carries (8 floats a segment and lane), and D, E, A
// where they fit. Zero bytes: no layout fits (fourier_unsupported).
RowLayout row_layout(const FourierParams& p, int width, size_t& shared_bytes) {
  RowLayout g{};
  g.width = width;
  g.stride = (width + 3) / 4 * 4;
  // Rows up to kRowThreads x kMaxSegment pixels: segments of kMaxSegment,
  // as many threads as they need (the held path); wider rows: kRowThreads
  // longer segments, odd for the banks (the long path).
  g.segment = width <= kRowThreads * kMaxSegment ? kMaxSegment : ceil_div(width, kRowThreads) | 1;
  g.active = ceil_div(width, g.segment);
  g.padded = (g.active * g.segment + 3) / 4 * 4;
  for (int sec = 0; sec < 2 && p.recursive; ++sec) {
    const std::complex<double> z(p.pole_re[sec], p.pole_im[sec]), c(p.residue_re[sec], p.residue_im[sec]);
    const std::complex<double> full = std::pow(z, g.segment);
    g.power_re[sec] = float(full.real());
    g.power_im[sec] = float(full.imag());
    for (int i = 0; i < kMaxSegment && i < g.segment; ++i) {
      const std::complex<double> causal = c * std::pow(z, i + 1), anticausal = c * std::pow(z, g.segment - i);
      g.causal[i].re[sec] = float(causal.real());
      g.causal[i].im[sec] = float(causal.imag());
      g.anticausal[i].re[sec] = float(anticausal.real());
      g.anticausal[i].im[sec] = float(anticausal.imag());
    }
  }
  const size_t limit = size_t(shared_memory_limit()) / sizeof(float), stride = size_t(g.stride);
  const size_t carries = p.recursive ? 16 * size_t(g.active) : 0, sums = 3 * stride;
  auto floats = [&](int buffers, bool with_sums) {
    return 2 * size_t(buffers) * size_t(g.padded) + stride + carries + (with_sums ? sums : 0);
  };
  shared_bytes = 0;
  for (int buffers = 2; buffers >= 1 && !shared_bytes; --buffers)
    for (bool with_sums : {true, false})
      if (!shared_bytes && floats(buffers, with_sums) <= limit) {
        g.buffers = buffers;
        g.shared_sums = with_sums;
        shared_bytes = floats(buffers, with_sums) * sizeof(float);
      }
  return g;
}

// A band's device scratch: Y, the column pass's checkpoints, and the
// partial sums between passes (D, E, A per channel).
struct Scratch {
  size_t y = 0, checkpoints = 0, partial = 0;
  DeviceMemory y_memory, checkpoint_memory, partial_memory;
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
    fourier_prepare_kernel<<<grid_for(size_t(input.rows) * size_t(input.width)), 256, 0, stream>>>(p, input);
    check(cudaGetLastError(), "launching the fourier preparation");
    if (p.coarse_step > 1)
      launch_fourier_coarse(plan_, input, output, coarse_scratch_[stream], stream);
    else
      run_full_resolution(input, output, stream);
    if (p.lab) {
      const dim3 block(32, 8), grid(unsigned(ceil_div(width, 32)), unsigned(ceil_div(out_rows, 8)));
      fourier_from_lab_kernel<<<grid, block, 0, stream>>>(output);
      check(cudaGetLastError(), "launching the Lab conversion");
    }
    if (p.has_alpha) launch_copy_plane(input, plan_.reach, output, colours, stream);
  }

 private:
  // The full-resolution passes (the file's header), into `output`.
  void run_full_resolution(const DeviceBand& input, const DeviceOutput& output, cudaStream_t stream) {
    const FourierParams& p = plan_.params;
    const int width = output.width, out_rows = output.rows, colours = p.color_channels;
    const BandView view{input.plane(0),
                        input.plane_stride,
                        p.has_alpha ? input.plane(colours) : nullptr,
                        input.rows,
                        width,
                        plan_.reach,
                        out_rows};
    const int passes = ceil_div(p.terms, kPassTerms), chunks = ceil_div(out_rows, kChunkRows);
    const int column_threads = ceil_div(kPassTerms, kTermsPerThread);
    size_t shared_bytes = 0;
    const RowLayout layout = row_layout(p, width, shared_bytes);
    if (!shared_bytes)  // fourier_unsupported refuses such plans
      throw BackendError("a row of " + std::to_string(width) + " pixels does not fit the fourier row kernel");
    const size_t pixels = size_t(out_rows) * size_t(layout.stride);
    const bool partial_needed = passes > 1 || !layout.shared_sums;
    Scratch& s = scratch(stream, size_t(colours) * size_t(2 * kPassTerms + 1) * pixels,
                         p.recursive ? size_t(colours) * size_t(column_threads) * size_t(chunks) *
                                           size_t(2 * kTermsPerThread + 1) * 4 * size_t(width)
                                     : 0,
                         partial_needed ? size_t(colours) * 3 * pixels : 0);
    float* partial = partial_needed ? s.partial_memory.as<float>() : nullptr;
    auto row_kernel = p.recursive ? fourier_rows_kernel<true> : fourier_rows_kernel<false>;
    check(cudaFuncSetAttribute(row_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)),
          "sizing the fourier row kernel's shared memory");
    float* Y = s.y_memory.as<float>();
    for (int pass = 0; pass < passes; ++pass) {
      const PassTerms terms = pass_terms(pass, passes);
      float* checkpoints = s.checkpoint_memory.as<float>();
      if (!p.recursive) {
        const dim3 grid(unsigned(ceil_div(width, kColumnThreads)), unsigned(colours), unsigned(terms.count));
        fourier_column_taps_kernel<<<grid, kColumnThreads, 0, stream>>>(terms, taps_, view, layout.stride, Y);
      } else {
        // As many parts as the GPU holds at once (more would run in a second
        // wave), each at least four windows tall so that their r + 1 rows of
        // warm-up cost at most a quarter.
        const int term_threads = ceil_div(terms.count, kTermsPerThread);
        const int threads = ceil_div(width, kColumnThreads) * kColumnThreads * colours * term_threads;
        const int wanted =
            std::max(1, multiprocessors() * column_blocks_per_sm(p.has_alpha) * kColumnThreads / threads);
        const int part_chunks = std::max(ceil_div(chunks, wanted), ceil_div(4 * (p.radius + 1), kChunkRows));
        const int parts = ceil_div(chunks, part_chunks);
        const dim3 grid(unsigned(ceil_div(width, kColumnThreads)), unsigned(colours), unsigned(term_threads * parts));
        auto kernel = p.has_alpha ? fourier_columns_kernel<kTermsPerThread, true>
                                  : fourier_columns_kernel<kTermsPerThread, false>;
        kernel<<<grid, kColumnThreads, 0, stream>>>(p, terms, view, layout.stride, Y, checkpoints, chunks, term_threads,
                                                    part_chunks);
      }
      check(cudaGetLastError(), "launching the fourier column pass");
      const dim3 row_grid{unsigned(out_rows), unsigned(colours)};
      row_kernel<<<row_grid, layout.threads(), shared_bytes, stream>>>(p, taps_, terms, layout, view, Y, partial,
                                                                       output);
      check(cudaGetLastError(), "launching the fourier row pass");
    }
  }

  PassTerms pass_terms(int pass, int passes) const {
    const FourierParams& p = plan_.params;
    PassTerms terms{};
    terms.first = pass * kPassTerms + 1;
    terms.count = std::min(kPassTerms, p.terms - pass * kPassTerms);
    terms.alpha_lanes = pass == 0 && p.has_alpha ? 1 : 0;
    terms.lanes = terms.alpha_lanes + 2 * terms.count;
    terms.first_pass = pass == 0;
    terms.last_pass = pass + 1 == passes;
    for (int c = 0; c < p.color_channels; ++c) {
      terms.base[c] = p.channel[c].turns_per_unit;
      terms.a0[c] = plan_.cosine[plan_.coefficient(c, 0)];
      for (int t = 0; t < terms.count; ++t) {
        const int k = terms.first + t;
        terms.frequency[c][t] = float(double(k) * double(p.channel[c].turns_per_unit));
        terms.cosine[c][t] = plan_.cosine[plan_.coefficient(c, k)];
        terms.sine[c][t] = plan_.sine[plan_.coefficient(c, k)];
      }
    }
    return terms;
  }

  // The stream's scratch (one band in flight per stream), grown as needed.
  Scratch& scratch(cudaStream_t stream, size_t y, size_t checkpoints, size_t partial) {
    Scratch& s = scratch_[stream];
    auto grow = [](size_t& held, DeviceMemory& memory, size_t floats) {
      if (held >= floats) return;
      memory = DeviceMemory(floats * sizeof(float));
      held = floats;
    };
    grow(s.y, s.y_memory, y);
    grow(s.checkpoints, s.checkpoint_memory, checkpoints);
    grow(s.partial, s.partial_memory, partial);
    return s;
  }

  const FourierPlan& plan_;
  Taps taps_{};
  std::map<cudaStream_t, Scratch> scratch_;
  std::map<cudaStream_t, FourierCoarseScratch> coarse_scratch_;
};

}  // namespace

std::string fourier_unsupported(const Plan& plan) {
  const FourierParams& p = static_cast<const FourierPlan&>(plan).params;
  if (p.coarse_step > 1) return "";  // the coarse path holds no row on chip
  size_t shared_bytes = 0;
  row_layout(p, plan.shape.width, shared_bytes);
  if (!shared_bytes)
    return "the fourier filter's GPU row pass holds a row's lanes on chip: rows of " +
           std::to_string(plan.shape.width) + " pixels do not fit";
  return "";
}

std::unique_ptr<DeviceBandKernel> make_fourier_device_kernel(const Plan& plan) {
  return std::make_unique<FourierDeviceKernel>(static_cast<const FourierPlan&>(plan));
}

}  // namespace edgewise::cuda
