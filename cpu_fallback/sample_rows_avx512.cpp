// The row conversions of core/sample_rows.h built for the avx512 instruction
// set (see CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE avx512
#include "sample_rows.h"

namespace edgewise::cpu::avx512 {

SampleRows sample_rows() { return {unpack_samples, pack_samples}; }

}  // namespace edgewise::cpu::avx512
