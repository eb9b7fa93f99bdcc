// REQUIRE_TENSOR_CORES(): skip a test of the learned networks' GPU forward
// passes (cuda/mma_conv.h's tensor-core kernels) with the reason where no
// usable GPU exists or the one here cannot run them (compute capability
// below 8.0). For tests built with EDGEWISE_HAVE_CUDA=1 only.
#pragma once

#include <string>

#include "denoise_net_cuda.h"  // denoise_net_unsupported: the tensor cores' requirement
#include "test_support.h"

#define REQUIRE_TENSOR_CORES()                                                             \
  do {                                                                                     \
    REQUIRE_GPU();                                                                         \
    const std::string why = ::edgewise::cuda::denoise_net_unsupported();                   \
    if (!why.empty()) GTEST_SKIP() << "the GPU cannot run the learned networks: " << why;  \
  } while (0)
