// The noise-map network's forward pass on the GPU (noise_net_cuda.h).
#include "noise_net_cuda.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "device_band.h"

namespace edgewise::cuda {

namespace {

constexpr int kThreads = 256;

// The first layer's input: CHW floats to HWC fp16 with 16 channels, sample -
// 0.5 (the header's "input rgb-0.5") in the first three, zeros after.
__global__ void noise_input_kernel(const float* in, int side, int tiles, __half* out) {
  const size_t area = size_t(side) * side, count = size_t(tiles) * area * kMmaChannels;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int c = int(i % kMmaChannels);
    const size_t pixel = i / kMmaChannels, tile = pixel / area, p = pixel % area;
    out[i] = __float2half_rn(c < 3 ? in[(tile * 3 + size_t(c)) * area + p] - 0.5f : 0.0f);
  }
}

// The last layer's outputs (`stride` floats a cell) to cells (`outputs` a cell).
__global__ void noise_cells_kernel(const float* in, int stride, int outputs, size_t cells_count, float* cells) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < cells_count * outputs;
       i += size_t(gridDim.x) * blockDim.x)
    cells[i] = in[(i / outputs) * stride + i % outputs];
}

unsigned blocks_for(size_t count) {
  return unsigned(std::max<size_t>(1, std::min<size_t>((count + kThreads - 1) / kThreads, 65535 * 8)));
}

size_t lines(size_t halves) { return (halves + 63) / 64 * 64; }  // a buffer on 128-byte lines

}  // namespace

DeviceNoiseNet::DeviceNoiseNet(const NoiseNet& net) : net_(net) {
  if (net.layers.empty()) throw std::invalid_argument("the GPU's noise network has no layers");
  std::vector<__half> weights;
  std::vector<float> bias;
  int side = net.tile, stride = kMmaChannels;
  largest_ = size_t(side) * side * stride;
  for (const NoiseNetLayer& layer : net.layers) {
    if (layer.op != NetOp::conv) throw std::invalid_argument("the GPU's noise network takes convolutions only");
    Layer l;
    l.conv = pack_mma_conv(layer, weights, bias);
    l.in_side = side;
    l.in_stride = stride;
    l.out_side = mma_conv_out_side(side, layer.stride);
    side = l.out_side;
    stride = l.conv.out_padded;
    largest_ = std::max(largest_, size_t(side) * side * stride);
    layers_.push_back(l);
  }
  weights_ = DeviceMemory(weights.size() * sizeof(__half));
  bias_ = DeviceMemory(bias.size() * sizeof(float));
  check(cudaMemcpy(weights_.as<__half>(), weights.data(), weights.size() * sizeof(__half), cudaMemcpyHostToDevice),
        "copying the noise network's weights to the GPU");
  check(cudaMemcpy(bias_.as<float>(), bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice),
        "copying the noise network's weights to the GPU");
  prepare_mma_conv();
}

// Two fp16 buffers the layers alternate between, then the last layer's floats.
size_t DeviceNoiseNet::workspace_bytes(int tiles) const {
  const Layer& last = layers_.back();
  return 2 * lines(largest_ * size_t(tiles)) * sizeof(__half) +
         size_t(tiles) * last.out_side * last.out_side * last.conv.out_padded * sizeof(float);
}

void DeviceNoiseNet::forward(const float* input, int tiles, float* cells, void* workspace, cudaStream_t stream) const {
  if (tiles <= 0) return;
  __half* buffers[2] = {static_cast<__half*>(workspace), static_cast<__half*>(workspace) + lines(largest_ * size_t(tiles))};
  float* last_out = reinterpret_cast<float*>(buffers[1] + lines(largest_ * size_t(tiles)));
  const int t = net_.tile;
  noise_input_kernel<<<blocks_for(size_t(tiles) * t * t * kMmaChannels), kThreads, 0, stream>>>(input, t, tiles,
                                                                                                  buffers[0]);
  check(cudaGetLastError(), "launching the noise network's input");
  for (size_t k = 0; k < layers_.size(); ++k) {
    const Layer& l = layers_[k];
    MmaConvIo io;
    io.in = buffers[k % 2];
    io.in_width = io.in_height = l.in_side;
    io.in_stride = l.in_stride;
    io.in_image = size_t(l.in_side) * l.in_side * l.in_stride;
    io.out_image = size_t(l.out_side) * l.out_side * l.conv.out_padded;
    io.images = tiles;
    if (k + 1 < layers_.size())
      io.out = buffers[(k + 1) % 2];
    else
      io.out_float = last_out;
    mma_conv(l.conv, weights_.as<__half>(), bias_.as<float>(), io, stream);
  }
  const Layer& last = layers_.back();
  const size_t cells_count = size_t(tiles) * last.out_side * last.out_side;
  noise_cells_kernel<<<blocks_for(cells_count * net_.outputs), kThreads, 0, stream>>>(last_out, last.conv.out_padded,
                                                                                      net_.outputs, cells_count, cells);
  check(cudaGetLastError(), "launching the noise network's output");
}

}  // namespace edgewise::cuda
