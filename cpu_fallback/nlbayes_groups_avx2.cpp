// The collaborative denoiser's group function built for the avx2 instruction set
// (see CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE avx2
#define EW_LANE_WIDTH 8
#include "nlbayes_groups.h"
