#include "bilateral_cpu.h"

namespace edgewise::cpu {

// Decided per process, so every band and thread of a job uses one code path
// and results stay bit-identical across band heights and thread counts.
RowKernel select_row_kernel(const BilateralParams& params) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {avx512::select(params), "avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {avx2::select(params), "avx2"};
#endif
  return {generic::select(params), "generic"};
}

}  // namespace edgewise::cpu
