// The learned denoiser's forward pass on the GPU (issue 36): the program
// of core/denoise_net.h on one tile, its convolutions on the tensor cores
// (mma_conv.h: fp16 samples and weights, fp32 sums), every other
// step an elementwise kernel. Compute capability 8.0 or newer (the mma
// shape); older devices are refused by `unsupported` so the caller runs
// the CPU.
//
// Tensors are fp16, HWC, channels padded to 16 with zeros, no border: a
// convolution reads zeros outside the tile (PyTorch's padding, the CPU's
// border). Each output's sum runs over the input chunks of 16 channels,
// then the taps, in one order wherever the pixel lies, so a tile's pixels
// are the same whatever the tile's size or position.
//
// Why fp16 rather than bf16: 11 bits of significand against 8 keep the
// rounding of ~20 stored activations under a tenth of a code value where
// bf16's would reach about one; the activations (order 1-100) are far
// inside fp16's range.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "denoise_net.h"
#include "device_resources.h"
#include "mma_conv.h"

namespace edgewise::cuda {

// "" when this device can run the denoiser's kernels, else why not.
std::string denoise_net_unsupported();

class DeviceDenoiseNet {
 public:
  // Uploads the weights (fp16, in the convolution kernel's order) on the
  // current device.
  explicit DeviceDenoiseNet(const DenoiseNet& net);
  DeviceDenoiseNet(const DeviceDenoiseNet&) = delete;
  DeviceDenoiseNet& operator=(const DeviceDenoiseNet&) = delete;

  const DenoiseNet& net() const { return net_; }
  // Device bytes forward() needs for a width x height tile.
  size_t workspace_bytes(int width, int height) const;
  // One tile: rgb width x height x 3 floats (0..1), map as
  // denoise_net_forward takes it, out width x height x 3 floats; all device
  // pointers, workspace at least workspace_bytes(width, height). Enqueued
  // on `stream`; throws std::invalid_argument for a tile off the grid.
  void forward(const float* rgb, const float* map, int width, int height, float* out, void* workspace,
               cudaStream_t stream) const;

 private:
  struct Conv {
    int layer = 0;  // in net_.net.layers
    MmaConv mma;
  };
  // Buffers a program needs, in tensor sizes relative to a tile: each
  // step's input and output buffer, and each buffer's size in halves for
  // a width x height tile.
  struct Schedule {
    std::vector<int> in, out;
    std::vector<size_t> offsets;  // halves, per buffer
    size_t halves = 0;
  };
  Schedule schedule(int width, int height) const;

  DenoiseNet net_;
  std::vector<Conv> convs_;
  DeviceMemory weights_, bias_;
};

}  // namespace edgewise::cuda
