// The noise-map network's forward pass on the GPU (issue 36), for the
// learned filter's map: the layers of core/noise_net.h on a batch of tiles,
// in fp32 (the network is 29 M multiply-adds a 64 px tile, a fifth of the
// denoiser's per pixel: plain FMA loops, no tensor cores), each tile on its
// own with zeros around it, as the CPU and PyTorch run it.
//
// Tensors are per tile CHW (channel planes of side x side floats), so that
// a warp's threads read neighbouring pixels of one plane; each thread sums
// kOutGroup output channels at one pixel, reading each input sample once
// for all of them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "device_resources.h"
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
    int in = 0, out = 0, kernel = 1, stride = 1, in_side = 0, out_side = 0;
    bool relu = false;
    size_t weights = 0, bias = 0;  // offsets (floats) in the device array
  };
  NoiseNet net_;
  std::vector<Layer> layers_;
  size_t largest_ = 0;  // floats of the largest tensor of one tile
  DeviceMemory parameters_;
};

}  // namespace edgewise::cuda
