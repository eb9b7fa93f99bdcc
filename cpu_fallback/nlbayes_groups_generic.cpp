// The collaborative denoiser's group function built for the generic instruction set
// (see CMakeLists.txt for the flags).
#define EW_ISA_NAMESPACE generic
#define EW_LANE_WIDTH 4
#include "nlbayes_groups.h"
