// The collaborative denoiser's per-group math (core/filters/nlbayes.h states
// the algorithm), written once for every backend: which patches are
// references and candidates, how candidates are ordered, the noise a group
// sees, the flat-area test, the regularised Cholesky solve and the
// multiscale taps. The CPU calls the solve with a SIMD vector of members per
// call (T = float lanes), a GPU thread would call it with one member
// (T = float); the loops around these calls (the search, the covariance
// sums, the aggregation) stay per backend.
#pragma once

#include <math.h>
#include <stdint.h>

#include "hostdevice.h"
#include "lanes.h"
#include "nlbayes.h"

namespace edgewise {

// Reference rows whose groups' sums are gathered together before they are
// added to a step's sums (the CPU's slabs): a pixel's sum is the same in
// the same order for any part of the image that starts on a multiple of
// this many grid rows (the region grid, nlbayes.cpp).
constexpr int kNlbSumGridRows = 4;

// The patch side at a scale of width x height pixels.
EW_HD int nlb_patch_side(int patch, int width, int height) {
  const int smaller = width < height ? width : height;
  return patch < smaller ? patch : smaller;
}

// Reference positions along an axis of `size` pixels for patches of side
// `patch`: index k is at k * step, the last one at size - patch.
EW_HD int nlb_grid_count(int size, int patch, int step) {
  const int last = size - patch;
  return last / step + 1 + (last % step != 0 ? 1 : 0);
}
EW_HD int nlb_grid_position(int index, int size, int patch, int step) {
  const int position = index * step, last = size - patch;
  return position < last ? position : last;
}
// The first grid index at or after `position` (the count when none).
EW_HD int nlb_grid_first_from(int position, int size, int patch, int step) {
  if (position <= 0) return 0;
  const int count = nlb_grid_count(size, patch, step);
  int index = (position + step - 1) / step;
  if (index < count && nlb_grid_position(index, size, patch, step) < position) ++index;  // the clamped last one
  return index < count ? index : count;
}

// The candidates of a reference at `reference` along an axis: positions
// first..last, at most `radius` away and inside the image.
EW_HD void nlb_search_range(int reference, int size, int patch, int radius, int& first, int& last) {
  first = reference - radius > 0 ? reference - radius : 0;
  last = reference + radius < size - patch ? reference + radius : size - patch;
}

// A candidate's rank: its distance, then its raster index in the window. A
// distance is a sum of squares (never negative), so its bits order as the
// numbers do; the index makes every key distinct, so the K smallest are one
// set however they are selected.
EW_HD uint64_t nlb_candidate_key(float distance, uint32_t index) {
  return (uint64_t(float_bits(distance)) << 32) | uint64_t(index);
}
EW_HD uint32_t nlb_key_index(uint64_t key) { return uint32_t(key & 0xffffffffu); }
EW_HD float nlb_key_distance(uint64_t key) { return bits_float(uint32_t(key >> 32)); }

// Step 2's group size from the candidates closer than tau per sample (the
// reference counted) and the candidates there are (the reference counted).
EW_HD int nlb_group_size(const NlbStep& step, int closer, int available) {
  int size = closer > step.group ? closer : step.group;
  size = size < step.group_max ? size : step.group_max;
  return size < available ? size : available;
}

// The intensity a group's mean luma stands for: the mean of R, G and B in
// code values (Y = (R + G + B) / sqrt(3)), or the grey value.
EW_HD float nlb_intensity(const NlbParams& p, float luma) {
  return p.channels == 3 ? luma * 0.57735026918962576f : luma;
}

// The noise variance of a channel at an intensity: linear between the
// table's knots, constant beyond them.
EW_HD float nlb_noise_variance(const NlbNoiseTable& table, int scale, int channel, float intensity) {
  const NlbNoiseChannel& noise = table.channel[scale][channel];
  if (!(intensity > noise.intensity[0])) return noise.variance[0];  // NaN reads the first knot
  for (int k = 1; k < table.knots; ++k)
    if (intensity <= noise.intensity[k]) {
      const float t = (intensity - noise.intensity[k - 1]) / (noise.intensity[k] - noise.intensity[k - 1]);
      return noise.variance[k - 1] + t * (noise.variance[k] - noise.variance[k - 1]);
    }
  return noise.variance[table.knots - 1];
}

// Where R(dx, dy) is kept in NlbNoiseChannel::autocovariance.
EW_HD int nlb_autocovariance_index(int dx, int dy) {
  return (dy + kNlbMaxPatch - 1) * kNlbCovarianceSide + dx + kNlbMaxPatch - 1;
}

// The normalised noise autocovariance between patch pixels i and j (raster
// indices in a p x p patch).
EW_HD float nlb_autocovariance(const NlbNoiseChannel& noise, int patch, int i, int j) {
  return noise.autocovariance[nlb_autocovariance_index(j % patch - i % patch, j / patch - i / patch)];
}

// The factor the group's noise variance is scaled by in a step's noise
// covariance S_c.
EW_HD float nlb_noise_scale(const NlbParams& p, const NlbStep& step) { return p.strength * step.beta; }

// The flat-area test of one channel.
EW_HD bool nlb_is_flat(const NlbParams& p, int channel, float group_variance, float noise_variance) {
  const float gamma = channel == 0 ? p.flat_gamma_luma : p.flat_gamma_chroma;
  return group_variance < gamma * p.strength * noise_variance;
}

// The weighted sums of squares a covariance divides by the weight sum times
// this: K / (K - 1), the unbiased estimate for equal weights.
EW_HD float nlb_covariance_scale(int members) { return members > 1 ? float(members) / float(members - 1) : 1.0f; }

// M = L L^T in place (the lower triangle, row stride `stride`), after the
// ridge 1e-5 x M's mean diagonal + 1e-3 x the noise covariance's
// (`noise_diagonal`) + 1e-6 is added to M's diagonal: every system the
// steps solve has a solution, a group of fewer patches than dimensions
// included, and the noise term keeps rounding (the float mean of equal
// clipped samples is not quite them) from being divided by a covariance of
// rounding alone; it moves a gain 1 - v / lambda by at most 0.1 %. A pivot
// rounding takes below the ridge is raised to it. Left-looking, one column
// at a time: the GPU computes a column's entries below the pivot in
// parallel (one thread per row) with the same two functions, so both
// backends round every entry alike.
EW_HD float nlb_cholesky_ridge(const float* M, int dim, int stride, float noise_diagonal) {
  float trace = 0.0f;
  for (int i = 0; i < dim; ++i) trace += M[i * stride + i];
  return 1e-5f * trace / float(dim) + 1e-3f * noise_diagonal + 1e-6f;
}

// Column j's pivot L[j][j] into row_j[j], from row_j's entries left of it.
EW_HD float nlb_cholesky_pivot(float* row_j, int j, float ridge) {
  float pivot = row_j[j] + ridge;
  for (int k = 0; k < j; ++k) pivot -= row_j[k] * row_j[k];
  pivot = sqrtf(pivot > ridge ? pivot : ridge);
  row_j[j] = pivot;
  return pivot;
}

// L[i][j] (i > j) into row_i[j], once column j's pivot (1 / pivot:
// `inverse`) and columns left of j are done.
EW_HD void nlb_cholesky_below(float* row_i, const float* row_j, int j, float inverse) {
  float value = row_i[j];
  for (int k = 0; k < j; ++k) value -= row_i[k] * row_j[k];
  row_i[j] = value * inverse;
}

EW_HD void nlb_cholesky(float* M, int dim, int stride, float noise_diagonal) {
  const float ridge = nlb_cholesky_ridge(M, dim, stride, noise_diagonal);
  for (int j = 0; j < dim; ++j) {
    float* row_j = M + j * stride;
    const float inverse = 1.0f / nlb_cholesky_pivot(row_j, j, ridge);
    for (int i = j + 1; i < dim; ++i) nlb_cholesky_below(M + i * stride, row_j, j, inverse);
  }
}

// 1 / L[i][i], by which the substitutions multiply.
EW_HD float nlb_inverse_diagonal(const float* L, int stride, int i) { return 1.0f / L[i * stride + i]; }

// Solves L L^T x = b in place for x[0..dim) (b on entry): x is a pointer
// to T, a float (one member) or a vector of floats (a member per lane), or
// anything indexed like one (the GPU's member columns in shared memory).
// Each substitution's dot product is summed in four interleaved parts, so
// that consecutive multiply-adds do not wait on each other.
template <class X>
EW_HD auto nlb_dot(const float* row, int stride, const X& x, int first, int end) {
  using T = decltype(x[0] + 0.0f);
  T part[4] = {T{} + 0.0f, T{} + 0.0f, T{} + 0.0f, T{} + 0.0f};
  int k = first;
  for (; k + 4 <= end; k += 4)
    for (int j = 0; j < 4; ++j) part[j] = part[j] + row[(k + j) * stride] * x[k + j];
  for (; k < end; ++k) part[0] = part[0] + row[k * stride] * x[k];
  return (part[0] + part[1]) + (part[2] + part[3]);
}

template <class X>
EW_HD void nlb_cholesky_solve(const float* L, int dim, int stride, X x) {
  for (int i = 0; i < dim; ++i) {
    const float* row = L + i * stride;
    x[i] = (x[i] - nlb_dot(row, 1, x, 0, i)) * nlb_inverse_diagonal(L, stride, i);
  }
  for (int i = dim - 1; i >= 0; --i)
    x[i] = (x[i] - nlb_dot(L + i, stride, x, i + 1, dim)) * nlb_inverse_diagonal(L, stride, i);
}

// nlb_cholesky_solve's arithmetic with dim = D known at compile time: the
// rows are template steps and every dot product's bounds constants, so a GPU
// thread keeps x (D floats) in registers. Each of the four parts takes its
// terms in nlb_dot's order (part j: first + j, first + j + 4, ...; the tail
// past the last whole four in part 0), and `inverse` holds 1 / L[i][i]
// (nlb_inverse_diagonal: the same division, done once per factor instead of
// once per solve), so the result is nlb_cholesky_solve's to the bit
// (test_nlbayes checks it).
template <int First, int End, class X>
EW_HD auto nlb_dot_fixed(const float* row, int stride, const X& x) {
  using T = decltype(x[0] + 0.0f);
  T part[4] = {T{} + 0.0f, T{} + 0.0f, T{} + 0.0f, T{} + 0.0f};
  constexpr int whole = First + (End - First) / 4 * 4;
  EW_UNROLL
  for (int k = First; k < End; ++k) {
    const int j = k < whole ? (k - First) % 4 : 0;
    part[j] = part[j] + row[k * stride] * x[k];
  }
  return (part[0] + part[1]) + (part[2] + part[3]);
}

template <int D, int I, class X>
EW_HD void nlb_forward_fixed(const float* L, int stride, const float* inverse, X& x) {
  x[I] = (x[I] - nlb_dot_fixed<0, I>(L + I * stride, 1, x)) * inverse[I];
  if (I % 2 == 1) EW_SCHEDULE_FENCE();
  if constexpr (I + 1 < D) nlb_forward_fixed<D, I + 1>(L, stride, inverse, x);
}

template <int D, int I, class X>
EW_HD void nlb_backward_fixed(const float* L, int stride, const float* inverse, X& x) {
  x[I] = (x[I] - nlb_dot_fixed<I + 1, D>(L + I, stride, x)) * inverse[I];
  if (I % 2 == 0) EW_SCHEDULE_FENCE();
  if constexpr (I > 0) nlb_backward_fixed<D, I - 1>(L, stride, inverse, x);
}

template <int D, class X>
EW_HD void nlb_cholesky_solve_fixed(const float* L, int stride, const float* inverse, X& x) {
  nlb_forward_fixed<D, 0>(L, stride, inverse, x);
  nlb_backward_fixed<D, D - 1>(L, stride, inverse, x);
}

// Bilinear upsampling by 2 with pixel centres aligned (fine x + 0.5 =
// 2 (coarse u + 0.5)): taps `first` and `second`, `first` weighing
// weight_first, clamped to the coarse image.
EW_HD void nlb_upsample_taps(int x, int coarse_size, int& first, int& second, float& weight_first) {
  const int base = (x % 2 == 0) ? x / 2 - 1 : (x - 1) / 2;
  weight_first = (x % 2 == 0) ? 0.25f : 0.75f;
  first = base < 0 ? 0 : (base > coarse_size - 1 ? coarse_size - 1 : base);
  second = base + 1 > coarse_size - 1 ? coarse_size - 1 : base + 1;
}

}  // namespace edgewise
