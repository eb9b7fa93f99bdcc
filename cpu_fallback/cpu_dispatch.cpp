#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "bilateral_cpu.h"
#include "color_rows.h"
#include "cpu_sample_rows.h"
#include "nlbayes_cpu.h"
#include "nlm_cpu.h"

namespace edgewise::cpu {

namespace {

enum class Isa { generic, avx2, avx512 };

Isa machine() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // The AVX-512 units are built with F, VL and DQ.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
  return Isa::generic;
}

// EDGEWISE_CPU_ISA (generic, avx2, avx512) caps the instruction set, so the
// tests run every variant this machine can (tests/CMakeLists.txt) and
// benchmarks compare them; it never raises it above the machine's. Read
// once: kernels that keep their choice (color_rows) must agree with the rest.
Isa detect() {
  static const Isa isa = [] {
    const Isa widest = machine();
    const char* cap = std::getenv("EDGEWISE_CPU_ISA");
    if (!cap || !*cap) return widest;
    const Isa asked = std::strcmp(cap, "generic") == 0 ? Isa::generic
                      : std::strcmp(cap, "avx2") == 0  ? Isa::avx2
                                                       : Isa::avx512;
    return std::min(asked, widest);
  }();
  return isa;
}

}  // namespace

const char* instruction_set() {
  switch (detect()) {
    case Isa::avx512:
      return "avx512";
    case Isa::avx2:
      return "avx2";
    default:
      return "generic";
  }
}

RowFunction select_row_function(const BilateralParams& params) {
  switch (detect()) {
    case Isa::avx512:
      return avx512::select(params);
    case Isa::avx2:
      return avx2::select(params);
    default:
      return generic::select(params);
  }
}

NlmTileFunction select_nlm_tile_function(const NlmParams& params) {
  switch (detect()) {
    case Isa::avx512:
      return avx512::select_nlm(params);
    case Isa::avx2:
      return avx2::select_nlm(params);
    default:
      return generic::select_nlm(params);
  }
}

NlbRowFunction select_nlbayes_row_function() {
  switch (detect()) {
    case Isa::avx512:
      return avx512::select_nlbayes();
    case Isa::avx2:
      return avx2::select_nlbayes();
    default:
      return generic::select_nlbayes();
  }
}

const ColorRows& color_rows() {
  static const ColorRows rows = [] {
    switch (detect()) {
      case Isa::avx512:
        return avx512::color_rows();
      case Isa::avx2:
        return avx2::color_rows();
      default:
        return generic::color_rows();
    }
  }();
  return rows;
}

const SampleRows& sample_rows() {
  static const SampleRows rows = [] {
    switch (detect()) {
      case Isa::avx512:
        return avx512::sample_rows();
      case Isa::avx2:
        return avx2::sample_rows();
      default:
        return generic::sample_rows();
    }
  }();
  return rows;
}

}  // namespace edgewise::cpu
