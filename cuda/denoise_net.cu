// The learned denoiser's forward pass on the GPU (denoise_net_cuda.h).
//
// The convolutions are mma_conv.h's (the tensor cores). Counted for v1
// (106 k multiply-adds a pixel): 24 MP is 2.6 T multiply-adds, 5.1 TFLOP:
// about 7 ms at the H100's dense fp16 rate, so the kernel (no double
// buffering, no ldmatrix) is expected to be bound by its shared-memory
// traffic; bench/RESULTS.md has the measurement.
#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "denoise_net_cuda.h"
#include "mma_conv.h"

namespace edgewise::cuda {

namespace {

int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

// Every output element of a tensor (pixels x stride), grid-stride.
#define EW_FOR_EACH(count)                                                                   \
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (count); \
       i += size_t(gridDim.x) * blockDim.x)

__global__ void input_kernel(const float* rgb, size_t pixels, __half* out) {
  EW_FOR_EACH(pixels * 16) {
    const size_t p = i / 16;
    const int c = int(i % 16);
    out[i] = __float2half_rn(c < 3 ? rgb[p * 3 + size_t(c)] - 0.5f : 0.0f);
  }
}

__global__ void unshuffle_kernel(const __half* in, int width, int channels, int in_stride, int f, __half* out,
                                 int out_width, size_t out_pixels, int out_stride) {
  EW_FOR_EACH(out_pixels * size_t(out_stride)) {
    const size_t p = i / size_t(out_stride);
    const int oc = int(i % size_t(out_stride));
    __half value = __float2half_rn(0.0f);
    if (oc < channels * f * f) {
      const int c = oc / (f * f), r = oc % (f * f), x = int(p % size_t(out_width)) * f + r % f,
                y = int(p / size_t(out_width)) * f + r / f;
      value = in[(size_t(y) * width + x) * size_t(in_stride) + size_t(c)];
    }
    out[i] = value;
  }
}

__global__ void shuffle_kernel(const __half* in, int in_width, int in_stride, int f, __half* out, int out_width,
                               size_t out_pixels, int channels, int out_stride) {
  EW_FOR_EACH(out_pixels * size_t(out_stride)) {
    const size_t p = i / size_t(out_stride);
    const int c = int(i % size_t(out_stride));
    __half value = __float2half_rn(0.0f);
    if (c < channels) {
      const int x = int(p % size_t(out_width)), y = int(p / size_t(out_width));
      value = in[(size_t(y / f) * in_width + x / f) * size_t(in_stride) + size_t((c * f + y % f) * f + x % f)];
    }
    out[i] = value;
  }
}

__global__ void map_kernel(const __half* in, int channels, int in_stride, const float* map, int map_channels,
                           size_t pixels, __half* out, int out_stride) {
  EW_FOR_EACH(pixels * size_t(out_stride)) {
    const size_t p = i / size_t(out_stride);
    const int c = int(i % size_t(out_stride));
    __half value = __float2half_rn(0.0f);
    if (c < channels)
      value = in[p * size_t(in_stride) + size_t(c)];
    else if (c < channels + map_channels)
      value = __float2half_rn(map[p * size_t(map_channels) + size_t(c - channels)]);
    out[i] = value;
  }
}

// x += skip, summed in fp32.
__global__ void add_kernel(__half* x, const __half* skip, size_t count) {
  EW_FOR_EACH(count) x[i] = __float2half_rn(__half2float(x[i]) + __half2float(skip[i]));
}

__global__ void output_kernel(const __half* x, int stride, const float* rgb, size_t pixels, bool residual,
                              float* out) {
  EW_FOR_EACH(pixels * 3) {
    const size_t p = i / 3;
    const int c = int(i % 3);
    out[i] = __half2float(x[p * size_t(stride) + size_t(c)]) + (residual ? rgb[i] : 0.0f);
  }
}

unsigned blocks_for(size_t count) { return unsigned(std::min<size_t>((count + 255) / 256, 65535 * 8)); }

}  // namespace

std::string denoise_net_unsupported() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
    return "no CUDA device";
  if (major < 8) return "the learned denoiser's tensor-core kernels need compute capability 8.0 or newer";
  return "";
}

DeviceDenoiseNet::DeviceDenoiseNet(const DenoiseNet& net) : net_(net) {
  std::vector<__half> weights;
  std::vector<float> bias;
  const auto& layers = net_.net.layers;
  for (size_t l = 0; l < layers.size(); ++l) {
    const NoiseNetLayer& layer = layers[l];
    if (layer.op != NetOp::conv) continue;
    Conv conv;
    conv.layer = int(l);
    conv.mma = pack_mma_conv(layer, weights, bias);
    convs_.push_back(conv);
  }
  weights_ = DeviceMemory(weights.size() * sizeof(__half));
  bias_ = DeviceMemory(bias.size() * sizeof(float));
  check(cudaMemcpy(weights_.as<__half>(), weights.data(), weights.size() * sizeof(__half), cudaMemcpyHostToDevice),
        "copying the denoiser's weights to the GPU");
  check(cudaMemcpy(bias_.as<float>(), bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice),
        "copying the denoiser's weights to the GPU");
  prepare_mma_conv();
}

// The program's tensors, as the CPU's pool holds them, but without copies:
// a saved tensor keeps its buffer, which the step after reads as its input;
// add sums into the current buffer and frees the saved one.
DeviceDenoiseNet::Schedule DeviceDenoiseNet::schedule(int width, int height) const {
  Schedule s;
  std::vector<size_t> sizes;
  std::vector<int> users;  // current or saved holds it
  auto take = [&](size_t halves) {
    for (size_t b = 0; b < users.size(); ++b)
      if (users[b] == 0) {
        users[b] = 1;
        sizes[b] = std::max(sizes[b], halves);
        return int(b);
      }
    users.push_back(1);
    sizes.push_back(halves);
    return int(users.size() - 1);
  };
  auto release = [&](int b) { --users[size_t(b)]; };
  int w = width, h = height, channels = 3;
  int current = take(size_t(w) * h * 16);
  std::vector<int> saved;
  for (const NoiseNetLayer& layer : net_.net.layers) {
    int in = current, out = current;
    switch (layer.op) {
      case NetOp::unshuffle:
        w /= layer.factor;
        h /= layer.factor;
        channels *= layer.factor * layer.factor;
        out = take(size_t(w) * h * size_t(round_up(channels, 16)));
        release(in);
        break;
      case NetOp::shuffle:
        w *= layer.factor;
        h *= layer.factor;
        channels /= layer.factor * layer.factor;
        out = take(size_t(w) * h * size_t(round_up(channels, 16)));
        release(in);
        break;
      case NetOp::map:
        channels += layer.factor;
        out = take(size_t(w) * h * size_t(round_up(channels, 16)));
        release(in);
        break;
      case NetOp::conv:
        channels = layer.out;
        out = take(size_t(w) * h * size_t(round_up(channels, 16)));
        release(in);
        break;
      case NetOp::save:
        ++users[size_t(current)];
        saved.push_back(current);
        break;
      case NetOp::add:
        release(saved.back());
        saved.pop_back();
        break;
      case NetOp::residual:
        break;
    }
    s.in.push_back(in);
    s.out.push_back(out);
    current = out;
  }
  for (size_t b = 0; b < sizes.size(); ++b) {
    s.offsets.push_back(s.halves);
    s.halves += (sizes[b] + 63) / 64 * 64;  // each buffer on a 128-byte line
  }
  return s;
}

size_t DeviceDenoiseNet::workspace_bytes(int width, int height) const {
  return schedule(width, height).halves * sizeof(__half);
}

void DeviceDenoiseNet::forward(const float* rgb, const float* map, int width, int height, float* out,
                               void* workspace, cudaStream_t stream) const {
  if (width < 1 || height < 1 || width % net_.align != 0 || height % net_.align != 0)
    throw std::invalid_argument("the GPU denoiser: a tile of " + std::to_string(width) + " x " +
                                std::to_string(height) + " is not a multiple of the network's " +
                                std::to_string(net_.align) + " pixels");
  const Schedule s = schedule(width, height);
  __half* base = static_cast<__half*>(workspace);
  auto buffer = [&](int b) { return base + s.offsets[size_t(b)]; };
  int w = width, h = height, channels = 3;
  size_t pixels = size_t(w) * h;
  input_kernel<<<blocks_for(pixels * 16), 256, 0, stream>>>(rgb, pixels, buffer(s.in.empty() ? 0 : s.in[0]));
  const auto& layers = net_.net.layers;
  std::vector<int> saved;
  size_t conv_index = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    const NoiseNetLayer& layer = layers[l];
    const __half* in = buffer(s.in[l]);
    __half* to = buffer(s.out[l]);
    const int in_stride = round_up(channels, 16);
    switch (layer.op) {
      case NetOp::unshuffle: {
        const int f = layer.factor, ow = w / f, oh = h / f, oc = channels * f * f, os = round_up(oc, 16);
        const size_t count = size_t(ow) * oh * size_t(os);
        unshuffle_kernel<<<blocks_for(count), 256, 0, stream>>>(in, w, channels, in_stride, f, to, ow,
                                                                 size_t(ow) * oh, os);
        w = ow;
        h = oh;
        channels = oc;
        break;
      }
      case NetOp::shuffle: {
        const int f = layer.factor, ow = w * f, oh = h * f, oc = channels / (f * f), os = round_up(oc, 16);
        const size_t count = size_t(ow) * oh * size_t(os);
        shuffle_kernel<<<blocks_for(count), 256, 0, stream>>>(in, w, in_stride, f, to, ow, size_t(ow) * oh, oc, os);
        w = ow;
        h = oh;
        channels = oc;
        break;
      }
      case NetOp::map: {
        const int oc = channels + layer.factor, os = round_up(oc, 16);
        const size_t count = size_t(w) * h * size_t(os);
        map_kernel<<<blocks_for(count), 256, 0, stream>>>(in, channels, in_stride, map, layer.factor, size_t(w) * h,
                                                           to, os);
        channels = oc;
        break;
      }
      case NetOp::conv: {
        const Conv& c = convs_[conv_index++];
        MmaConvIo io;
        io.in = in;
        io.in_width = w;
        io.in_height = h;
        io.in_stride = in_stride;
        io.out = to;
        mma_conv(c.mma, weights_.as<__half>(), bias_.as<float>(), io, stream);
        channels = layer.out;
        break;
      }
      case NetOp::save:
        saved.push_back(s.in[l]);
        break;
      case NetOp::add: {
        const size_t count = size_t(w) * h * size_t(in_stride);
        add_kernel<<<blocks_for(count), 256, 0, stream>>>(to, buffer(saved.back()), count);
        saved.pop_back();
        break;
      }
      case NetOp::residual:
        break;
    }
  }
  pixels = size_t(width) * height;
  const bool residual = !layers.empty() && layers.back().op == NetOp::residual;
  output_kernel<<<blocks_for(pixels * 3), 256, 0, stream>>>(buffer(s.out.empty() ? 0 : s.out.back()),
                                                            round_up(channels, 16), rgb, pixels, residual, out);
  check(cudaGetLastError(), "starting the denoiser's kernels");
}

}  // namespace edgewise::cuda
