#include "bilateral_cpu.h"
#include "color_rows.h"
#include "cpu_isa.h"
#include "cpu_sample_rows.h"
#include "fourier_cpu.h"
#include "nlbayes_cpu.h"
#include "nlm_cpu.h"

namespace edgewise::cpu {

// The one instruction-set switch: returns CALL from the namespace of the
// machine's instruction set (core's cpu_isa(), which the noise network's
// forward pass reads too). A kernel family adds its entry to each of the
// namespaces generic, avx2 and avx512 and one function here.
#define EW_FOR_MACHINE_ISA(CALL)   \
  switch (cpu_isa()) {             \
    case CpuIsa::avx512:           \
      return avx512::CALL;         \
    case CpuIsa::avx2:             \
      return avx2::CALL;           \
    default:                       \
      return generic::CALL;        \
  }

const char* instruction_set() { return cpu_isa_name(cpu_isa()); }

RowFunction select_row_function(const BilateralParams& params) { EW_FOR_MACHINE_ISA(select(params)) }

NlmTileFunction select_nlm_tile_function(const NlmParams& params) { EW_FOR_MACHINE_ISA(select_nlm(params)) }

NlbRowFunction select_nlbayes_row_function() { EW_FOR_MACHINE_ISA(select_nlbayes()) }

FourierPasses select_fourier_passes() { EW_FOR_MACHINE_ISA(fourier_passes()) }

// The tables of row functions: chosen once.
const ColorRows& color_rows() {
  static const ColorRows rows = []() -> ColorRows { EW_FOR_MACHINE_ISA(color_rows()) }();
  return rows;
}

const SampleRows& sample_rows() {
  static const SampleRows rows = []() -> SampleRows { EW_FOR_MACHINE_ISA(sample_rows()) }();
  return rows;
}

#undef EW_FOR_MACHINE_ISA

}  // namespace edgewise::cpu
