// The Fourier bilateral passes built for the baseline instruction set (see
// CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE generic
#include "fourier_passes.h"
