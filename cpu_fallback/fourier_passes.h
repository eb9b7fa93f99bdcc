// The Fourier bilateral filter's two passes, compiled once per instruction
// set (fourier_passes_*.cpp define EW_ISA_NAMESPACE before including it).
// Columns first: the halo rows a band carries for the spatial Gaussian then
// cost only their term values and the column recursion, and the row pass
// runs on output rows alone. An 8-float vector is one pixel's four terms
// (cos and sin each), so the recursions, which run along a row or a column
// one sample after another, are vectorised across terms. Every pixel is
// computed in the same order whatever the band or the thread: results do
// not depend on the thread count.
#include <algorithm>
#include <cstring>

#include "fourier_cpu.h"
#include "fourier_math.h"

namespace edgewise::cpu::EW_ISA_NAMESPACE {

namespace {

using Lanes = float_lanes<kFourierLanes>;

inline Lanes load(const float* from) {
  Lanes value;
  std::memcpy(&value, from, sizeof value);
  return value;
}

inline void store(float* to, Lanes value) { std::memcpy(to, &value, sizeof value); }

inline float lane_sum(Lanes v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }

// cos and sin swapped within each term's pair of lanes.
inline Lanes swap_pairs(Lanes v) {
#if defined(__clang__)  // clang has no __builtin_shuffle (the CI's sanitizer stage builds with clang)
  return __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6);
#else
  typedef int Mask __attribute__((vector_size(32)));
  return __builtin_shuffle(v, Mask{1, 0, 3, 2, 5, 4, 7, 6});
#endif
}

struct GroupLanes {
  Lanes frequency, phase, denominator, numerator;
  explicit GroupLanes(const FourierGroup& g)
      : frequency(load(g.frequency)),
        phase(load(g.phase)),
        denominator(load(g.denominator)),
        numerator(load(g.numerator)) {}
  Lanes terms(float centred) const { return fourier_term(Lanes{} + centred, frequency, phase); }
};

void column_pass(const FourierParams& p, const float* taps, const FourierGroup& group, const FourierBandView& view,
                 int x0, int x1, FourierScratch& scratch) {
  constexpr int B = kFourierBlockColumns;
  const GroupLanes lanes(group);
  const int rows = view.rows, reach = view.reach, out_rows = view.out_rows, columns = x1 - x0;
  float* const X = scratch.block.data();  // band row i, column b at (i * B + b) * 8
  for (int i = 0; i < rows; ++i) {
    const float* u = view.samples + size_t(i) * view.stride + x0;
    const float* a = view.alpha ? view.alpha + size_t(i) * view.stride + x0 : nullptr;
    for (int b = 0; b < columns; ++b) {
      Lanes t = lanes.terms(u[b]);
      if (a) t *= a[b];
      store(X + (size_t(i) * B + size_t(b)) * kFourierLanes, t);
    }
  }
  auto term = [&](int i, int b) { return load(X + (size_t(i) * B + size_t(b)) * kFourierLanes); };
  auto target = [&](int j, int b) {
    return view.terms + (size_t(j) * size_t(view.width) + size_t(x0 + b)) * kFourierLanes;
  };

  if (!p.recursive) {
    const int r = p.radius;
    for (int j = 0; j < out_rows; ++j)
      for (int b = 0; b < columns; ++b) {
        const int i = j + reach;
        Lanes sum = term(i, b) * taps[0];
        for (int n = 1; n <= r; ++n) sum += (term(i - n, b) + term(i + n, b)) * taps[n];
        store(target(j, b), sum);
      }
    return;
  }
  // The recursion's sections drop the sample leaving the window (r + 1
  // back), clamped to the band's first or last row as its start assumes.
  const int r = p.radius;
  FourierRecursion<Lanes> recursion[B];
  // Anticausal part from the band's last row up (clamp-to-edge start), less
  // the centre tap the causal part holds too.
  for (int b = 0; b < columns; ++b) recursion[b].start(p, term(rows - 1, b));
  for (int i = rows - 1; i >= reach; --i) {
    const int leaving = std::min(i + r + 1, rows - 1);
    for (int b = 0; b < columns; ++b) {
      const Lanes x = term(i, b);
      const Lanes y = recursion[b].step(p, x, term(leaving, b));
      if (i < reach + out_rows) store(target(i - reach, b), y - x * p.centre);
    }
  }
  for (int b = 0; b < columns; ++b) recursion[b].start(p, term(0, b));
  for (int i = 0; i < reach + out_rows; ++i) {
    const int leaving = std::max(i - r - 1, 0);
    for (int b = 0; b < columns; ++b) {
      const Lanes y = recursion[b].step(p, term(i, b), term(leaving, b));
      if (i >= reach) {
        float* to = target(i - reach, b);
        store(to, load(to) + y);
      }
    }
  }
}

void row_pass(const FourierParams& p, const float* taps, const FourierGroup& group, const FourierBandView& view, int j,
              FourierScratch& scratch) {
  const GroupLanes lanes(group);
  const int width = view.width;
  float* const Y = scratch.row.data();
  const float* V = view.terms + size_t(j) * size_t(width) * kFourierLanes;
  auto at = [&](const float* plane, int x) { return load(plane + size_t(x) * kFourierLanes); };

  const float* u = view.samples + size_t(j + view.reach) * view.stride;
  float* D = view.denominator + size_t(j) * size_t(width);
  float* E = view.numerator ? view.numerator + size_t(j) * size_t(width) : nullptr;
  // The blurred lanes at x, combined with the pixel's own term values.
  auto combine = [&](int x, Lanes y) {
    const Lanes t = lanes.terms(u[x]);
    D[x] += lane_sum(lanes.denominator * t * y);
    if (E) E[x] += lane_sum(lanes.numerator * swap_pairs(t) * y);
  };
  if (p.recursive) {
    const int r = p.radius;
    FourierRecursion<Lanes> recursion;
    recursion.start(p, at(V, width - 1));
    for (int x = width - 1; x >= 0; --x) {
      const Lanes v = at(V, x);
      store(Y + size_t(x) * kFourierLanes, recursion.step(p, v, at(V, std::min(x + r + 1, width - 1))) - v * p.centre);
    }
    recursion.start(p, at(V, 0));
    for (int x = 0; x < width; ++x)
      combine(x, at(Y, x) + recursion.step(p, at(V, x), at(V, std::max(x - r - 1, 0))));
  } else {
    const int r = p.radius;
    for (int x = 0; x < width; ++x) {
      Lanes sum = at(V, x) * taps[0];
      for (int n = 1; n <= r; ++n) sum += (at(V, std::max(x - n, 0)) + at(V, std::min(x + n, width - 1))) * taps[n];
      combine(x, sum);
    }
  }
}

}  // namespace

FourierPasses fourier_passes() { return {column_pass, row_pass}; }

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
