// The collaborative denoiser's group function built for the avx512 instruction set
// (see CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE avx512
#define EW_LANE_WIDTH 16
#include "nlbayes_groups.h"
