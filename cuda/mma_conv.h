// One convolution on the tensor cores, for both learned networks (issue
// 36): PyTorch's Conv2d (zero padding k / 2, bias, stride 1 or 2), optional
// ReLU, on fp16 HWC tensors whose channels are padded to 16 with zeros, as
// an implicit GEMM (fp16 samples and weights, fp32 sums: mma.sync
// m16n8k16; compute capability 8.0 or newer).
//
// Each output's sum runs over the input chunks of 16 channels, then the
// taps, in one order wherever the pixel lies, so an image's pixels do not
// depend on its size or on how many images run together. A batch is
// `images` tensors of one size, each with zeros around it (the noise
// network's tiles run so, as on the CPU and in PyTorch).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "noise_net.h"

namespace edgewise::cuda {

constexpr int kMmaChannels = 16;  // tensors' channel strides are multiples of this

// A convolution's shape and where its packed weights lie.
struct MmaConv {
  int kernel = 1, stride = 1;
  int in_chunks = 0;   // input channels / 16, padded
  int out_padded = 0;  // output channels padded to 16 (the output tensor's stride)
  int block_n = 64;    // output channels a block: 16, 32 or 64
  int out_blocks = 0;  // blocks of block_n output channels
  bool relu = false;
  size_t weights = 0, bias = 0;  // offsets (halves, floats) in the device arrays
};

// Appends `layer`'s weights (fp16, in the kernel's order) and bias to the
// host arrays. Throws std::invalid_argument for a kernel other than 1, 3
// or 5 or a stride other than 1 or 2.
MmaConv pack_mma_conv(const NoiseNetLayer& layer, std::vector<__half>& weights, std::vector<float>& bias);

// Lets the kernels take the shared memory they need on the current device.
void prepare_mma_conv();

// An output side: ceil(in / stride), as PyTorch's padding k / 2 gives for odd k.
inline int mma_conv_out_side(int in, int stride) { return (in + stride - 1) / stride; }

// `images` images: in[i] at in + i * in_image (halves; in_width x
// in_height pixels, in_stride a multiple of 16 that covers in_chunks),
// out[i] at out + i * out_image (the output side's pixels, out_padded
// halves each). Where out_float is set the outputs go there as floats
// instead (same layout), unrounded. `weights` and `bias` point at the
// device arrays' starts. Enqueued on `stream`.
struct MmaConvIo {
  const __half* in = nullptr;
  int in_width = 0, in_height = 0, in_stride = 0;
  size_t in_image = 0;
  __half* out = nullptr;
  float* out_float = nullptr;
  size_t out_image = 0;
  int images = 1;
};
void mma_conv(const MmaConv& conv, const __half* weights, const float* bias, const MmaConvIo& io, cudaStream_t stream);

}  // namespace edgewise::cuda
