// Raw interleaved samples <-> padded planar floats, on the device, so 8-bit
// images cross PCIe as 8-bit. Conversions are core's (sample_convert.h), the
// same the CPU adapters use.
#include <cuda_runtime.h>

#include "bilateral_cuda.h"

namespace edgewise::cuda {

namespace {

template <class T>
__global__ void unpack_kernel(const unsigned char* raw, size_t raw_stride, int first_row, int stored_rows, int y0,
                              int r, int width, int channels, DeviceBand band) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // padded column
  const int i = blockIdx.y * blockDim.y + threadIdx.y;  // padded row
  if (x >= band.width || i >= band.rows) return;
  // Clamp to edge in both directions, as BandGatherer does on the host.
  const int image_y = min(max(y0 - r + i, first_row), first_row + stored_rows - 1);
  const int image_x = min(max(x - r, 0), width - 1);
  const T* row = reinterpret_cast<const T*>(raw + size_t(image_y - first_row) * raw_stride);
  for (int c = 0; c < channels; ++c)
    band.plane(c)[size_t(i) * band.width + x] = sample_to_float(row[size_t(image_x) * channels + c]);
}

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ uint8_t from_float<uint8_t>(float v) { return float_to_u8(v); }
template <>
__device__ __forceinline__ uint16_t from_float<uint16_t>(float v) { return float_to_u16(v); }
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }

template <class T>
__global__ void pack_kernel(DeviceOutput out, int channels, unsigned char* raw, size_t raw_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  T* row = reinterpret_cast<T*>(raw + size_t(y) * raw_stride);
  for (int c = 0; c < channels; ++c)
    row[size_t(x) * channels + c] = from_float<T>(out.plane(c)[size_t(y) * out.width + x]);
}

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
}

}  // namespace

void launch_unpack(SampleType type, const void* raw, size_t raw_stride, int first_row, int stored_rows, int y0,
                   const Plan& plan, const DeviceBand& band, cudaStream_t stream) {
  const dim3 block(64, 4), grid = grid_for(band.width, band.rows, block);
  const auto* bytes = static_cast<const unsigned char*>(raw);
  const int r = plan.radius, width = plan.shape.width, channels = plan.shape.channels;
  switch (type) {
    case SampleType::u8:
      unpack_kernel<uint8_t><<<grid, block, 0, stream>>>(bytes, raw_stride, first_row, stored_rows, y0, r, width,
                                                         channels, band);
      break;
    case SampleType::u16:
      unpack_kernel<uint16_t><<<grid, block, 0, stream>>>(bytes, raw_stride, first_row, stored_rows, y0, r, width,
                                                          channels, band);
      break;
    case SampleType::f32:
      unpack_kernel<float><<<grid, block, 0, stream>>>(bytes, raw_stride, first_row, stored_rows, y0, r, width,
                                                       channels, band);
      break;
  }
  check(cudaGetLastError(), "launching the unpack kernel");
}

void launch_pack(SampleType type, const DeviceOutput& out, int channels, void* raw, size_t raw_stride,
                 cudaStream_t stream) {
  const dim3 block(64, 4), grid = grid_for(out.width, out.rows, block);
  auto* bytes = static_cast<unsigned char*>(raw);
  switch (type) {
    case SampleType::u8: pack_kernel<uint8_t><<<grid, block, 0, stream>>>(out, channels, bytes, raw_stride); break;
    case SampleType::u16: pack_kernel<uint16_t><<<grid, block, 0, stream>>>(out, channels, bytes, raw_stride); break;
    case SampleType::f32: pack_kernel<float><<<grid, block, 0, stream>>>(out, channels, bytes, raw_stride); break;
  }
  check(cudaGetLastError(), "launching the pack kernel");
}

}  // namespace edgewise::cuda
