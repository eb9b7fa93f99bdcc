// The noise-map network's forward pass on the GPU (issue 36), for the
// learned filter's map: the layers of core/noise_net.h on a batch of tiles,
// each tile on its own with zeros around it, as the CPU and PyTorch run it.
//
// The convolutions are mma_conv.h's: tensors fp16 HWC, channels padded to
// 16, sums in fp32 on the tensor cores, the last layer's outputs kept in
// fp32. Counted for v1: 29 M multiply-adds a 64 px tile, 170 G for 24 MP;
// the fp32 loops this replaces ran them in 80 ms (4 TFLOP/s), the tensor
// cores' dense fp16 rate is about 100 times that. fp16's 11-bit
// significand: tests/gpu/test_cuda_noise_net.cpp bounds the output against
// the double reference and says why the bound suffices.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "device_resources.h"
#include "mma_conv.h"
#include "noise_net.h"

namespace edgewise::cuda {

class DeviceNoiseNet {
 public:
  explicit DeviceNoiseNet(const NoiseNet& net);
  DeviceNoiseNet(const DeviceNoiseNet&) = delete;
  DeviceNoiseNet& operator=(const DeviceNoiseNet&) = delete;

  const NoiseNet& net() const { return net_; }
  // Device bytes forward() needs for `tiles` tiles.
  size_t workspace_bytes(int tiles) const;
  // `tiles` tiles: input tiles x 3 x T x T floats (samples 0..1, CHW), T =
  // net.tile; cells tiles x (T / cell)^2 x outputs floats, each tile's cells
  // row by row, each cell's outputs together (noise_net_forward's layout).
  // Device pointers; enqueued on `stream`.
  void forward(const float* input, int tiles, float* cells, void* workspace, cudaStream_t stream) const;

 private:
  struct Layer {
    MmaConv conv;
    int in_side = 0, out_side = 0, in_stride = 0;
  };
  NoiseNet net_;
  std::vector<Layer> layers_;
  size_t largest_ = 0;  // halves of the largest tensor of one tile
  DeviceMemory weights_, bias_;
};

}  // namespace edgewise::cuda
