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

// cos and sin swapped within each term's pair of lanes (GCC 12 and clang
// both have __builtin_shufflevector).
inline Lanes swap_pairs(Lanes v) { return __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6); }

// The lane sums of d and e together, each ((0 + 1) + (2 + 3)) + ((4 + 5) +
// (6 + 7)): two vector additions and three shuffles for both.
inline void lane_sums(Lanes d, Lanes e, float& d_sum, float& e_sum) {
  const Lanes pairs = __builtin_shufflevector(d, e, 0, 2, 8, 10, 4, 6, 12, 14) +
                      __builtin_shufflevector(d, e, 1, 3, 9, 11, 5, 7, 13, 15);  // d01 d23 e01 e23 d45 d67 e45 e67
  const Lanes quads = pairs + swap_pairs(pairs);                              // d0-3 . e0-3 . d4-7 . e4-7 .
  d_sum = quads[0] + quads[4];
  e_sum = quads[2] + quads[6];
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

// The output rows are done in chunks, each with its own term values and
// anticausal sums in the thread's scratch (L2-sized: a chunk's rows of
// kFourierBlockColumns pixels), so the full-height lanes are written once.
// A recursive chunk starts r + 1 rows early on either side: the truncated
// recursion holds exactly the window's samples once r + 1 have passed.
void column_pass(const FourierParams& p, const float* taps, const FourierGroup& group, const FourierBandView& view,
                 int x0, int x1, FourierScratch& scratch) {
  constexpr int B = kFourierBlockColumns;
  const GroupLanes lanes(group);
  const int rows = view.rows, reach = view.reach, columns = x1 - x0, r = p.radius;
  const int chunk = fourier_chunk_rows(p);
  float* const X = scratch.block.data();  // band row lo + i, column b at (i * B + b) * 8
  float* const A = X + size_t(fourier_chunk_band_rows(p)) * B * kFourierLanes;  // chunk row j, the same way
  auto at = [](float* plane, int i, int b) { return plane + (size_t(i) * B + size_t(b)) * kFourierLanes; };
  auto target = [&](int j, int b) {
    return view.terms + (size_t(j) * size_t(view.width) + size_t(x0 + b)) * kFourierLanes;
  };
  for (int j0 = 0; j0 < view.out_rows; j0 += chunk) {
    const int j1 = std::min(view.out_rows, j0 + chunk);
    const int low = j0 + reach, high = j1 - 1 + reach;  // the chunk's band rows
    const int lo = std::max(low - r - (p.recursive ? 1 : 0), 0);
    const int hi = std::min(high + r + (p.recursive ? 1 : 0), rows - 1);
    for (int i = lo; i <= hi; ++i) {
      const float* u = view.samples + size_t(i) * view.stride + x0;
      const float* a = view.alpha ? view.alpha + size_t(i) * view.stride + x0 : nullptr;
      for (int b = 0; b < columns; ++b) {
        Lanes t = lanes.terms(u[b]);
        if (a) t *= a[b];
        store(at(X, i - lo, b), t);
      }
    }
    auto term = [&](int i, int b) { return load(at(X, i - lo, b)); };
    if (!p.recursive) {
      for (int i = low; i <= high; ++i)
        for (int b = 0; b < columns; ++b) {
          Lanes sum = term(i, b) * taps[0];
          for (int n = 1; n <= r; ++n) sum += (term(i - n, b) + term(i + n, b)) * taps[n];
          store(target(i - reach, b), sum);
        }
      continue;
    }
    FourierRecursion<Lanes> recursion[B];
    // Anticausal from hi up (clamp-to-edge start), less the centre tap the
    // causal part holds too.
    for (int b = 0; b < columns; ++b) recursion[b].start(p, term(hi, b));
    for (int i = hi; i >= low; --i) {
      const int leaving = std::min(i + r + 1, hi);
      for (int b = 0; b < columns; ++b) {
        const Lanes x = term(i, b);
        const Lanes y = recursion[b].step(p, x, term(leaving, b));
        if (i <= high) store(at(A, i - low, b), y - x * p.centre);
      }
    }
    for (int b = 0; b < columns; ++b) recursion[b].start(p, term(lo, b));
    for (int i = lo; i <= high; ++i) {
      const int leaving = std::max(i - r - 1, lo);
      for (int b = 0; b < columns; ++b) {
        const Lanes y = recursion[b].step(p, term(i, b), term(leaving, b));
        if (i >= low) store(target(i - reach, b), load(at(A, i - low, b)) + y);
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
    float d, e;
    lane_sums(lanes.denominator * t * y, lanes.numerator * swap_pairs(t) * y, d, e);
    D[x] += d;
    if (E) E[x] += e;
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
