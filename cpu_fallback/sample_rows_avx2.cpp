// The row conversions of core/sample_rows.h built for the avx2 instruction
// set (see CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE avx2
#include "sample_rows.h"

namespace edgewise::cpu::avx2 {

SampleRows sample_rows() { return {unpack_samples, pack_samples}; }

}  // namespace edgewise::cpu::avx2
