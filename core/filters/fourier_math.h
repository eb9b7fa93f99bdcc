// The Fourier bilateral filter's per-pixel math, written once for every
// backend (EW_HD): the CPU instantiates it with GCC vectors whose lanes are
// the series' terms, the CUDA kernels with one float per thread. Backends
// decide only how they walk the image; the phases, the term values, the
// spatial recursion's steps and the output formula are here, so the two
// cannot disagree on what a pixel is.
#pragma once

#include "fourier.h"
#include "lanes.h"

// The CPU compiles these templates once per instruction set on the same
// vector type (cpu_fallback/fourier_passes_*.cpp), and the two copies differ
// in ABI: under avx2 an 8-float vector travels in a ymm register, in the
// baseline build in memory. Out-of-line instantiations (clang kept
// FourierRecursion::step out of line) have one mangled name, so the linker
// kept one copy for both sets, and the avx2 passes called the baseline step
// with their arguments where it did not look for them: outputs of 0 or 1
// after the clamp. An inline namespace per instruction set gives each its
// own names; elsewhere (scalars, CUDA) it is `shared`.
#if defined(EW_ISA_NAMESPACE)
#define EW_FOURIER_MATH_PASTE(a, b) a##b
#define EW_FOURIER_MATH_NAME(isa) EW_FOURIER_MATH_PASTE(math_, isa)
#define EW_FOURIER_MATH EW_FOURIER_MATH_NAME(EW_ISA_NAMESPACE)
#else
#define EW_FOURIER_MATH math_shared
#endif

namespace edgewise {
inline namespace EW_FOURIER_MATH {

// The nearest integer, as a float, for |x| < 2^22 (adding 1.5 * 2^23 leaves
// no fraction bits); the same operations on every backend and SIMD lane.
template <class T>
EW_HD T fourier_round(T x) {
  const T shifted = x + 12582912.0f;
  return shifted - 12582912.0f;
}

// sin(2 pi t) for any t of moderate size (the phases here stay below 65
// turns): the turn's fraction r in [-1/2, 1/2], folded into [-1/4, 1/4] by
// sin(pi - x) = sin x (1/2 - r is exact there), then the Taylor polynomial
// of degree 11 on [-pi/2, pi/2] (remainder below 6e-8). No quadrant
// selects: one fold, six FMAs.
template <class T>
EW_HD T fourier_sin_turns(T t) {
  const T r = t - fourier_round(t);
  const T half = r < 0.0f ? T{} - 0.5f : T{} + 0.5f;
  const T folded = ((r > 0.25f) | (r < -0.25f)) ? half - r : r;
  const T x = folded * 6.283185307179586f;
  const T x2 = x * x;
  return x * (1.0f +
              x2 * (-1.0f / 6.0f + x2 * (1.0f / 120.0f + x2 * (-1.0f / 5040.0f +
                                                               x2 * (1.0f / 362880.0f + x2 * (-1.0f / 39916800.0f))))));
}

// The value a term lane holds at a sample: sin(2 pi (u k / T + phase)),
// i.e. cos(w k u) for phase 1/4 and sin(w k u) for phase 0, where
// `frequency` = k / T (channel.turns_per_unit * k).
template <class T, class F>
EW_HD T fourier_term(T centred, F frequency, F phase) {
  return fourier_sin_turns(centred * frequency + phase);
}

// cos(w k u) and sin(w k u) together (fourier_term at phases 1/4 and 0).
// The CPU evaluates the polynomial twice, vectorised across pixels (for the
// first term of a pass and for term 1; the rest by fourier_rotate). The GPU
// reduces the turns once and uses the hardware's cos.approx and sin.approx
// on [-pi, pi] (absolute error under 2^-21, against the polynomial's 6e-8):
// the two polynomials were about half of the column kernel's instructions,
// as ex2.approx stands in for exp2_poly in fast_exp.h. An error of 2^-21 in
// a lane moves D and E by about that times the series' coefficients, under
// the backends' 2e-4 agreement bound even where D sits at its floor.
template <class T, class F>
EW_HD void fourier_term_pair(T centred, F frequency, T& cosine, T& sine) {
#if defined(__CUDA_ARCH__)
  const T turns = centred * frequency;
  const T radians = (turns - fourier_round(turns)) * 6.283185307179586f;
  __sincosf(radians, &sine, &cosine);
#else
  cosine = fourier_term(centred, frequency, F(0.25f));
  sine = fourier_term(centred, frequency, F(0.0f));
#endif
}

// The next term's pair from this one's: (cos, sin) of (k + 1) x from those
// of k x and of x, by the angle addition formulas (a rotation: its rounding
// adds up over the steps without growing, about 1e-7 a step). The GPU
// evaluates a few consecutive terms' values this way from two
// fourier_sin_turns pairs instead of two pairs a term.
template <class T>
EW_HD void fourier_rotate(T& c, T& s, T base_c, T base_s) {
  const T next_c = c * base_c - s * base_s;
  s = s * base_c + c * base_s;
  c = next_c;
}

// A sample in working units, clamped to its channel's range and centred.
template <class T>
EW_HD T fourier_centred(const FourierChannel& channel, T value) {
  return ew_min(ew_max(value, T{} + channel.low), T{} + channel.high) - channel.middle;
}

// The filtered sample: u_p + E / max(D, D_min A, D_floor), kept within the
// channel's range (fourier.h), back in working units. A is the blurred
// alpha (1 without alpha).
template <class T>
EW_HD T fourier_output(const FourierParams& p, const FourierChannel& channel, T centred, T numerator, T denominator,
                       T alpha_mass) {
  const T least = ew_max(alpha_mass * p.min_denominator, T{} + p.denominator_floor);
  const T moved = centred + numerator / ew_max(denominator, least);
  return ew_min(ew_max(moved, T{} - channel.half_range), T{} + channel.half_range) + channel.middle;
}

// ---- reduced resolution (fourier_design.h, CoarseGrid) ----

// The cell grid's place of pixel x >= 0 (a column or a row of the image):
// the cell `cell` and the next one surround it, the next weighing `weight`
// (a value is v[cell] + weight (v[cell + 1] - v[cell]) on every backend).
EW_HD void fourier_coarse_position(const FourierParams& p, int x, int& cell, float& weight) {
  const int q = x / p.coarse_step, m = x - q * p.coarse_step;
  cell = q + p.coarse_shift[m];
  weight = p.coarse_weight[m];
}

// The first and last cells whose blurred values the pixels 0 .. n - 1 of a
// row or column interpolate between.
EW_HD int fourier_coarse_first(const FourierParams& p) { return p.coarse_shift[0]; }
EW_HD int fourier_coarse_last(const FourierParams& p, int n) {
  int cell;
  float weight;
  fourier_coarse_position(p, n - 1, cell, weight);
  return cell + 1;
}

// ---- the spatial Gaussian's recursion (fourier_design.h) ----

// One complex first-order section's state: u[n] = x[n] + z u[n-1] - z^(r+1) x[n-r-1].
template <class T>
struct FourierSection {
  T re, im;
};

// Two sections per direction: the causal part holds samples n-r .. n, the
// anticausal part n .. n+r; their outputs Re(c u) sum to the filter, less
// centre * x counted twice.
template <class T>
struct FourierRecursion {
  FourierSection<T> section[2];

  // The state of no samples at all: a segment's own start in a recursion
  // cut into segments (cuda/fourier.cu), whose true start is carried in.
  EW_HD void clear() {
    for (int i = 0; i < 2; ++i) section[i].re = section[i].im = T{};
  }

  // The state after a constant run of x (clamp-to-edge).
  EW_HD void start(const FourierParams& p, T x) {
    for (int i = 0; i < 2; ++i) {
      section[i].re = x * p.steady_re[i];
      section[i].im = x * p.steady_im[i];
    }
  }

  // Takes sample x, drops `leaving` (the sample r + 1 back); returns sum_i Re(c_i u_i).
  EW_HD T step(const FourierParams& p, T x, T leaving) {
    T out = T{};
    for (int i = 0; i < 2; ++i) {
      const T re = x + p.pole_re[i] * section[i].re - p.pole_im[i] * section[i].im - p.leaving_re[i] * leaving;
      section[i].im = p.pole_re[i] * section[i].im + p.pole_im[i] * section[i].re - p.leaving_im[i] * leaving;
      section[i].re = re;
      out = out + p.residue_re[i] * section[i].re - p.residue_im[i] * section[i].im;
    }
    return out;
  }
};

// A section's state carried through n more steps: since the recursion is
// linear, a segment's true state is its own (from clear()) plus the state
// it started from times z^n, n its length (power = z^n). The block-parallel
// recursion on the GPU joins its segments with this.
template <class T>
EW_HD FourierSection<T> fourier_carry(FourierSection<T> own, FourierSection<T> start, float power_re, float power_im) {
  return {own.re + power_re * start.re - power_im * start.im, own.im + power_re * start.im + power_im * start.re};
}

}  // namespace EW_FOURIER_MATH
}  // namespace edgewise
