// Issue 17's moonshot, as an experiment beside the filter (not part of it):
// the exact bilateral filter's Gaussian tap weights as packed
// half-precision exponentials, ex2.approx.f16x2, two taps an instruction.
// Each thread pairs its outputs (rows 2p and 2p + 1 of its column): a pair
// takes one neighbour, its two centres and its two spatial terms as half2,
// so the differences, the exponent and the exponential are one instruction
// each for two taps. Two ways to sum:
//   float: each weight converted to float and summed as the filter does
//     (w, w n per channel): what the issue asks for;
//   half:  w and w d (d = centre - neighbour, already in a register) summed
//     in half2 over one window column (at most 16 taps), then added into
//     float sums; output = centre - sum(w d) / sum(w). Fewer instructions,
//     more rounding.
// On a 24 MP RGBA card resident on the device (bench_cuda's), r = 7, in the
// same run as the filter's own kernel (launch_filter): kernel time, taps a
// second, and each variant's error against the filter's float output over
// every pixel and against a double reference on crops (0..1 units, and in
// 8-bit and 16-bit code values). No rescue of underflowing windows (the
// card has none) and no other kernel than the Gaussian: an experiment
// that decides whether the filter should grow such a path.
//
// Usage: bench_half_weights [--once] [sigma-r ...]   (code values; default
// 30 10; --once: each kernel launched twice, for the profiler)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bilateral_cuda.h"
#include "cuda_timing.h"
#include "device_resources.h"
#include "engine.h"

using namespace edgewise;
using edgewise_bench::median_event_ms;

namespace {

constexpr int kWidth = 6000, kHeight = 4000;
constexpr int kR = 7, kWindow = 2 * kR + 1;
constexpr int kTileWidth = 32, kThreadRows = 8;

// Spatial terms (log2 units) for window column dx as pairs for outputs
// (2p, 2p + 1) at tile row offset j' = j - 2p: (S(j'), S(j' - 1)), rows
// outside the window -inf so their weights are 0.
__constant__ __half2 c_pairs[kWindow][kWindow + 1];

__device__ __forceinline__ __half2 ex2_f16x2(__half2 x) {
  unsigned in = *reinterpret_cast<unsigned*>(&x), out;
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(out) : "r"(in));
  return *reinterpret_cast<__half2*>(&out);
}

// Rows: outputs a thread; Joint: rgb (one weight a tap) or per channel.
template <int Rows, bool Joint, bool HalfSums>
__global__ void __launch_bounds__(kTileWidth* kThreadRows, Rows == 8 ? 2 : 3)
    half_weights_kernel(cuda::DeviceBand in, cuda::DeviceOutput out, float scale, float inverse_scale) {
  constexpr int Pairs = Rows / 2, kTileHeight = kThreadRows * Rows, Groups = Joint ? 1 : 3;
  extern __shared__ float4 tile[];
  const int tile_width = kTileWidth + 2 * kR, tile_rows = kTileHeight + 2 * kR;
  const int x0 = blockIdx.x * kTileWidth, y0 = blockIdx.y * kTileHeight;
  for (int ty = threadIdx.y; ty < tile_rows; ty += kThreadRows)
    for (int tx = threadIdx.x; tx < tile_width; tx += kTileWidth) {
      const int x = min(x0 + tx, in.width - 1), y = min(y0 + ty, in.rows - 1);
      const size_t at = size_t(y) * size_t(in.width) + size_t(x);
      tile[ty * tile_width + tx] = make_float4(in.data[at] * scale, in.data[in.plane_stride + at] * scale,
                                               in.data[2 * in.plane_stride + at] * scale,
                                               log2f(in.data[3 * in.plane_stride + at]));
    }
  __syncthreads();

  const int tx = threadIdx.x, ty = threadIdx.y * Rows;
  float centre[Rows][3];
  __half2 centre2[Pairs][3];
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
    const float4 c = tile[(ty + k + kR) * tile_width + tx + kR];
    centre[k][0] = c.x;
    centre[k][1] = c.y;
    centre[k][2] = c.z;
  }
#pragma unroll
  for (int p = 0; p < Pairs; ++p)
#pragma unroll
    for (int ch = 0; ch < 3; ++ch) centre2[p][ch] = __floats2half2_rn(centre[2 * p][ch], centre[2 * p + 1][ch]);
  // float: sums[k][g] = (sum w, sum w n[0..2]) joint or (sum w, sum w n[g]);
  // half: (sum w, sum w d) in float, fed by the half2 column sums.
  float weight[Rows][Groups], value[Rows][3];
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
#pragma unroll
    for (int g = 0; g < Groups; ++g) weight[k][g] = 0.0f;
#pragma unroll
    for (int ch = 0; ch < 3; ++ch) value[k][ch] = 0.0f;
  }

  for (int dx = 0; dx < kWindow; ++dx) {
    __half2 spatial[kWindow + 1];
#pragma unroll
    for (int j = 0; j <= kWindow; ++j) spatial[j] = c_pairs[dx][j];
    __half2 column_weight[Pairs][Groups], column_value[Pairs][3];
    if constexpr (HalfSums) {
#pragma unroll
      for (int p = 0; p < Pairs; ++p) {
#pragma unroll
        for (int g = 0; g < Groups; ++g) column_weight[p][g] = __float2half2_rn(0.0f);
#pragma unroll
        for (int ch = 0; ch < 3; ++ch) column_value[p][ch] = __float2half2_rn(0.0f);
      }
    }
    const float4* column = tile + ty * tile_width + tx + dx;
#pragma unroll
    for (int j = 0; j < kWindow + Rows - 1; ++j) {
      const float4 v = column[j * tile_width];
      const float n[3] = {v.x, v.y, v.z};
      const __half2 n2[3] = {__float2half2_rn(v.x), __float2half2_rn(v.y), __float2half2_rn(v.z)};
      const __half2 log_alpha = __float2half2_rn(v.w);
#pragma unroll
      for (int p = 0; p < Pairs; ++p) {
        const int row = j - 2 * p;  // tile row offset of output 2p
        if (row < 0 || row > kWindow) continue;
        const __half2 base = __hadd2(spatial[row], log_alpha);
        __half2 d[3], w[Groups];
#pragma unroll
        for (int ch = 0; ch < 3; ++ch) d[ch] = __hsub2(centre2[p][ch], n2[ch]);
        if constexpr (Joint) {
          __half2 e = base;
#pragma unroll
          for (int ch = 0; ch < 3; ++ch) e = __hfma2(__hneg2(d[ch]), d[ch], e);
          w[0] = ex2_f16x2(e);
        } else {
#pragma unroll
          for (int ch = 0; ch < 3; ++ch) w[ch] = ex2_f16x2(__hfma2(__hneg2(d[ch]), d[ch], base));
        }
        if constexpr (HalfSums) {
#pragma unroll
          for (int g = 0; g < Groups; ++g) column_weight[p][g] = __hadd2(column_weight[p][g], w[g]);
#pragma unroll
          for (int ch = 0; ch < 3; ++ch) column_value[p][ch] = __hfma2(w[Joint ? 0 : ch], d[ch], column_value[p][ch]);
        } else {
#pragma unroll
          for (int g = 0; g < Groups; ++g) {
            const float2 wf = __half22float2(w[g]);
            weight[2 * p][g] += wf.x;
            weight[2 * p + 1][g] += wf.y;
#pragma unroll
            for (int ch = Joint ? 0 : g; ch < (Joint ? 3 : g + 1); ++ch) {
              value[2 * p][ch] = fmaf(wf.x, n[ch], value[2 * p][ch]);
              value[2 * p + 1][ch] = fmaf(wf.y, n[ch], value[2 * p + 1][ch]);
            }
          }
        }
      }
    }
    if constexpr (HalfSums) {
#pragma unroll
      for (int p = 0; p < Pairs; ++p) {
#pragma unroll
        for (int g = 0; g < Groups; ++g) {
          const float2 wf = __half22float2(column_weight[p][g]);
          weight[2 * p][g] += wf.x;
          weight[2 * p + 1][g] += wf.y;
        }
#pragma unroll
        for (int ch = 0; ch < 3; ++ch) {
          const float2 vf = __half22float2(column_value[p][ch]);
          value[2 * p][ch] += vf.x;
          value[2 * p + 1][ch] += vf.y;
        }
      }
    }
  }

  const int x = x0 + tx;
#pragma unroll
  for (int k = 0; k < Rows; ++k) {
    const int y = y0 + ty + k;
    if (x >= out.width || y >= out.rows) continue;
    const size_t at = size_t(y) * out.row_stride + size_t(x);
#pragma unroll
    for (int ch = 0; ch < 3; ++ch) {
      const float w = weight[k][Joint ? 0 : ch];
      const float result = HalfSums ? centre[k][ch] - value[k][ch] / w : value[k][ch] / w;
      out.data[size_t(ch) * out.plane_stride + at] = result * inverse_scale;
    }
  }
}

template <int Rows, bool Joint, bool HalfSums>
void launch_half(const cuda::DeviceBand& in, const cuda::DeviceOutput& out, float scale, float inverse_scale) {
  constexpr int tile_height = kThreadRows * Rows;
  const dim3 block(kTileWidth, kThreadRows);
  const dim3 grid((out.width + kTileWidth - 1) / kTileWidth, (out.rows + tile_height - 1) / tile_height);
  const size_t shared = size_t(kTileWidth + 2 * kR) * size_t(tile_height + 2 * kR) * sizeof(float4);
  auto kernel = half_weights_kernel<Rows, Joint, HalfSums>;
  cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)), "smem limit");
  kernel<<<grid, block, shared>>>(in, out, scale, inverse_scale);
  cuda::check(cudaGetLastError(), "launching the half-weights kernel");
}

// bench_cuda's card: smooth gradients, edges and noise.
float sample(int x, int y, int c, std::mt19937& rng) {
  std::normal_distribution<float> noise(0.0f, 0.03f);
  const float base = 0.5f + 0.3f * std::sin(x * 0.01f + c) * std::cos(y * 0.013f) + ((x / 300 + y / 200) % 2) * 0.15f;
  return std::clamp(base + noise(rng), 0.0f, 1.0f);
}

// The filter in double at output (x, y), channel ch, from the padded host planes.
double reference(const std::vector<float>& host, size_t plane, int pw, bool joint, double sigma_s, double sigma_r,
                 int x, int y, int ch) {
  const double inv = 1.0 / (2.0 * sigma_r * sigma_r), inv_s = 1.0 / (2.0 * sigma_s * sigma_s);
  auto at = [&](int c, int xx, int yy) { return double(host[size_t(c) * plane + size_t(yy + kR) * pw + size_t(xx + kR)]); };
  double w_sum = 0, v_sum = 0;
  for (int dy = -kR; dy <= kR; ++dy)
    for (int dx = -kR; dx <= kR; ++dx) {
      double q = 0;
      for (int c = joint ? 0 : ch; c < (joint ? 3 : ch + 1); ++c) {
        const double d = at(c, x + dx, y + dy) - at(c, x, y);
        q += d * d;
      }
      const double w = std::exp(-(dx * dx + dy * dy) * inv_s - q * inv) * at(3, x + dx, y + dy);
      w_sum += w;
      v_sum += w * at(ch, x + dx, y + dy);
    }
  return v_sum / w_sum;
}

struct Error {
  double max = 0, sum2 = 0;
  size_t count = 0, over8 = 0, over16 = 0;
  void add(double d) {
    d = std::fabs(d);
    max = std::max(max, d);
    sum2 += d * d;
    ++count;
    over8 += d * 255.0 > 0.5;
    over16 += d * 65535.0 > 0.5;
  }
  double rms() const { return std::sqrt(sum2 / double(std::max<size_t>(count, 1))); }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<float> sigmas;
  int repeats = 9;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--once")
      repeats = 1;
    else
      sigmas.push_back(std::strtof(argv[i], nullptr));
  }
  if (sigmas.empty()) sigmas = {30.0f, 10.0f};
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&device) != cudaSuccess || device == 0) {
    std::printf("no usable CUDA device: nothing measured\n");
    return 0;
  }
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s; 24 MP RGBA (alpha 1), r = 7, sigma-s 3.5, Gaussian\n", prop.name);
  std::printf("errors in 0..1 units; >8b, >16b: samples more than 0.5 code value of 8-bit, 16-bit output off\n\n");
  std::printf("%-12s %5s %-16s %9s %8s %10s %10s %10s %9s %9s %10s\n", "mode", "σr", "kernel", "ms", "Gtaps/s",
              "max|Δ|", "rms Δ", "ref max", ">8b", ">16b", "ref>16b");
  std::mt19937 rng(7);
  const int pw = kWidth + 2 * kR, prow = kHeight + 2 * kR;
  const size_t plane = size_t(pw) * prow;
  std::vector<float> host(plane * 4);
  for (int c = 0; c < 4; ++c)
    for (int y = 0; y < prow; ++y)
      for (int x = 0; x < pw; ++x) host[c * plane + size_t(y) * pw + x] = c == 3 ? 1.0f : sample(x, y, c, rng);
  cuda::DeviceMemory in_memory(host.size() * sizeof(float));
  cuda::check(cudaMemcpy(in_memory.as<float>(), host.data(), host.size() * 4, cudaMemcpyHostToDevice), "upload");
  const size_t out_plane = size_t(kWidth) * kHeight;
  cuda::DeviceMemory filter_memory(out_plane * 4 * 4), half_memory(out_plane * 4 * 4);
  const cuda::DeviceBand in = cuda::describe_device_band(in_memory.as<float>(), -kR, prow, kWidth, kR);
  const cuda::DeviceOutput filter_out{filter_memory.as<float>(), 0, kHeight, kWidth, size_t(kWidth), out_plane};
  const cuda::DeviceOutput half_out{half_memory.as<float>(), 0, kHeight, kWidth, size_t(kWidth), out_plane};
  const cuda::DeviceOutput no_sigma{};
  // Crops for the double reference: the top-left corner (borders) and the middle.
  const int crops[2][2] = {{0, 0}, {kWidth / 2, kHeight / 2}};
  constexpr int kCrop = 96;
  const double taps = double(kWidth) * kHeight * kWindow * kWindow;

  for (bool joint : {false, true})
    for (float sigma_r : sigmas) {
      BilateralParameters parameters;
      parameters.mode = joint ? ColorMode::rgb : ColorMode::per_channel;
      parameters.radius = kR;
      parameters.sigma_s = kR / 2.0f;
      parameters.sigma_r = sigma_r;
      const auto planned = make_plan(bilateral_spec(parameters), {kWidth, kHeight, 4});
      const auto& plan = static_cast<const BilateralPlan&>(*planned);
      const float scale = plan.params.scale, inverse_scale = plan.params.inverse_scale;
      __half2 pairs[kWindow][kWindow + 1];
      auto spatial = [&](int dx, int row) {
        return row < 0 || row >= kWindow ? -INFINITY : plan.spatial_term[size_t(row) * kWindow + size_t(dx)];
      };
      for (int dx = 0; dx < kWindow; ++dx)
        for (int row = 0; row <= kWindow; ++row) pairs[dx][row] = __floats2half2_rn(spatial(dx, row), spatial(dx, row - 1));
      cuda::check(cudaMemcpyToSymbol(c_pairs, pairs, sizeof pairs), "uploading the pairs");
      cuda::DeviceMemory table(plan.spatial_term.size() * sizeof(float));
      cuda::upload_spatial_table(plan, table.as<float>(), nullptr);

      const float filter_ms =
          median_event_ms([&] { cuda::launch_filter(plan, in, filter_out, no_sigma, 0, table.as<float>(), nullptr); }, repeats);
      std::vector<float> filter_host(out_plane * 3), half_host(out_plane * 3);
      cuda::check(cudaMemcpy(filter_host.data(), filter_out.data, filter_host.size() * 4, cudaMemcpyDeviceToHost),
                  "download");
      std::vector<double> ref;
      for (const auto& crop : crops)
        for (int y = crop[1]; y < crop[1] + kCrop; ++y)
          for (int x = crop[0]; x < crop[0] + kCrop; ++x)
            for (int ch = 0; ch < 3; ++ch)
              ref.push_back(reference(host, plane, pw, joint, parameters.sigma_s, sigma_r / 255.0, x, y, ch));
      auto against_reference = [&](const std::vector<float>& result) {
        Error e;
        size_t i = 0;
        for (const auto& crop : crops)
          for (int y = crop[1]; y < crop[1] + kCrop; ++y)
            for (int x = crop[0]; x < crop[0] + kCrop; ++x)
              for (int ch = 0; ch < 3; ++ch) e.add(result[ch * out_plane + size_t(y) * kWidth + x] - ref[i++]);
        return e;
      };
      const Error filter_ref = against_reference(filter_host);
      const char* mode = joint ? "rgb" : "per-channel";
      std::printf("%-12s %5.0f %-16s %9.3f %8.0f %10s %10s %10.2e %9s %9s %10zu\n", mode, sigma_r, "filter (float)",
                  filter_ms, taps / (filter_ms * 1e-3) / 1e9, "-", "-", filter_ref.max, "-", "-", filter_ref.over16);

      auto variant = [&](const char* name, auto launch) {
        cuda::check(cudaMemset(half_out.data, 0, out_plane * 3 * 4), "clearing");
        const float ms = median_event_ms(launch, repeats);
        cuda::check(cudaMemcpy(half_host.data(), half_out.data, half_host.size() * 4, cudaMemcpyDeviceToHost),
                    "download");
        Error all;
        for (size_t i = 0; i < half_host.size(); ++i) all.add(double(half_host[i]) - double(filter_host[i]));
        const Error r = against_reference(half_host);
        std::printf("%-12s %5.0f %-16s %9.3f %8.0f %10.2e %10.2e %10.2e %9zu %9zu %10zu\n", mode, sigma_r, name, ms,
                    taps / (ms * 1e-3) / 1e9, all.max, all.rms(), r.max, all.over8, all.over16, r.over16);
      };
      if (joint) {
        variant("f16x2, float sum", [&] { launch_half<8, true, false>(in, half_out, scale, inverse_scale); });
        variant("f16x2, half sum", [&] { launch_half<8, true, true>(in, half_out, scale, inverse_scale); });
      } else {
        variant("f16x2, float sum", [&] { launch_half<4, false, false>(in, half_out, scale, inverse_scale); });
        variant("f16x2, half sum", [&] { launch_half<4, false, true>(in, half_out, scale, inverse_scale); });
      }
    }
  std::printf("\n%zu samples compared against the filter's float output per row; %d crops of %dx%d against "
              "the double reference\n",
              out_plane * 3, 2, kCrop, kCrop);
  return 0;
}
