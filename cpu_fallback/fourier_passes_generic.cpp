// The Fourier bilateral passes built for the baseline instruction set (see
// CMakeLists.txt for the flags); 4 float lanes per vector.
#define EW_ISA_NAMESPACE generic
#define EW_LANE_WIDTH 4
#include "fourier_passes.h"
