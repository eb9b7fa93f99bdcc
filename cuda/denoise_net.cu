// The learned denoiser's forward pass on the GPU (denoise_net_cuda.h).
//
// The convolution is an implicit GEMM on the tensor cores: a block of 128
// threads computes 8 x 8 output pixels by 64 output channels; per chunk of
// 16 input channels it stages the pixels' (8 + K - 1)^2 neighbourhood and
// the chunk's K^2 x 64 x 16 weights in shared memory, then each of its 4
// warps takes two rows of 8 pixels (an m16 tile) through every tap and
// eight n8 tiles (mma.sync m16n8k16, fp16 in, fp32 sums). Shared rows are
// 24 halves (48 bytes) apart so that a fragment's 32 lanes hit 32 banks.
// Counted for v1 (106 k multiply-adds a pixel): 24 MP is 2.6 T
// multiply-adds, 5.1 TFLOP: about 7 ms at the H100's dense fp16 rate, so
// this first kernel (no double buffering, no ldmatrix) is expected to be
// bound by its shared-memory traffic; bench/RESULTS.md has the measurement.
#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "denoise_net_cuda.h"

namespace edgewise::cuda {

namespace {

constexpr int kPatch = 8;        // output pixels a block side
constexpr int kBlockN = 64;      // output channels a block
constexpr int kChunk = 16;       // input channels a chunk
constexpr int kRowHalves = 24;   // a shared row: 16 halves used, 8 of padding
constexpr int kThreads = 128;
constexpr int kMaxKernel = 5;

int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

size_t conv_shared_bytes(int kernel) {
  const int side = kPatch + kernel - 1;
  return size_t(side * side + kernel * kernel * kBlockN) * kRowHalves * sizeof(__half);
}

template <int K>
__global__ void __launch_bounds__(kThreads) conv_kernel(const __half* __restrict__ in, int width, int height,
                                                        int in_stride, int chunks, const __half* __restrict__ weights,
                                                        const float* __restrict__ bias, __half* __restrict__ out,
                                                        int out_stride, bool relu) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) __half shared[];
  constexpr int side = kPatch + K - 1, half_k = K / 2;
  __half* patch = shared;                                  // [side * side][kRowHalves]
  __half* wsm = shared + side * side * kRowHalves;         // [K * K][kBlockN][kRowHalves]
  const int blocks_x = (width + kPatch - 1) / kPatch;
  const int x0 = int(blockIdx.x % unsigned(blocks_x)) * kPatch, y0 = int(blockIdx.x / unsigned(blocks_x)) * kPatch;
  const int n0 = int(blockIdx.y) * kBlockN;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  float acc[8][4] = {};
  const __half* chunk_weights = weights + size_t(blockIdx.y) * size_t(chunks) * K * K * kBlockN * kChunk;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    // The neighbourhood's 16 channels, two 16-byte vectors a pixel; zeros outside.
    for (int v = int(threadIdx.x); v < side * side * 2; v += kThreads) {
      const int p = v / 2, part = v % 2, px = x0 - half_k + p % side, py = y0 - half_k + p / side;
      uint4 value = make_uint4(0, 0, 0, 0);
      if (px >= 0 && px < width && py >= 0 && py < height)
        value = *reinterpret_cast<const uint4*>(in + (size_t(py) * width + px) * size_t(in_stride) + chunk * kChunk +
                                                part * 8);
      *reinterpret_cast<uint4*>(patch + p * kRowHalves + part * 8) = value;
    }
    const __half* w = chunk_weights + size_t(chunk) * K * K * kBlockN * kChunk;
    for (int v = int(threadIdx.x); v < K * K * kBlockN * 2; v += kThreads) {
      const int row = v / 2, part = v % 2;
      *reinterpret_cast<uint4*>(wsm + row * kRowHalves + part * 8) =
          *reinterpret_cast<const uint4*>(w + size_t(row) * kChunk + part * 8);
    }
    __syncthreads();
#pragma unroll
    for (int ky = 0; ky < K; ++ky)
#pragma unroll
      for (int kx = 0; kx < K; ++kx) {
        // A: rows g and g + 8 of the warp's m16 tile are pixels (g, 2 warp)
        // and (g, 2 warp + 1) of the block; columns 2t, 2t + 1 and + 8.
        const __half* top = patch + ((2 * warp + ky) * side + g + kx) * kRowHalves + 2 * t;
        const __half* bottom = top + side * kRowHalves;
        const unsigned a0 = *reinterpret_cast<const unsigned*>(top);
        const unsigned a1 = *reinterpret_cast<const unsigned*>(bottom);
        const unsigned a2 = *reinterpret_cast<const unsigned*>(top + 8);
        const unsigned a3 = *reinterpret_cast<const unsigned*>(bottom + 8);
        const __half* tap = wsm + (ky * K + kx) * kBlockN * kRowHalves + 2 * t;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          // B: column g of the n8 tile j, rows 2t, 2t + 1 and + 8.
          const __half* b = tap + (8 * j + g) * kRowHalves;
          const unsigned b0 = *reinterpret_cast<const unsigned*>(b);
          const unsigned b1 = *reinterpret_cast<const unsigned*>(b + 8);
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};\n"
              : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
              : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
      }
    __syncthreads();
  }
  // C: acc[j][0..1] is pixel (g, 2 warp), channels n0 + 8j + 2t and + 1;
  // acc[j][2..3] the pixel below.
#pragma unroll
  for (int half_row = 0; half_row < 2; ++half_row) {
    const int x = x0 + g, y = y0 + 2 * warp + half_row;
    if (x >= width || y >= height) continue;
    __half* o = out + (size_t(y) * width + x) * size_t(out_stride);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int n = n0 + 8 * j + 2 * t;
      if (n >= out_stride) continue;
      float v0 = acc[j][2 * half_row] + bias[n], v1 = acc[j][2 * half_row + 1] + bias[n + 1];
      if (relu) {
        v0 = fmaxf(v0, 0.0f);
        v1 = fmaxf(v1, 0.0f);
      }
      *reinterpret_cast<__half2*>(o + n) = __floats2half2_rn(v0, v1);
    }
  }
#endif
}

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
    if (layer.kernel > kMaxKernel)
      throw std::invalid_argument("the GPU's convolutions take kernels up to 5 x 5, not " +
                                  std::to_string(layer.kernel));
    Conv conv;
    conv.layer = int(l);
    conv.in_chunks = round_up(layer.in, kChunk) / kChunk;
    conv.out_padded = round_up(layer.out, 16);
    conv.out_blocks = round_up(conv.out_padded, kBlockN) / kBlockN;
    conv.weights = weights.size();
    conv.bias = bias.size();
    const int k = layer.kernel;
    // [out block][chunk][tap][64 outputs][16 inputs]
    for (int nb = 0; nb < conv.out_blocks; ++nb)
      for (int chunk = 0; chunk < conv.in_chunks; ++chunk)
        for (int tap = 0; tap < k * k; ++tap)
          for (int n = 0; n < kBlockN; ++n)
            for (int kk = 0; kk < kChunk; ++kk) {
              const int o = nb * kBlockN + n, i = chunk * kChunk + kk;
              const float w = o < layer.out && i < layer.in
                                  ? layer.weights[((size_t(o) * layer.in + i) * k + tap / k) * k + tap % k]
                                  : 0.0f;
              weights.push_back(__float2half_rn(w));
            }
    for (int n = 0; n < conv.out_blocks * kBlockN; ++n) bias.push_back(n < layer.out ? layer.bias[size_t(n)] : 0.0f);
    convs_.push_back(conv);
  }
  weights_ = DeviceMemory(weights.size() * sizeof(__half));
  bias_ = DeviceMemory(bias.size() * sizeof(float));
  check(cudaMemcpy(weights_.as<__half>(), weights.data(), weights.size() * sizeof(__half), cudaMemcpyHostToDevice),
        "copying the denoiser's weights to the GPU");
  check(cudaMemcpy(bias_.as<float>(), bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice),
        "copying the denoiser's weights to the GPU");
  for (int k = 1; k <= kMaxKernel; k += 2) {
    const void* kernel = k == 1 ? reinterpret_cast<const void*>(conv_kernel<1>)
                         : k == 3 ? reinterpret_cast<const void*>(conv_kernel<3>)
                                  : reinterpret_cast<const void*>(conv_kernel<5>);
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(conv_shared_bytes(k))),
          "setting the denoiser's shared memory");
  }
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
        const dim3 grid(unsigned(((w + kPatch - 1) / kPatch) * ((h + kPatch - 1) / kPatch)), unsigned(c.out_blocks));
        const size_t shared = conv_shared_bytes(layer.kernel);
        const __half* weights = weights_.as<__half>() + c.weights;
        const float* bias = bias_.as<float>() + c.bias;
        if (layer.kernel == 1)
          conv_kernel<1><<<grid, kThreads, shared, stream>>>(in, w, h, in_stride, c.in_chunks, weights, bias, to,
                                                             c.out_padded, layer.relu);
        else if (layer.kernel == 3)
          conv_kernel<3><<<grid, kThreads, shared, stream>>>(in, w, h, in_stride, c.in_chunks, weights, bias, to,
                                                             c.out_padded, layer.relu);
        else
          conv_kernel<5><<<grid, kThreads, shared, stream>>>(in, w, h, in_stride, c.in_chunks, weights, bias, to,
                                                             c.out_padded, layer.relu);
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
