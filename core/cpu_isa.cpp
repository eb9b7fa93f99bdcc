#include "cpu_isa.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace edgewise {

CpuIsa widest_cpu_isa() {
  static const CpuIsa widest = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    // The AVX-512 code is built with F, VL and DQ.
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      return CpuIsa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::avx2;
#endif
    return CpuIsa::generic;
  }();
  return widest;
}

CpuIsa cpu_isa() {
  static const CpuIsa isa = [] {
    const CpuIsa widest = widest_cpu_isa();
    const char* cap = std::getenv("EDGEWISE_CPU_ISA");
    if (!cap || !*cap) return widest;
    const CpuIsa asked = std::strcmp(cap, "generic") == 0 ? CpuIsa::generic
                         : std::strcmp(cap, "avx2") == 0  ? CpuIsa::avx2
                                                          : CpuIsa::avx512;
    return std::min(asked, widest);
  }();
  return isa;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512:
      return "avx512";
    case CpuIsa::avx2:
      return "avx2";
    default:
      return "generic";
  }
}

}  // namespace edgewise
