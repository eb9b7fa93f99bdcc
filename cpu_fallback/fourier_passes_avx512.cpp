// The Fourier bilateral passes built for the avx512 instruction set (see
// CMakeLists.txt for the flags); 16 float lanes per vector.
#define EW_ISA_NAMESPACE avx512
#define EW_LANE_WIDTH 16
#include "fourier_passes.h"
