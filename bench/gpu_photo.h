// What the GPU benchmarks of whole-image band kernels share (fourier,
// pyramid): a photo-like 8-bit RGB test card, that card resident on the
// device as one float band (the input a band kernel gets from the runner),
// and run_filter on it end to end from 8-bit host buffers.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "device_band.h"
#include "device_resources.h"
#include "engine.h"
#include "wall_timing.h"

namespace edgewise_bench {

// Smooth gradients, blocks with edges, and noise of sigma 15 code values.
inline std::vector<uint8_t> photo_like(int width, int height) {
  std::mt19937 rng(14);
  std::normal_distribution<float> noise(0.0f, 15.0f);
  std::vector<uint8_t> pixels(size_t(width) * size_t(height) * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        const float base =
            128.0f + 70.0f * std::sin(x * 0.004f + c) * std::cos(y * 0.005f) + ((x / 700 + y / 500) % 2) * 40.0f;
        pixels[(size_t(y) * size_t(width) + size_t(x)) * 3 + c] = uint8_t(std::clamp(base + noise(rng), 0.0f, 255.0f));
      }
  return pixels;
}

// The whole RGB image as one planar float band on the device (samples /
// 255), `reach` clamped rows above and below and `pad` clamped columns.
struct ResidentBand {
  edgewise::cuda::DeviceMemory memory;
  edgewise::cuda::DeviceBand band;
};

inline ResidentBand resident_band(const std::vector<uint8_t>& pixels, int width, int height, int reach, int pad) {
  const int rows = height + 2 * reach, padded = width + 2 * pad;
  const size_t plane = size_t(padded) * size_t(rows);
  std::vector<float> host(plane * 3);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < rows; ++y) {
      const int from = std::clamp(y - reach, 0, height - 1);
      for (int x = 0; x < padded; ++x) {
        const int column = std::clamp(x - pad, 0, width - 1);
        host[size_t(c) * plane + size_t(y) * size_t(padded) + size_t(x)] =
            pixels[(size_t(from) * size_t(width) + size_t(column)) * 3 + size_t(c)] / 255.0f;
      }
    }
  ResidentBand resident{edgewise::cuda::DeviceMemory(host.size() * sizeof(float)), {}};
  edgewise::cuda::check(
      cudaMemcpy(resident.memory.as<float>(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
      "uploading the bench's band");
  resident.band = edgewise::cuda::describe_device_band(resident.memory.as<float>(), -reach, rows, width, pad);
  return resident;
}

// run_filter on the CUDA backend from and into 8-bit RGB host buffers
// (transfers and bands included): median of `repeats` after a warm-up.
inline double end_to_end_ms(const edgewise::FilterSpec& spec, const uint8_t* pixels, uint8_t* output, int width,
                            int height, int repeats = 3) {
  const edgewise::ImageShape shape{width, height, 3};
  edgewise::RunOptions options;
  options.backend = "cuda";
  return median_ms(
      [&] {
        run_filter(spec, edgewise::ImageBuffer{const_cast<uint8_t*>(pixels), shape, edgewise::SampleType::u8, 0},
                   edgewise::ImageBuffer{output, shape, edgewise::SampleType::u8, 0}, options);
      },
      repeats);
}

}  // namespace edgewise_bench
