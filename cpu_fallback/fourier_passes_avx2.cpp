// The Fourier bilateral passes built for the avx2 instruction set (see
// CMakeLists.txt for the flags); 8 float lanes per vector.
#define EW_ISA_NAMESPACE avx2
#define EW_LANE_WIDTH 8
#include "fourier_passes.h"
