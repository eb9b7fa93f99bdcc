// The Fourier bilateral filter on the GPU, in two kernels a pass of up to
// eight terms, with nothing but the column-blurred lanes between them:
//   1. columns: a thread per (column, colour channel, three terms) holds
//      the lanes of its terms (cos and sin, the first pass also alpha) and
//      walks the whole column: first upwards, keeping the anticausal
//      recursion's state every kChunkRows rows (checkpoints), then
//      downwards, chunk by chunk: the chunk's anticausal half from its
//      checkpoint into shared memory, then the causal half, which runs on
//      from the chunk above, added to it and written (Y, row-major). A
//      chunk thus starts without the r + 1 warm-up rows of a restart, and
//      the cost per row does not depend on sigma-s. The term values of a
//      thread's terms come from two fourier_sin_turns pairs and rotations
//      (fourier_rotate), not a pair a term.
//   2. rows: a block per (output row, channel) holds the row's lanes in
//      shared memory, a few at a time, so Y is read once and the samples
//      that leave the truncated window are at hand. The recursion along the
//      row is cut into segments, a thread each: every thread runs its
//      segment from a zero state, the segments' states are joined by a
//      parallel scan (fourier_carry: the recursion is linear), and every
//      thread runs its segment again from its true start, combining the
//      blurred lanes with the pixel's own term values into D, E and A as
//      it goes. The last pass writes the output (fourier_output).
// Per pixel and channel of a pass this moves the samples a few times, the
// lanes once each way (4 B each) and little else; the work is the
// recursion's (fourier_math.h), three walks down a column and two and a
// half along a row. sigma-s <= 2 takes the window's taps in both kernels.
// The per-pixel math (phases, sin in turns, rotation, recursion steps,
// carries, output) is core's fourier_math.h, as on the CPU.
// Measured: bench/RESULTS.md, "Fourier bilateral (issue 14)".
#include <algorithm>
#include <complex>
#include <map>
#include <vector>

#include "color_lab.h"
#include "device_resources.h"
#include "fourier_cuda.h"
#include "fourier_design.h"
#include "fourier_math.h"

namespace edgewise::cuda {

namespace {

constexpr int kPassTerms = 8;          // terms a pass: Y holds 2 x 8 + 1 lanes a channel
constexpr int kTermsPerThread = 3;     // column kernel: a thread's terms
constexpr int kColumnThreads = 64;     // column kernel: columns a block
constexpr int kChunkRows = 24;         // column kernel: rows between checkpoints (shared memory: 43 KB a block)
constexpr int kRowThreads = 256;       // row kernel: segments a row
constexpr int kMaxGroupLanes = 9;      // row kernel: lanes in shared memory at a time (alpha and four terms)
constexpr int kMaxGroupTerms = 4;
constexpr int kBatch = 8;              // recursion steps whose loads are issued together
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

// A thread's lanes of a sample: alpha, then cos and sin of its Terms terms
// from the one at `frequency` on (the later ones by rotation through
// `base`, term 1's angle, which is the first term's when `from_term_1`).
template <int Terms>
__device__ void sample_lanes(Sample s, float frequency, float base, bool from_term_1, float (&lane)[2 * Terms + 1]) {
  lane[0] = s.a;
  float c = fourier_term(s.u, frequency, 0.25f), sn = fourier_term(s.u, frequency, 0.0f);
  float base_c = c, base_s = sn;
  if (Terms > 1 && !from_term_1) {
    base_c = fourier_term(s.u, base, 0.25f);
    base_s = fourier_term(s.u, base, 0.0f);
  }
#pragma unroll
  for (int t = 0; t < Terms; ++t) {
    lane[1 + 2 * t] = c * s.a;
    lane[2 + 2 * t] = sn * s.a;
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
#pragma unroll
  for (int b = 0; b < kBatch; ++b)  // b stays a constant: batch arrays stay in registers
    if (b < count) step(i + dir * b, load(i + dir * b));
}

struct SamplePair {
  Sample entering, leaving;
};

// Column pass, recursive: Y's lanes of this thread's terms for every
// output row (see the file's header).
template <int Terms>
__global__ void __launch_bounds__(kColumnThreads)
    fourier_columns_kernel(FourierParams p, PassTerms pass, BandView in, float* Y, float* checkpoints, int chunks) {
  constexpr int L = 2 * Terms + 1;
  __shared__ float anticausal[kChunkRows][L][kColumnThreads];
  const int x = int(blockIdx.x) * kColumnThreads + int(threadIdx.x), c = int(blockIdx.y), z = int(blockIdx.z);
  if (x >= in.width) return;  // each thread on its own: no barriers below
  const int column = x;
  const int first_term = z * Terms, count = min(Terms, pass.count - first_term);
  const bool alpha_lane = z == 0 && pass.alpha_lanes;
  const float frequency = pass.frequency[c][first_term], base = pass.base[c];
  const bool from_term_1 = pass.first + first_term == 1;
  const int rows = in.rows, r = p.radius, reach = in.reach, out_rows = in.out_rows, width = in.width;
  // Which lanes this thread keeps: alpha on the first thread, its terms'.
  auto kept = [&](int l) { return l == 0 ? alpha_lane : (l - 1) / 2 < count; };
  float* own_checkpoints =
      checkpoints + (size_t(c) * gridDim.z + size_t(z)) * size_t(chunks) * L * 4 * size_t(width) + size_t(column);
  auto checkpoint = [&](int q, int l, int part) -> float& {
    return own_checkpoints[((size_t(q) * L + size_t(l)) * 4 + size_t(part)) * size_t(width)];
  };
  auto pair_at = [&](int i, int leaving) {
    return SamplePair{load_sample(in, c, i, column), load_sample(in, c, leaving, column)};
  };
  FourierRecursion<float> anti[L], causal[L];
  // The last output row of chunk q is band row boundary(q) - 1; the
  // checkpoint is the anticausal state after stepping boundary(q).
  auto boundary = [&](int q) { return reach + min((q + 1) * kChunkRows, out_rows); };

  {  // Upwards from the band's last row (clamp-to-edge start): the checkpoints.
    float lane[L];
    sample_lanes<Terms>(load_sample(in, c, rows - 1, column), frequency, base, from_term_1, lane);
#pragma unroll
    for (int l = 0; l < L; ++l) anti[l].start(p, lane[l]);
    int q = chunks - 1;
    walk(rows - 1, boundary(0), -1, [&](int i) { return pair_at(i, min(i + r + 1, rows - 1)); },
         [&](int i, const SamplePair& s) {
           float entering[L], leaving[L];
           sample_lanes<Terms>(s.entering, frequency, base, from_term_1, entering);
           sample_lanes<Terms>(s.leaving, frequency, base, from_term_1, leaving);
#pragma unroll
           for (int l = 0; l < L; ++l)
             if (kept(l)) anti[l].step(p, entering[l], leaving[l]);
           if (q >= 0 && i == boundary(q)) {
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

  // Downwards: the top halo, then chunk by chunk.
  {
    float lane[L];
    sample_lanes<Terms>(load_sample(in, c, 0, column), frequency, base, from_term_1, lane);
#pragma unroll
    for (int l = 0; l < L; ++l) causal[l].start(p, lane[l]);
  }
  auto causal_step = [&](const SamplePair& s, float (&y)[L], float (&entering)[L]) {
    float leaving[L];
    sample_lanes<Terms>(s.entering, frequency, base, from_term_1, entering);
    sample_lanes<Terms>(s.leaving, frequency, base, from_term_1, leaving);
#pragma unroll
    for (int l = 0; l < L; ++l) y[l] = kept(l) ? causal[l].step(p, entering[l], leaving[l]) : 0.0f;
  };
  if (reach > 0)
    walk(0, reach - 1, 1, [&](int i) { return pair_at(i, max(i - r - 1, 0)); },
         [&](int, const SamplePair& s) {
           float y[L], entering[L];
           causal_step(s, y, entering);
         });
  const size_t plane = size_t(out_rows) * size_t(width);
  for (int q = 0; q < chunks; ++q) {
    const int start = reach + q * kChunkRows, end = boundary(q);
#pragma unroll
    for (int l = 0; l < L; ++l)
      if (kept(l))
#pragma unroll
        for (int sec = 0; sec < 2; ++sec) {
          anti[l].section[sec].re = checkpoint(q, l, 2 * sec);
          anti[l].section[sec].im = checkpoint(q, l, 2 * sec + 1);
        }
    walk(end - 1, start, -1, [&](int i) { return pair_at(i, min(i + r + 1, rows - 1)); },
         [&](int i, const SamplePair& s) {
           float entering[L], leaving[L];
           sample_lanes<Terms>(s.entering, frequency, base, from_term_1, entering);
           sample_lanes<Terms>(s.leaving, frequency, base, from_term_1, leaving);
#pragma unroll
           for (int l = 0; l < L; ++l)
             if (kept(l))
               anticausal[i - start][l][threadIdx.x] =
                   anti[l].step(p, entering[l], leaving[l]) - entering[l] * p.centre;
         });
    walk(start, end - 1, 1, [&](int i) { return pair_at(i, max(i - r - 1, 0)); },
         [&](int i, const SamplePair& s) {
           float y[L], entering[L];
           causal_step(s, y, entering);
           const size_t row_at = size_t(i - reach) * size_t(width) + size_t(x);
#pragma unroll
           for (int l = 0; l < L; ++l) {
             if (!kept(l)) continue;
             const int lane = l == 0 ? 0 : pass.alpha_lanes + 2 * first_term + (l - 1);
             Y[(size_t(c) * pass.lanes + size_t(lane)) * plane + row_at] = y[l] + anticausal[i - start][l][threadIdx.x];
           }
         });
  }
}

// Column pass, direct taps (sigma-s <= 2): a thread per (column, channel,
// term) with the window's lane values in registers, each computed once.
__global__ void __launch_bounds__(kColumnThreads)
    fourier_column_taps_kernel(PassTerms pass, Taps taps, BandView in, float* Y) {
  constexpr int L = 3, W = 2 * kDirectRadius + 1;
  const int x = int(blockIdx.x) * kColumnThreads + int(threadIdx.x), c = int(blockIdx.y), term = int(blockIdx.z);
  if (x >= in.width) return;
  const bool alpha_lane = term == 0 && pass.alpha_lanes;
  const float frequency = pass.frequency[c][term];
  const int rows = in.rows, reach = in.reach, width = in.width;
  float window[W][L];
  auto band_row = [&](int i) { return min(max(i, 0), rows - 1); };  // taps past r are 0
#pragma unroll
  for (int n = 1; n < W; ++n)
    sample_lanes<1>(load_sample(in, c, band_row(reach - kDirectRadius - 1 + n), x), frequency, frequency, true, window[n]);
  const size_t plane = size_t(in.out_rows) * size_t(width);
  for (int j = 0; j < in.out_rows; ++j) {
#pragma unroll
    for (int n = 0; n + 1 < W; ++n)
#pragma unroll
      for (int l = 0; l < L; ++l) window[n][l] = window[n + 1][l];
    sample_lanes<1>(load_sample(in, c, band_row(j + reach + kDirectRadius), x), frequency, frequency, true, window[W - 1]);
    const size_t row_at = size_t(j) * size_t(width) + size_t(x);
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
// pixels [t segment, t segment + length), the last `last` long; an odd
// segment keeps a warp's shared-memory reads on distinct banks. power and
// last_power: z_i^segment and z_i^last per section, for the carries.
struct RowLayout {
  int width, segment, active, last;
  int group_lanes;             // lanes in shared memory at a time
  int carry_floats;            // the carries' shared memory: 8 floats a lane and segment (recursive)
  bool shared_sums;            // D, E, A in shared memory (else in the partial sums' rows)
  float power_re[2], power_im[2], last_re[2], last_im[2];
};

// One group of a row's lanes: alpha (when `alpha`), then `terms` terms from
// pass term `first_term` on, at lanes[l * width + x].
struct LaneGroup {
  const float* lanes;
  int count;  // lanes
  bool alpha;
  int first_term, terms;
};

// The pixel's D, E and A shares of the group's blurred lanes y.
template <bool Alpha>
__device__ __forceinline__ void combine(const PassTerms& pass, int c, const LaneGroup& group, float u, const float (&y)[kMaxGroupLanes],
                        float& d, float& e, float& a) {
  constexpr int o = Alpha ? 1 : 0;
  if (Alpha) {
    d += pass.a0[c] * y[0];
    a += y[0];
  }
  const float frequency = pass.frequency[c][group.first_term], base = pass.base[c];
  float cs = fourier_term(u, frequency, 0.25f), sn = fourier_term(u, frequency, 0.0f);
  float base_c = cs, base_s = sn;
  if (group.terms > 1 && pass.first + group.first_term != 1) {
    base_c = fourier_term(u, base, 0.25f);
    base_s = fourier_term(u, base, 0.0f);
  }
  float dk = 0.0f, ek = 0.0f;
#pragma unroll
  for (int m = 0; m < kMaxGroupTerms; ++m) {
    if (m >= group.terms) break;
    const float yc = y[o + 2 * m], ys = y[o + 2 * m + 1];
    const int t = group.first_term + m;
    dk += pass.cosine[c][t] * (cs * yc + sn * ys);
    ek += pass.sine[c][t] * (cs * ys - sn * yc);
    fourier_rotate(cs, sn, base_c, base_s);
  }
  d += dk;
  e += ek;
}

// The segment's pixels, blurred along the row and combined (recursive).
template <bool Alpha>
__device__ __forceinline__ void filter_segment(const FourierParams& p, const PassTerms& pass, const RowLayout& g, int c,
                               const LaneGroup& group, const float* u, float* D, float* E, float* A,
                               float2* carries) {
  const int t = int(threadIdx.x), width = g.width, r = p.radius, n_lanes = group.count;
  const int first = t * g.segment, end = min(first + g.segment, width);
  const float* x = group.lanes;
  auto chain = [&](int l, int dir, int sec) { return carries + ((l * 2 + dir) * 2 + sec) * g.active; };
  FourierRecursion<float> causal[kMaxGroupLanes], anti[kMaxGroupLanes];
  const bool active = t < g.active;
  // 1. Each segment from a zero state: its own end states.
  if (active) {
#pragma unroll
    for (int l = 0; l < kMaxGroupLanes; ++l) {
      causal[l].clear();
      anti[l].clear();
    }
    for (int n = first; n < end; ++n)
#pragma unroll
      for (int l = 0; l < kMaxGroupLanes; ++l)
        if (l < n_lanes) causal[l].step(p, x[l * width + n], x[l * width + max(n - r - 1, 0)]);
    for (int n = end - 1; n >= first; --n)
#pragma unroll
      for (int l = 0; l < kMaxGroupLanes; ++l)
        if (l < n_lanes) anti[l].step(p, x[l * width + n], x[l * width + min(n + r + 1, width - 1)]);
#pragma unroll
    for (int l = 0; l < kMaxGroupLanes; ++l)
      if (l < n_lanes)
#pragma unroll
        for (int sec = 0; sec < 2; ++sec) {
          chain(l, 0, sec)[t] = make_float2(causal[l].section[sec].re, causal[l].section[sec].im);
          chain(l, 1, sec)[t] = make_float2(anti[l].section[sec].re, anti[l].section[sec].im);
        }
  }
  __syncthreads();
  // 2. The segments' true starts: a scan per chain (lane, direction,
  // section), a warp each, its lanes over runs of segments in the order the
  // direction visits them, joined by shuffles.
  {
    const int warp = t / 32, lane = t % 32, warps = kRowThreads / 32, chains = n_lanes * 4;
    const int run = (g.active + 31) / 32;
    for (int ch = warp; ch < chains; ch += warps) {
      const int l = ch / 4, dir = (ch / 2) % 2, sec = ch % 2;
      float2* states = carries + ch * g.active;
      auto segment_of = [&](int position) { return dir == 0 ? position : g.active - 1 - position; };
      auto power_of = [&](int s) {
        return s == g.active - 1 ? FourierSection<float>{g.last_re[sec], g.last_im[sec]}
                                 : FourierSection<float>{g.power_re[sec], g.power_im[sec]};
      };
      const int from = min(lane * run, g.active), to = min(from + run, g.active);
      FourierSection<float> sum{0.0f, 0.0f}, power{1.0f, 0.0f};  // this lane's run: state = sum + power * start
      for (int position = from; position < to; ++position) {
        const int s = segment_of(position);
        const FourierSection<float> own{states[s].x, states[s].y}, step = power_of(s);
        sum = fourier_carry(own, sum, step.re, step.im);
        power = fourier_carry(FourierSection<float>{0.0f, 0.0f}, power, step.re, step.im);
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
      FourierSection<float> start_power{__shfl_up_sync(kAllLanes, power.re, 1),
                                        __shfl_up_sync(kAllLanes, power.im, 1)};
      if (lane == 0) {
        start_sum = {0.0f, 0.0f};
        start_power = {1.0f, 0.0f};
      }
      // The state before the first segment: a constant run of the edge sample.
      const float edge = x[l * width + (dir == 0 ? 0 : width - 1)];
      const FourierSection<float> outside{edge * p.steady_re[sec], edge * p.steady_im[sec]};
      FourierSection<float> state = fourier_carry(start_sum, outside, start_power.re, start_power.im);
      for (int position = from; position < to; ++position) {
        const int s = segment_of(position);
        const FourierSection<float> own{states[s].x, states[s].y}, step = power_of(s);
        states[s] = make_float2(state.re, state.im);
        state = fourier_carry(own, state, step.re, step.im);
      }
    }
  }
  __syncthreads();
  if (!active) return;
  // 3. Each segment again from its true start, combined as it goes.
#pragma unroll
  for (int l = 0; l < kMaxGroupLanes; ++l)
    if (l < n_lanes)
#pragma unroll
      for (int sec = 0; sec < 2; ++sec) {
        const float2 before = chain(l, 0, sec)[t], after = chain(l, 1, sec)[t];
        causal[l].section[sec] = {before.x, before.y};
        anti[l].section[sec] = {after.x, after.y};
      }
  for (int n = end - 1; n >= first; --n) {
    float y[kMaxGroupLanes];
#pragma unroll
    for (int l = 0; l < kMaxGroupLanes; ++l) {
      y[l] = 0.0f;
      if (l >= n_lanes) continue;
      const float v = x[l * width + n];
      y[l] = anti[l].step(p, v, x[l * width + min(n + r + 1, width - 1)]) - v * p.centre;
    }
    float a = 0.0f;
    combine<Alpha>(pass, c, group, u[n], y, D[n], E[n], a);
    if (Alpha) A[n] += a;
  }
  for (int n = first; n < end; ++n) {
    float y[kMaxGroupLanes];
#pragma unroll
    for (int l = 0; l < kMaxGroupLanes; ++l)
      y[l] = l < n_lanes ? causal[l].step(p, x[l * width + n], x[l * width + max(n - r - 1, 0)]) : 0.0f;
    float a = 0.0f;
    combine<Alpha>(pass, c, group, u[n], y, D[n], E[n], a);
    if (Alpha) A[n] += a;
  }
}

// The segment's pixels by the window's taps (sigma-s <= 2).
template <bool Alpha>
__device__ __forceinline__ void filter_segment_taps(const Taps& taps, const PassTerms& pass, const RowLayout& g, int c,
                                    const LaneGroup& group, const float* u, float* D, float* E, float* A) {
  const int t = int(threadIdx.x), width = g.width, n_lanes = group.count;
  if (t >= g.active) return;
  const int first = t * g.segment, end = min(first + g.segment, width);
  const float* x = group.lanes;
  for (int n = first; n < end; ++n) {
    float y[kMaxGroupLanes];
#pragma unroll
    for (int l = 0; l < kMaxGroupLanes; ++l) {
      y[l] = 0.0f;
      if (l >= n_lanes) continue;
      const float* lane = x + l * width;
      float sum = lane[n] * taps.tap[0];
#pragma unroll
      for (int m = 1; m <= kDirectRadius; ++m) sum += (lane[max(n - m, 0)] + lane[min(n + m, width - 1)]) * taps.tap[m];
      y[l] = sum;
    }
    float a = 0.0f;
    combine<Alpha>(pass, c, group, u[n], y, D[n], E[n], a);
    if (Alpha) A[n] += a;
  }
}

// Row pass: a block per (output row, channel). D, E and A start from the
// previous pass's partial sums (or the constant term), take this pass's
// lanes group by group, and end as the output (last pass) or partial sums.
template <bool Recursive>
__global__ void __launch_bounds__(kRowThreads, 1)
    fourier_rows_kernel(FourierParams p, Taps taps, PassTerms pass, RowLayout g, BandView in, const float* Y,
                        float* partial, DeviceOutput out) {
  extern __shared__ float shared[];
  const int j = int(blockIdx.x), c = int(blockIdx.y), width = g.width, t = int(threadIdx.x);
  const bool alpha = p.has_alpha;
  const size_t plane = size_t(in.out_rows) * size_t(width);
  float* partial_row = partial ? partial + size_t(c) * 3 * plane + size_t(j) * size_t(width) : nullptr;
  float* lanes = shared;
  float2* carries = reinterpret_cast<float2*>(shared + ((g.group_lanes * width + 1) & ~1));
  float *D, *E, *A;
  if (g.shared_sums) {
    D = reinterpret_cast<float*>(carries) + g.carry_floats;
    E = D + width;
    A = E + width;
  } else {
    D = partial_row;
    E = D + plane;
    A = E + plane;
  }
  const float* u = in.channel(c) + size_t(j + in.reach) * size_t(width);
  for (int x = t; x < width; x += kRowThreads) {
    const float d = pass.first_pass ? (alpha ? 0.0f : pass.a0[c]) : partial_row[x];
    const float e = pass.first_pass ? 0.0f : partial_row[plane + x];
    const float a = pass.first_pass ? 0.0f : (alpha ? partial_row[2 * plane + x] : 1.0f);
    D[x] = d;
    E[x] = e;
    if (alpha) A[x] = a;
  }
  for (int lane0 = 0; lane0 < pass.lanes;) {
    LaneGroup group;
    group.lanes = lanes;
    group.alpha = lane0 < pass.alpha_lanes;
    group.first_term = (lane0 + (group.alpha ? 1 : 0) - pass.alpha_lanes) / 2;
    group.terms = min(min(kMaxGroupTerms, (g.group_lanes - (group.alpha ? 1 : 0)) / 2), pass.count - group.first_term);
    group.count = (group.alpha ? 1 : 0) + 2 * group.terms;
    __syncthreads();  // the previous group's lanes are no longer read
    for (int l = 0; l < group.count; ++l) {
      const float* from = Y + (size_t(c) * pass.lanes + size_t(lane0 + l)) * plane + size_t(j) * size_t(width);
      for (int x = t; x < width; x += kRowThreads) lanes[l * width + x] = from[x];
    }
    __syncthreads();
    if (Recursive) {
      if (group.alpha)
        filter_segment<true>(p, pass, g, c, group, u, D, E, A, carries);
      else
        filter_segment<false>(p, pass, g, c, group, u, D, E, A, carries);
    } else {
      if (group.alpha)
        filter_segment_taps<true>(taps, pass, g, c, group, u, D, E, A);
      else
        filter_segment_taps<false>(taps, pass, g, c, group, u, D, E, A);
    }
    lane0 += group.count;
  }
  __syncthreads();
  for (int x = t; x < width; x += kRowThreads) {
    const float a = alpha ? A[x] : 1.0f;
    if (pass.last_pass) {
      out.plane(c)[size_t(j) * out.row_stride + size_t(x)] =
          fourier_output(p, p.channel[c], u[x], E[x], D[x], a) * p.inverse_unit;
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

// The row kernel's layout for a row of `width` and its shared memory:
// segments of an odd length, as many lanes a group as fit beside the
// carries and (where they fit) D, E and A.
RowLayout row_layout(const FourierParams& p, int width, size_t& shared_bytes) {
  RowLayout g{};
  g.width = width;
  g.segment = ceil_div(width, kRowThreads) | 1;
  g.active = ceil_div(width, g.segment);
  g.last = width - (g.active - 1) * g.segment;
  for (int sec = 0; sec < 2 && p.recursive; ++sec) {
    const std::complex<double> z(p.pole_re[sec], p.pole_im[sec]);
    const std::complex<double> full = std::pow(z, g.segment), last = std::pow(z, g.last);
    g.power_re[sec] = float(full.real());
    g.power_im[sec] = float(full.imag());
    g.last_re[sec] = float(last.real());
    g.last_im[sec] = float(last.imag());
  }
  const size_t limit = size_t(shared_memory_limit()) / sizeof(float);
  const size_t sums = size_t(p.has_alpha ? 3 : 2) * size_t(width);
  const size_t per_lane = size_t(width) + (p.recursive ? 8 * size_t(g.active) : 0);
  auto fits = [&](int lanes, bool with_sums) { return lanes * per_lane + 2 + (with_sums ? sums : 0) <= limit; };
  g.shared_sums = fits(2, true);
  g.group_lanes = kMaxGroupLanes;
  while (g.group_lanes > 2 && !fits(g.group_lanes, g.shared_sums)) --g.group_lanes;
  g.carry_floats = p.recursive ? 8 * g.group_lanes * g.active : 0;
  shared_bytes = (g.group_lanes * per_lane + 2 + (g.shared_sums ? sums : 0)) * sizeof(float);
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

    const BandView view{input.plane(0), input.plane_stride, p.has_alpha ? input.plane(colours) : nullptr,
                        input.rows, width, plan_.reach, out_rows};
    const int passes = ceil_div(p.terms, kPassTerms), chunks = ceil_div(out_rows, kChunkRows);
    const int column_threads = ceil_div(kPassTerms, kTermsPerThread);
    const size_t pixels = size_t(out_rows) * size_t(width);
    size_t shared_bytes = 0;
    const RowLayout layout = row_layout(p, width, shared_bytes);
    if (shared_bytes > size_t(shared_memory_limit()))  // fourier_unsupported refuses such plans
      throw BackendError("a row of " + std::to_string(width) + " pixels does not fit the fourier row kernel");
    const bool partial_needed = passes > 1 || !layout.shared_sums;
    Scratch& s = scratch(stream, size_t(colours) * size_t(2 * kPassTerms + 1) * pixels,
                         p.recursive ? size_t(colours) * size_t(column_threads) * size_t(chunks) *
                                           size_t(2 * kTermsPerThread + 1) * 4 * size_t(width)
                                     : 0,
                         partial_needed ? size_t(colours) * 3 * pixels : 0);
    float* partial = partial_needed ? s.partial_memory.as<float>() : nullptr;
    if (p.recursive) {
      check(cudaFuncSetAttribute(fourier_rows_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(shared_bytes)),
            "sizing the fourier row kernel's shared memory");
    } else {
      check(cudaFuncSetAttribute(fourier_rows_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(shared_bytes)),
            "sizing the fourier row kernel's shared memory");
    }
    for (int pass = 0; pass < passes; ++pass) {
      const PassTerms terms = pass_terms(pass, passes);
      float* Y = s.y_memory.as<float>();
      const dim3 column_grid(unsigned(ceil_div(width, kColumnThreads)), unsigned(colours),
                             unsigned(p.recursive ? ceil_div(terms.count, kTermsPerThread) : terms.count));
      if (p.recursive)
        fourier_columns_kernel<kTermsPerThread><<<column_grid, kColumnThreads, 0, stream>>>(
            p, terms, view, Y, s.checkpoint_memory.as<float>(), chunks);
      else
        fourier_column_taps_kernel<<<column_grid, kColumnThreads, 0, stream>>>(terms, taps_, view, Y);
      check(cudaGetLastError(), "launching the fourier column pass");
      const dim3 row_grid{unsigned(out_rows), unsigned(colours)};
      if (p.recursive)
        fourier_rows_kernel<true><<<row_grid, kRowThreads, shared_bytes, stream>>>(p, taps_, terms, layout, view, Y,
                                                                                 partial, output);
      else
        fourier_rows_kernel<false><<<row_grid, kRowThreads, shared_bytes, stream>>>(p, taps_, terms, layout, view, Y,
                                                                                  partial, output);
      check(cudaGetLastError(), "launching the fourier row pass");
    }
    if (p.lab) {
      const dim3 block(32, 8), grid(unsigned(ceil_div(width, 32)), unsigned(ceil_div(out_rows, 8)));
      fourier_from_lab_kernel<<<grid, block, 0, stream>>>(output);
      check(cudaGetLastError(), "launching the Lab conversion");
    }
    if (p.has_alpha) launch_copy_plane(input, plan_.reach, output, colours, stream);
  }

 private:
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
};

}  // namespace

std::string fourier_unsupported(const Plan& plan) {
  size_t shared_bytes = 0;
  const RowLayout layout = row_layout(static_cast<const FourierPlan&>(plan).params, plan.shape.width, shared_bytes);
  if (layout.group_lanes < 2 || shared_bytes > size_t(shared_memory_limit()))
    return "the fourier filter's GPU row pass holds a row's lanes on chip: rows of " +
           std::to_string(plan.shape.width) + " pixels do not fit";
  return "";
}

std::unique_ptr<DeviceBandKernel> make_fourier_device_kernel(const Plan& plan) {
  return std::make_unique<FourierDeviceKernel>(static_cast<const FourierPlan&>(plan));
}

}  // namespace edgewise::cuda
