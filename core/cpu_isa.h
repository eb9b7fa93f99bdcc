// The x86 vector instruction set the CPU code runs: the widest the
// processor has, capped by EDGEWISE_CPU_ISA (generic, avx2, avx512) so that
// the tests run every variant a machine can and benchmarks compare them;
// never raised above the processor's. One place for the CPU backend's
// kernels (cpu_fallback/cpu_dispatch.cpp) and the noise network's forward
// pass (noise_net_forward.cpp), so that both agree.
#pragma once

namespace edgewise {

enum class CpuIsa { generic, avx2, avx512 };

// What the processor runs: avx512 with F, VL and DQ; avx2 with FMA.
CpuIsa widest_cpu_isa();
// The widest capped by EDGEWISE_CPU_ISA, read once per process.
CpuIsa cpu_isa();
const char* cpu_isa_name(CpuIsa isa);  // "generic", "avx2", "avx512"

}  // namespace edgewise
