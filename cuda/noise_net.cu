// The noise-map network's forward pass on the GPU (noise_net_cuda.h).
#include "noise_net_cuda.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "device_band.h"

namespace edgewise::cuda {

namespace {

// Output channels a thread sums at its pixel (every layer's count is a
// multiple of 2; the last group of a layer may be partial).
constexpr int kOutGroup = 8;
constexpr int kThreads = 256;

// One layer on every tile: thread (tile, pixel) of block row blockIdx.y sums
// output channels [g * kOutGroup, ...) in the order input channel, tap row,
// tap: PyTorch's Conv2d with zero padding k / 2 and `stride`.
template <int K>
__global__ void noise_conv_kernel(const float* in, int in_c, int in_side, float* out, int out_c, int out_side,
                                  int stride, const float* weights, const float* bias, bool relu, int tiles) {
  const int pixels = out_side * out_side;
  const int o0 = blockIdx.y * kOutGroup;
  const int count = min(kOutGroup, out_c - o0);
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size_t(tiles) * pixels;
       i += size_t(gridDim.x) * blockDim.x) {
    const int tile = int(i / pixels), p = int(i % pixels), oy = p / out_side, ox = p % out_side;
    float acc[kOutGroup];
#pragma unroll
    for (int g = 0; g < kOutGroup; ++g) acc[g] = g < count ? bias[o0 + g] : 0.0f;
    const float* plane = in + size_t(tile) * in_c * in_side * in_side;
    for (int c = 0; c < in_c; ++c, plane += in_side * in_side) {
#pragma unroll
      for (int ky = 0; ky < K; ++ky) {
        const int iy = oy * stride + ky - K / 2;
        if (iy < 0 || iy >= in_side) continue;
#pragma unroll
        for (int kx = 0; kx < K; ++kx) {
          const int ix = ox * stride + kx - K / 2;
          if (ix < 0 || ix >= in_side) continue;
          const float v = plane[iy * in_side + ix];
          const float* w = weights + ((size_t(o0) * in_c + c) * K + ky) * K + kx;
#pragma unroll
          for (int g = 0; g < kOutGroup; ++g)
            if (g < count) acc[g] += v * w[size_t(g) * in_c * K * K];
        }
      }
    }
    float* o = out + size_t(tile) * out_c * pixels + size_t(o0) * pixels + p;
#pragma unroll
    for (int g = 0; g < kOutGroup; ++g)
      if (g < count) o[size_t(g) * pixels] = relu ? fmaxf(acc[g], 0.0f) : acc[g];
  }
}

// The first layer's input: sample - 0.5 (the header's "input rgb-0.5").
__global__ void noise_input_kernel(const float* in, size_t count, float* out) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i] - 0.5f;
}

// The last layer's CHW planes to cells (each cell's outputs together).
__global__ void noise_cells_kernel(const float* in, int outputs, int side, int tiles, float* cells) {
  const size_t count = size_t(tiles) * side * side * outputs;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int c = int(i % outputs);
    const size_t cell = i / outputs;
    const int tile = int(cell / (size_t(side) * side)), p = int(cell % (size_t(side) * side));
    cells[i] = in[(size_t(tile) * outputs + c) * side * side + p];
  }
}

unsigned blocks_for(size_t count) { return unsigned(std::min<size_t>((count + kThreads - 1) / kThreads, 65535 * 8)); }

}  // namespace

DeviceNoiseNet::DeviceNoiseNet(const NoiseNet& net) : net_(net) {
  std::vector<float> parameters;
  int side = net.tile;
  largest_ = size_t(3) * side * side;
  for (const NoiseNetLayer& layer : net.layers) {
    if (layer.kernel != 1 && layer.kernel != 3)
      throw std::invalid_argument("the GPU's noise network takes 1 x 1 and 3 x 3 kernels, not " +
                                  std::to_string(layer.kernel));
    Layer l;
    l.in = layer.in;
    l.out = layer.out;
    l.kernel = layer.kernel;
    l.stride = layer.stride;
    l.relu = layer.relu;
    l.in_side = side;
    l.out_side = side / layer.stride;
    l.weights = parameters.size();
    parameters.insert(parameters.end(), layer.weights.begin(), layer.weights.end());  // [out][in][ky][kx]
    l.bias = parameters.size();
    parameters.insert(parameters.end(), layer.bias.begin(), layer.bias.end());
    side = l.out_side;
    largest_ = std::max(largest_, size_t(l.out) * side * side);
    layers_.push_back(l);
  }
  parameters_ = DeviceMemory(parameters.size() * sizeof(float));
  check(cudaMemcpy(parameters_.as<float>(), parameters.data(), parameters.size() * sizeof(float),
                   cudaMemcpyHostToDevice),
        "copying the noise network's weights to the GPU");
}

size_t DeviceNoiseNet::workspace_bytes(int tiles) const { return 2 * largest_ * size_t(tiles) * sizeof(float) + 256; }

void DeviceNoiseNet::forward(const float* input, int tiles, float* cells, void* workspace, cudaStream_t stream) const {
  if (tiles <= 0) return;
  float* buffers[2] = {static_cast<float*>(workspace), static_cast<float*>(workspace) + largest_ * size_t(tiles)};
  const size_t inputs = size_t(tiles) * 3 * net_.tile * net_.tile;
  noise_input_kernel<<<blocks_for(inputs), kThreads, 0, stream>>>(input, inputs, buffers[0]);
  check(cudaGetLastError(), "launching the noise network's input");
  const float* parameters = parameters_.as<float>();
  for (size_t k = 0; k < layers_.size(); ++k) {
    const Layer& l = layers_[k];
    const float* in = buffers[k % 2];
    float* out = buffers[(k + 1) % 2];
    const dim3 grid(blocks_for(size_t(tiles) * l.out_side * l.out_side), unsigned((l.out + kOutGroup - 1) / kOutGroup));
    if (l.kernel == 3)
      noise_conv_kernel<3><<<grid, kThreads, 0, stream>>>(in, l.in, l.in_side, out, l.out, l.out_side, l.stride,
                                                           parameters + l.weights, parameters + l.bias, l.relu, tiles);
    else
      noise_conv_kernel<1><<<grid, kThreads, 0, stream>>>(in, l.in, l.in_side, out, l.out, l.out_side, l.stride,
                                                           parameters + l.weights, parameters + l.bias, l.relu, tiles);
    check(cudaGetLastError(), "launching a noise network layer");
  }
  const Layer& last = layers_.back();
  noise_cells_kernel<<<blocks_for(size_t(tiles) * last.out_side * last.out_side * last.out), kThreads, 0, stream>>>(
      buffers[layers_.size() % 2], last.out, last.out_side, tiles, cells);
  check(cudaGetLastError(), "launching the noise network's output");
}

}  // namespace edgewise::cuda
