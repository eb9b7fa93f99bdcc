// One convolution layer on the CPU, the noise network's kernels
// (noise_net_forward.cpp), shared with the learned denoiser's forward pass
// (denoise_net_forward.cpp).
//
// Activations are HWC, each pixel `stride` floats (the channels padded to
// 16 but for a first layer's R'G'B'), with a zero border of the reading
// layer's kernel / 2; the weights are packed as pack_conv makes them
// ([ky][kx][in'][out'], noise_net.h).
#pragma once

#include <cstddef>

#include "noise_net.h"

namespace edgewise {

// One layer over the whole output.
struct ConvArgs {
  const float* in;    // the input's padded origin (its border's corner)
  size_t in_row;      // floats a padded input row
  int in_stride;      // floats an input pixel
  float* out;         // the output's first interior pixel
  size_t out_row;     // floats an output row, border included
  int out_stride;     // floats an output pixel (the layer's out')
  int width, height;  // the output's interior
  const float* weights;
  const float* bias;
  int kernel, step;  // step: the stride
  bool relu;
};

// The layer with one instruction set's kernels (nn_conv_*.cpp); the AVX
// ones only where the processor has that set.
void nn_conv_generic(const ConvArgs& a);
void nn_conv_avx2(const ConvArgs& a);
void nn_conv_avx512(const ConvArgs& a);

// Runs the layer with the kernels of `isa` (automatic: the machine's, as
// noise_net_forward picks them).
void nn_conv(NoiseNetIsa isa, const ConvArgs& a);
// The instruction set `isa` runs as on this machine.
NoiseNetIsa nn_resolve_isa(NoiseNetIsa isa);

}  // namespace edgewise
