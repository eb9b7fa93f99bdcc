// The Fourier bilateral passes built for the avx2 instruction set (see
// CMakeLists.txt for the flags); avx512 machines run them too.
#define EW_ISA_NAMESPACE avx2
#include "fourier_passes.h"
