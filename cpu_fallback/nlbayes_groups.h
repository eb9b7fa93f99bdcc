// The collaborative denoiser's groups on the CPU, compiled once per
// instruction set (nlbayes_groups_*.cpp define EW_ISA_NAMESPACE and
// EW_LANE_WIDTH before including it). One call processes a row of reference
// patches; per reference: the squared distances of its candidates (a
// window row at a time, the compiler's vectors across candidates), the
// K - 1 smallest keys (nlb_candidate_key: distance, then raster index), the
// members' patches gathered into SIMD lanes (a member per lane, blocks of
// EW_LANE_WIDTH members, each block [channel][pixel]), the flat tests, the
// covariance, its Cholesky factor and the solve of every block
// (nlbayes_math.h), and the members' estimates added to the slab's sums in
// member order. Each group is computed the same way whatever band or thread
// runs it, so results do not depend on either.
#include <algorithm>
#include <cstring>
#include <vector>

#include "nlbayes_cpu.h"
#include "nlbayes_math.h"

namespace edgewise::cpu::EW_ISA_NAMESPACE {

namespace {

constexpr int kLanes = EW_LANE_WIDTH;
using Lanes = float_lanes<kLanes>;

Lanes* lanes_of(std::vector<float>& buffer, size_t count) {
  if (buffer.size() < count * kLanes + kLanes) buffer.resize(count * kLanes + kLanes);
  // Aligned to the vector: the buffers are reused, so align once by offset.
  const uintptr_t address = reinterpret_cast<uintptr_t>(buffer.data());
  const uintptr_t aligned = (address + sizeof(Lanes) - 1) & ~uintptr_t(sizeof(Lanes) - 1);
  return reinterpret_cast<Lanes*>(aligned);
}

// The lanes' sum, halving the vector (a fixed order: one result per build).
float sum_lanes(Lanes value) {
#if EW_LANE_WIDTH == 16
  const float_lanes<8> half = __builtin_shufflevector(value, value, 0, 1, 2, 3, 4, 5, 6, 7) +
                              __builtin_shufflevector(value, value, 8, 9, 10, 11, 12, 13, 14, 15);
  const float_lanes<4> quarter =
      __builtin_shufflevector(half, half, 0, 1, 2, 3) + __builtin_shufflevector(half, half, 4, 5, 6, 7);
  return (quarter[0] + quarter[2]) + (quarter[1] + quarter[3]);
#elif EW_LANE_WIDTH == 8
  const float_lanes<4> quarter =
      __builtin_shufflevector(value, value, 0, 1, 2, 3) + __builtin_shufflevector(value, value, 4, 5, 6, 7);
  return (quarter[0] + quarter[2]) + (quarter[1] + quarter[3]);
#else
  return (value[0] + value[2]) + (value[1] + value[3]);
#endif
}

// Candidates whose distance bits are at most `limit` (a distance is never
// negative, so its bits order as the numbers do).
int count_at_most(const uint32_t* bits, int count, uint32_t limit) {
  int total = 0;
  for (int i = 0; i < count; ++i) total += bits[i] <= limit ? 1 : 0;
  return total;
}

// The group of the reference at (rx, ry): its members' positions in raster
// order, the reference among them; returns how many.
int find_group(const NlbStepJob& job, int rx, int ry, NlbScratch& s) {
  const NlbStep& step = *job.step;
  const NlbRows& guide = job.basic ? *job.basic : *job.noisy;
  const int p = job.patch, width = guide.width, height = guide.height;
  int x0, x1, y0, y1;
  nlb_search_range(rx, width, p, step.search_radius, x0, x1);
  nlb_search_range(ry, height, p, step.search_radius, y0, y1);
  const int nx = x1 - x0 + 1, ny = y1 - y0 + 1, candidates = nx * ny;
  if (s.distance.size() < size_t(candidates)) s.distance.resize(size_t(candidates));
  float* const distance = s.distance.data();
  std::fill(distance, distance + candidates, 0.0f);
  const int searched = job.basic ? job.params->channels : 1;
  for (int c = 0; c < searched; ++c)
    for (int ty = 0; ty < p; ++ty) {
      const float* reference = guide.row(c, ry + ty) + rx;
      for (int qy = y0; qy <= y1; ++qy) {
        const float* candidate = guide.row(c, qy + ty) + x0;
        float* __restrict d = distance + (qy - y0) * nx;
        for (int tx = 0; tx < p; ++tx) {
          const float value = reference[tx];
          const float* __restrict q = candidate + tx;
          for (int i = 0; i < nx; ++i) {
            const float e = value - q[i];
            d[i] += e * e;
          }
        }
      }
    }
  const int reference_index = (ry - y0) * nx + (rx - x0);
  // The K - 1 nearest others by (distance, raster index): the (K-1)-th
  // smallest distance found bit by bit, from the top, by counting (31
  // vectorised passes, no data-dependent branches), then the candidates
  // below it and the first ones at it, in raster order. The reference's
  // bits are set above every distance, and it is added in its place.
  if (s.bits.size() < size_t(candidates)) s.bits.resize(size_t(candidates));
  uint32_t* const bits = s.bits.data();
  std::memcpy(bits, distance, sizeof(uint32_t) * size_t(candidates));
  bits[reference_index] = 0xffffffffu;
  int members = std::min(step.group, candidates);
  if (job.basic) {
    const float tau = step.tau * float(p * p * searched);
    int closer = 1;  // the reference
    for (int i = 0; i < candidates; ++i) closer += distance[i] < tau && i != reference_index ? 1 : 0;
    members = nlb_group_size(step, closer, candidates);
  }
  const int others = members - 1;
  uint32_t limit = 0x7fffffffu;
  int below = others;  // candidates taken below the limit
  if (others < candidates - 1) {
    uint32_t value = 0;
    for (int bit = 30; bit >= 0; --bit)
      if (count_at_most(bits, candidates, value | ((1u << bit) - 1u)) < others) value |= 1u << bit;
    limit = value;
    below = value > 0 ? count_at_most(bits, candidates, value - 1u) : 0;
  }
  s.member_x.resize(size_t(members));
  s.member_y.resize(size_t(members));
  int m = 0, at_limit = others - below;
  for (int i = 0; i < candidates; ++i) {
    const bool take = i == reference_index || bits[i] < limit || (bits[i] == limit && at_limit-- > 0);
    if (!take) continue;
    s.member_x[size_t(m)] = x0 + i % nx;
    s.member_y[size_t(m)] = y0 + i / nx;
    ++m;
  }
  return members;
}

// Members' samples of `rows` into lanes: block b, channel c, pixel t at
// out[(b * channels + c) * n + t], lane = member % kLanes (zero past the last).
void gather(const NlbRows& rows, const NlbScratch& s, int members, int p, Lanes* out) {
  const int n = p * p, channels = rows.channels, blocks = (members + kLanes - 1) / kLanes;
  std::memset(static_cast<void*>(out), 0, sizeof(Lanes) * size_t(blocks) * size_t(channels) * size_t(n));
  for (int m = 0; m < members; ++m) {
    Lanes* block = out + size_t(m / kLanes) * size_t(channels) * size_t(n);
    const int lane = m % kLanes;
    for (int c = 0; c < channels; ++c)
      for (int ty = 0; ty < p; ++ty) {
        const float* row = rows.row(c, s.member_y[size_t(m)] + ty) + s.member_x[size_t(m)];
        for (int tx = 0; tx < p; ++tx) block[c * n + ty * p + tx][lane] = row[tx];
      }
  }
}

// The noise covariance S of one channel times x, for pixel i (x: one
// block's n lanes of that channel).
Lanes noise_times(const NlbNoiseChannel& noise, float scaled_variance, int p, int i, const Lanes* x) {
  Lanes sum = Lanes{} + 0.0f;
  for (int j = 0; j < p * p; ++j) sum += (scaled_variance * nlb_autocovariance(noise, p, i, j)) * x[j];
  return sum;
}

void process_reference(const NlbStepJob& job, int rx, int ry, NlbScratch& s, const NlbSums& sums) {
  const NlbParams& params = *job.params;
  const NlbStep& step = *job.step;
  const bool second = job.basic != nullptr;
  const int p = job.patch, n = p * p, channels = params.channels, dim = second ? channels * n : n;
  const int members = find_group(job, rx, ry, s);
  const int blocks = (members + kLanes - 1) / kLanes;
  const size_t block_size = size_t(channels) * size_t(n);

  // Member weights: the mean alpha over the patch.
  if (s.weight.size() < size_t(blocks) * kLanes + kLanes) s.weight.resize(size_t(blocks) * kLanes + kLanes);
  Lanes* const weight = lanes_of(s.weight, size_t(blocks));
  for (int b = 0; b < blocks; ++b) weight[b] = Lanes{} + 0.0f;
  float weight_sum = 0.0f;
  for (int m = 0; m < members; ++m) {
    float w = 1.0f;
    if (params.has_alpha) {
      w = 0.0f;
      for (int ty = 0; ty < p; ++ty) {
        const float* alpha = job.noisy->row(channels, s.member_y[size_t(m)] + ty) + s.member_x[size_t(m)];
        for (int tx = 0; tx < p; ++tx) w += alpha[tx];
      }
      w /= float(n);
    }
    weight[m / kLanes][m % kLanes] = w;
    weight_sum += w;
  }
  if (!(weight_sum > 0.0f)) return;
  const float inverse_weight = 1.0f / weight_sum;

  Lanes* const noisy = lanes_of(s.noisy, size_t(blocks) * block_size);
  gather(*job.noisy, s, members, p, noisy);
  Lanes* basic = noisy;
  if (second) {
    basic = lanes_of(s.basic, size_t(blocks) * block_size);
    gather(*job.basic, s, members, p, basic);
  }
  Lanes* const estimate = lanes_of(s.estimate, size_t(blocks) * block_size);
  std::memcpy(static_cast<void*>(estimate), noisy, sizeof(Lanes) * size_t(blocks) * block_size);

  // The group's intensity from the guide's luma, each channel's noise there.
  Lanes luma = Lanes{} + 0.0f;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < n; ++t) luma += weight[b] * basic[size_t(b) * block_size + size_t(t)];
  const float intensity = nlb_intensity(params, sum_lanes(luma) * inverse_weight / float(n));
  float variance[3], flat_value[3];
  bool flat[3], all_flat = true;
  for (int c = 0; c < channels; ++c) {
    variance[c] = nlb_noise_variance(*job.noise, job.scale, c, intensity);
    Lanes sum = Lanes{} + 0.0f, guide_sum = Lanes{} + 0.0f;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < n; ++t) {
        sum += weight[b] * noisy[size_t(b) * block_size + size_t(c * n + t)];
        guide_sum += weight[b] * basic[size_t(b) * block_size + size_t(c * n + t)];
      }
    const float mean = sum_lanes(sum) * inverse_weight / float(n);
    Lanes squares = Lanes{} + 0.0f;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < n; ++t) {
        const Lanes d = noisy[size_t(b) * block_size + size_t(c * n + t)] - mean;
        squares += weight[b] * d * d;
      }
    flat[c] = nlb_is_flat(params, c, sum_lanes(squares) * inverse_weight / float(n), variance[c]);
    flat_value[c] = second ? sum_lanes(guide_sum) * inverse_weight / float(n) : mean;
    all_flat = all_flat && flat[c];
  }

  const float noise_scale = nlb_noise_scale(params, step);
  const float covariance_scale = nlb_covariance_scale(members) * inverse_weight;
  Lanes* const centred = lanes_of(s.centred, size_t(blocks) * block_size);
  Lanes* const solved = lanes_of(s.solved, size_t(blocks) * block_size);
  if (s.matrix.size() < size_t(dim) * size_t(dim)) s.matrix.resize(size_t(dim) * size_t(dim));
  float* const matrix = s.matrix.data();
  // The members' deviations from their weighted mean over dim samples
  // starting at `first` of each block: into `out`.
  auto centre = [&](const Lanes* source, int first, Lanes* out, float* mean) {
    for (int i = 0; i < dim; ++i) {
      Lanes sum = Lanes{} + 0.0f;
      for (int b = 0; b < blocks; ++b) sum += weight[b] * source[size_t(b) * block_size + size_t(first + i)];
      mean[i] = sum_lanes(sum) * inverse_weight;
      for (int b = 0; b < blocks; ++b)
        out[size_t(b) * block_size + size_t(first + i)] = source[size_t(b) * block_size + size_t(first + i)] - mean[i];
    }
  };
  // matrix = the weighted covariance of `deviations` (dim samples from `first`).
  auto covariance = [&](const Lanes* deviations, int first) {
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j <= i; ++j) {
        Lanes sum = Lanes{} + 0.0f;
        for (int b = 0; b < blocks; ++b)
          sum += weight[b] * deviations[size_t(b) * block_size + size_t(first + i)] *
                 deviations[size_t(b) * block_size + size_t(first + j)];
        matrix[i * dim + j] = matrix[j * dim + i] = sum_lanes(sum) * covariance_scale;
      }
  };
  float mean[3 * kNlbMaxPatch * kNlbMaxPatch];
  if (!all_flat && !second && members >= n) {
    for (int c = 0; c < channels; ++c) {
      if (flat[c]) continue;
      centre(noisy, c * n, centred, mean);
      covariance(centred, c * n);
      nlb_cholesky(matrix, n, n, noise_scale * variance[c]);
      const NlbNoiseChannel& noise = job.noise->channel[job.scale][c];
      const float scaled = noise_scale * variance[c];
      for (int b = 0; b < blocks; ++b) {
        Lanes* x = solved + size_t(b) * block_size + size_t(c * n);
        std::memcpy(static_cast<void*>(x), centred + size_t(b) * block_size + size_t(c * n), sizeof(Lanes) * size_t(n));
        nlb_cholesky_solve(matrix, n, n, x);
        Lanes* e = estimate + size_t(b) * block_size + size_t(c * n);
        for (int t = 0; t < n; ++t) e[t] -= job.noise->white ? scaled * x[t] : noise_times(noise, scaled, p, t, x);
      }
    }
  } else if (!all_flat && second) {
    float basic_mean[3 * kNlbMaxPatch * kNlbMaxPatch];
    centre(noisy, 0, solved, mean);  // the noisy residuals, solved in place below
    centre(basic, 0, centred, basic_mean);
    covariance(centred, 0);
    for (int c = 0; c < channels; ++c) {
      const NlbNoiseChannel& noise = job.noise->channel[job.scale][c];
      const float scaled = noise_scale * variance[c];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          matrix[(c * n + i) * dim + c * n + j] += scaled * nlb_autocovariance(noise, p, i, j);
    }
    float noise_diagonal = 0.0f;
    for (int c = 0; c < channels; ++c) noise_diagonal += noise_scale * variance[c];
    nlb_cholesky(matrix, dim, dim, noise_diagonal / float(channels));
    for (int b = 0; b < blocks; ++b) {
      Lanes* x = solved + size_t(b) * block_size;
      nlb_cholesky_solve(matrix, dim, dim, x);
      Lanes* e = estimate + size_t(b) * block_size;
      for (int c = 0; c < channels; ++c) {
        const NlbNoiseChannel& noise = job.noise->channel[job.scale][c];
        const float scaled = noise_scale * variance[c];
        for (int t = 0; t < n; ++t)
          e[c * n + t] -= job.noise->white ? scaled * x[c * n + t] : noise_times(noise, scaled, p, t, x + c * n);
      }
    }
  }
  for (int c = 0; c < channels; ++c)
    if (flat[c])
      for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < n; ++t) estimate[size_t(b) * block_size + size_t(c * n + t)] = Lanes{} + flat_value[c];

  // Aggregation, member by member, rows the slab keeps only.
  for (int m = 0; m < members; ++m) {
    const Lanes* e = estimate + size_t(m / kLanes) * block_size;
    const int lane = m % kLanes, x = s.member_x[size_t(m)];
    const float w = weight[m / kLanes][lane];
    for (int ty = 0; ty < p; ++ty) {
      const int y = s.member_y[size_t(m)] + ty;
      if (y < sums.row0 || y >= sums.row0 + sums.rows) continue;
      for (int c = 0; c < channels; ++c) {
        float* numerator = sums.plane_row(c, y) + x;
        for (int tx = 0; tx < p; ++tx) numerator[tx] += w * e[c * n + ty * p + tx][lane];
      }
      float* denominator = sums.plane_row(channels, y) + x;
      for (int tx = 0; tx < p; ++tx) denominator[tx] += w;
    }
  }
}

void process_row(const NlbStepJob& job, int reference_y, NlbScratch& scratch, const NlbSums& sums) {
  const int width = job.noisy->width, p = job.patch, step = job.step->step;
  const int count = nlb_grid_count(width, p, step);
  for (int k = 0; k < count; ++k)
    process_reference(job, nlb_grid_position(k, width, p, step), reference_y, scratch, sums);
}

}  // namespace

NlbRowFunction select_nlbayes() { return process_row; }

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
