// The tensor-core convolution (mma_conv.h).
//
// A block of 128 threads computes 8 x 8 output pixels by N output
// channels of one image (N 16, 32 or 64: the layer's padded outputs, up to
// 64, so that the noise network's narrow layers do not compute 64 channels
// for 16); per chunk of 16 input channels it stages the pixels' ((8 - 1) S
// + K)^2 input neighbourhood and the chunk's K^2 x N x 16 weights in shared
// memory, then each of its 4 warps takes two rows of 8 pixels (an m16
// tile) through every tap and N / 8 n8 tiles (mma.sync m16n8k16, fp16 in,
// fp32 sums). An output's sum does not depend on N (each n8 tile's
// columns are their own sums), so the choice changes no bit. Shared rows are 24 halves (48 bytes)
// apart so that a fragment's 32 lanes hit 32 banks at stride 1 (at stride
// 2 a fragment's rows are 96 bytes apart: two lanes share a bank, which
// the noise network's small share of the work affords).
#include "mma_conv.h"

#include <stdexcept>
#include <string>

#include "device_band.h"  // check()

namespace edgewise::cuda {

namespace {

constexpr int kPatch = 8;        // output pixels a block side
constexpr int kMaxBlockN = 64;   // output channels a block, at most
constexpr int kChunk = kMmaChannels;
constexpr int kRowHalves = 24;   // a shared row: 16 halves used, 8 of padding
constexpr int kThreads = 128;

int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

constexpr int patch_side(int kernel, int stride) { return (kPatch - 1) * stride + kernel; }

size_t shared_bytes(int kernel, int stride, int block_n) {
  const int side = patch_side(kernel, stride);
  return size_t(side * side + kernel * kernel * block_n) * kRowHalves * sizeof(__half);
}

// The block's output channels for a layer of `out_padded` (a multiple of 16).
int block_n_for(int out_padded) { return out_padded <= 16 ? 16 : out_padded <= 32 ? 32 : kMaxBlockN; }

template <int K, int S, int NT>
__global__ void __launch_bounds__(kThreads)
    conv_kernel(const __half* __restrict__ in, int in_width, int in_height, int in_stride, size_t in_image, int chunks,
                const __half* __restrict__ weights, const float* __restrict__ bias, __half* __restrict__ out,
                float* __restrict__ out_float, int width, int height, int out_stride, size_t out_image, bool relu) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) __half shared[];
  constexpr int side = patch_side(K, S), half_k = K / 2, kBlockN = 8 * NT;
  __half* patch = shared;                                  // [side * side][kRowHalves]
  __half* wsm = shared + side * side * kRowHalves;         // [K * K][kBlockN][kRowHalves]
  in += size_t(blockIdx.z) * in_image;
  const int blocks_x = (width + kPatch - 1) / kPatch;
  const int x0 = int(blockIdx.x % unsigned(blocks_x)) * kPatch, y0 = int(blockIdx.x / unsigned(blocks_x)) * kPatch;
  const int ix0 = x0 * S - half_k, iy0 = y0 * S - half_k;
  const int n0 = int(blockIdx.y) * kBlockN;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
  float acc[NT][4] = {};
  const __half* chunk_weights = weights + size_t(blockIdx.y) * size_t(chunks) * K * K * kBlockN * kChunk;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    // The neighbourhood's 16 channels, two 16-byte vectors a pixel; zeros outside.
    for (int v = int(threadIdx.x); v < side * side * 2; v += kThreads) {
      const int p = v / 2, part = v % 2, px = ix0 + p % side, py = iy0 + p / side;
      uint4 value = make_uint4(0, 0, 0, 0);
      if (px >= 0 && px < in_width && py >= 0 && py < in_height)
        value = *reinterpret_cast<const uint4*>(in + (size_t(py) * in_width + px) * size_t(in_stride) +
                                                chunk * kChunk + part * 8);
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
        const __half* top = patch + ((2 * warp * S + ky) * side + g * S + kx) * kRowHalves + 2 * t;
        const __half* bottom = top + S * side * kRowHalves;
        const unsigned a0 = *reinterpret_cast<const unsigned*>(top);
        const unsigned a1 = *reinterpret_cast<const unsigned*>(bottom);
        const unsigned a2 = *reinterpret_cast<const unsigned*>(top + 8);
        const unsigned a3 = *reinterpret_cast<const unsigned*>(bottom + 8);
        const __half* tap = wsm + (ky * K + kx) * kBlockN * kRowHalves + 2 * t;
#pragma unroll
        for (int j = 0; j < NT; ++j) {
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
    const size_t at = size_t(blockIdx.z) * out_image + (size_t(y) * width + x) * size_t(out_stride);
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const int n = n0 + 8 * j + 2 * t;
      if (n >= out_stride) continue;
      float v0 = acc[j][2 * half_row] + bias[n], v1 = acc[j][2 * half_row + 1] + bias[n + 1];
      if (relu) {
        v0 = fmaxf(v0, 0.0f);
        v1 = fmaxf(v1, 0.0f);
      }
      if (out_float)
        *reinterpret_cast<float2*>(out_float + at + n) = make_float2(v0, v1);
      else
        *reinterpret_cast<__half2*>(out + at + n) = __floats2half2_rn(v0, v1);
    }
  }
#endif
}

using ConvKernel = void (*)(const __half*, int, int, int, size_t, int, const __half*, const float*, __half*, float*,
                            int, int, int, size_t, bool);

// The instantiations: kernels 1, 3 and 5 at strides 1 and 2, blocks of 16,
// 32 and 64 output channels.
template <int K, int S>
ConvKernel kernel_for_n(int block_n) {
  return block_n == 16 ? conv_kernel<K, S, 2> : block_n == 32 ? conv_kernel<K, S, 4> : conv_kernel<K, S, 8>;
}

ConvKernel kernel_for(int kernel, int stride, int block_n) {
  switch (kernel * 10 + stride) {
    case 11: return kernel_for_n<1, 1>(block_n);
    case 12: return kernel_for_n<1, 2>(block_n);
    case 31: return kernel_for_n<3, 1>(block_n);
    case 32: return kernel_for_n<3, 2>(block_n);
    case 51: return kernel_for_n<5, 1>(block_n);
    case 52: return kernel_for_n<5, 2>(block_n);
    default: return nullptr;
  }
}

}  // namespace

MmaConv pack_mma_conv(const NoiseNetLayer& layer, std::vector<__half>& weights, std::vector<float>& bias) {
  if (!kernel_for(layer.kernel, layer.stride, kMaxBlockN))
    throw std::invalid_argument("the GPU's convolutions take 1 x 1, 3 x 3 and 5 x 5 kernels at stride 1 or 2, not " +
                                std::to_string(layer.kernel) + " x " + std::to_string(layer.kernel) + " at stride " +
                                std::to_string(layer.stride));
  MmaConv conv;
  conv.kernel = layer.kernel;
  conv.stride = layer.stride;
  conv.relu = layer.relu;
  conv.in_chunks = round_up(layer.in, kChunk) / kChunk;
  conv.out_padded = round_up(layer.out, 16);
  conv.block_n = block_n_for(conv.out_padded);
  conv.out_blocks = round_up(conv.out_padded, conv.block_n) / conv.block_n;
  conv.weights = weights.size();
  conv.bias = bias.size();
  const int k = layer.kernel, block_n = conv.block_n;
  // [out block][chunk][tap][block_n outputs][16 inputs]
  for (int nb = 0; nb < conv.out_blocks; ++nb)
    for (int chunk = 0; chunk < conv.in_chunks; ++chunk)
      for (int tap = 0; tap < k * k; ++tap)
        for (int n = 0; n < block_n; ++n)
          for (int kk = 0; kk < kChunk; ++kk) {
            const int o = nb * block_n + n, i = chunk * kChunk + kk;
            const float w = o < layer.out && i < layer.in
                                ? layer.weights[((size_t(o) * layer.in + i) * k + tap / k) * k + tap % k]
                                : 0.0f;
            weights.push_back(__float2half_rn(w));
          }
  for (int n = 0; n < conv.out_blocks * block_n; ++n) bias.push_back(n < layer.out ? layer.bias[size_t(n)] : 0.0f);
  return conv;
}

void prepare_mma_conv() {
  for (int kernel = 1; kernel <= 5; kernel += 2)
    for (int stride = 1; stride <= 2; ++stride)
      for (int block_n = 16; block_n <= kMaxBlockN; block_n *= 2)
        check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_for(kernel, stride, block_n)),
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(shared_bytes(kernel, stride, block_n))),
              "setting the convolutions' shared memory");
}

void mma_conv(const MmaConv& conv, const __half* weights, const float* bias, const MmaConvIo& io, cudaStream_t stream) {
  if (io.images < 1) return;
  if (io.images > 65535) throw std::invalid_argument("a convolution of more than 65535 images at once");
  const int width = mma_conv_out_side(io.in_width, conv.stride), height = mma_conv_out_side(io.in_height, conv.stride);
  const dim3 grid(unsigned(((width + kPatch - 1) / kPatch) * ((height + kPatch - 1) / kPatch)),
                  unsigned(conv.out_blocks), unsigned(io.images));
  kernel_for(conv.kernel, conv.stride, conv.block_n)<<<grid, kThreads,
                                                      shared_bytes(conv.kernel, conv.stride, conv.block_n), stream>>>(
      io.in, io.in_width, io.in_height, io.in_stride, io.in_image, conv.in_chunks, weights + conv.weights,
      bias + conv.bias, io.out, io.out_float, width, height, conv.out_padded, io.out_image, conv.relu);
  check(cudaGetLastError(), "launching a convolution");
}

}  // namespace edgewise::cuda
