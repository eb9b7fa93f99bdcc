// The CPU backend's row conversions between stored and planar samples
// (core/sample_rows.h), built once per instruction set (sample_rows_*.cpp;
// cpu_dispatch.cpp picks one), for unpacking and packing its bands.
#pragma once

#include "sample_rows.h"

namespace edgewise::cpu {

const SampleRows& sample_rows();

namespace generic {
SampleRows sample_rows();
}
namespace avx2 {
SampleRows sample_rows();
}
namespace avx512 {
SampleRows sample_rows();
}

}  // namespace edgewise::cpu
