#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "bilateral_cpu.h"
#include "color_rows.h"
#include "cpu_isa.h"
#include "cpu_sample_rows.h"
#include "nlbayes_cpu.h"
#include "nlm_cpu.h"

namespace edgewise::cpu {

namespace {

// The instruction set comes from core (cpu_isa.h), which the noise
// network's forward pass reads too.
using Isa = edgewise::CpuIsa;
Isa detect() { return cpu_isa(); }

}  // namespace

const char* instruction_set() { return cpu_isa_name(detect()); }

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
