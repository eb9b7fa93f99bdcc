// The row conversions of core/sample_rows.h built for the generic instruction
// set (see CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE generic
#include "sample_rows.h"

namespace edgewise::cpu::generic {

SampleRows sample_rows() { return {unpack_samples, pack_samples}; }

}  // namespace edgewise::cpu::generic
