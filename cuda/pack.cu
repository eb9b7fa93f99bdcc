// Moves between raw rows and planar bands on the device, so 8-bit images
// cross PCIe as 8-bit: the same clamp-to-edge unpack, rounding pack and
// re-padding core's band_io does on the host, with core's conversions
// (sample_convert.h).
#include <cuda_runtime.h>

#include "device_band.h"

namespace edgewise::cuda {

namespace {

template <class T>
__global__ void unpack_kernel(const unsigned char* raw, size_t raw_stride, int first_row, int stored_rows,
                              int image_width, int planes, DeviceBand band) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // padded column
  const int i = blockIdx.y * blockDim.y + threadIdx.y;  // band row
  if (x >= band.width || i >= band.rows) return;
  const int image_y = min(max(band.first_row + i, first_row), first_row + stored_rows - 1);
  const int image_x = min(max(x - band.pad, 0), image_width - 1);
  const T* row = reinterpret_cast<const T*>(raw + size_t(image_y - first_row) * raw_stride);
  for (int c = 0; c < planes; ++c)
    band.plane(c)[size_t(i) * band.width + x] = sample_to_float(row[size_t(image_x) * planes + c]);
}

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ uint8_t from_float<uint8_t>(float v) {
  return float_to_u8(v);
}
template <>
__device__ __forceinline__ uint16_t from_float<uint16_t>(float v) {
  return float_to_u16(v);
}
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}

template <class T>
__global__ void pack_kernel(DeviceOutput out, int planes, unsigned char* raw, size_t raw_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  T* row = reinterpret_cast<T*>(raw + size_t(y) * raw_stride);
  for (int c = 0; c < planes; ++c)
    row[size_t(x) * planes + c] = from_float<T>(out.plane(c)[size_t(y) * out.row_stride + x]);
}

// Every sample outside the computed rows [first, first + count) and the
// inside columns takes the value of the nearest computed one. Computed
// samples are only read, so threads never race.
__global__ void repad_kernel(DeviceBand band, int planes, int first, int count) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= band.width || i >= band.rows) return;
  const int from_i = min(max(i, first), first + count - 1);
  const int from_x = min(max(x, band.pad), band.width - band.pad - 1);
  if (from_i == i && from_x == x) return;
  for (int c = 0; c < planes; ++c)
    band.plane(c)[size_t(i) * band.width + x] = band.plane(c)[size_t(from_i) * band.width + from_x];
}

__global__ void copy_plane_kernel(DeviceBand in, int row_offset, DeviceOutput out, int plane) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  out.plane(plane)[size_t(y) * out.row_stride + x] = in.plane(plane)[size_t(y + row_offset) * in.width + x + in.pad];
}

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
}

}  // namespace

DeviceBand describe_device_band(float* data, int first_row, int rows, int image_width, int pad) {
  DeviceBand band;
  band.data = data;
  band.first_row = first_row;
  band.rows = rows;
  band.width = image_width + 2 * pad;
  band.pad = pad;
  band.plane_stride = size_t(rows) * size_t(band.width);
  return band;
}

DeviceOutput inside_of(const DeviceBand& band, int first, int rows) {
  DeviceOutput inside;
  inside.data = band.data + size_t(first) * size_t(band.width) + size_t(band.pad);
  inside.first_row = band.first_row + first;
  inside.rows = rows;
  inside.width = band.width - 2 * band.pad;
  inside.row_stride = size_t(band.width);
  inside.plane_stride = band.plane_stride;
  return inside;
}

DeviceBand from_row(const DeviceBand& band, int first, int rows) {
  DeviceBand part = band;
  part.data = band.data + size_t(first) * size_t(band.width);
  part.first_row = band.first_row + first;
  part.rows = rows;
  return part;
}

DeviceOutput from_row(const DeviceOutput& out, int first, int rows) {
  DeviceOutput part = out;
  part.data = out.data + size_t(first) * out.row_stride;
  part.first_row = out.first_row + first;
  part.rows = rows;
  return part;
}

void launch_unpack(SampleType type, const void* raw, size_t raw_stride, int first_row, int rows, int image_width,
                   int planes, const DeviceBand& band, cudaStream_t stream) {
  const dim3 block(64, 4), grid = grid_for(band.width, band.rows, block);
  const auto* bytes = static_cast<const unsigned char*>(raw);
  switch (type) {
    case SampleType::u8:
      unpack_kernel<uint8_t><<<grid, block, 0, stream>>>(bytes, raw_stride, first_row, rows, image_width, planes, band);
      break;
    case SampleType::u16:
      unpack_kernel<uint16_t>
          <<<grid, block, 0, stream>>>(bytes, raw_stride, first_row, rows, image_width, planes, band);
      break;
    case SampleType::f32:
      unpack_kernel<float><<<grid, block, 0, stream>>>(bytes, raw_stride, first_row, rows, image_width, planes, band);
      break;
  }
  check(cudaGetLastError(), "launching the unpack kernel");
}

void launch_pack(SampleType type, const DeviceOutput& out, int planes, void* raw, size_t raw_stride,
                 cudaStream_t stream) {
  const dim3 block(64, 4), grid = grid_for(out.width, out.rows, block);
  auto* bytes = static_cast<unsigned char*>(raw);
  switch (type) {
    case SampleType::u8:
      pack_kernel<uint8_t><<<grid, block, 0, stream>>>(out, planes, bytes, raw_stride);
      break;
    case SampleType::u16:
      pack_kernel<uint16_t><<<grid, block, 0, stream>>>(out, planes, bytes, raw_stride);
      break;
    case SampleType::f32:
      pack_kernel<float><<<grid, block, 0, stream>>>(out, planes, bytes, raw_stride);
      break;
  }
  check(cudaGetLastError(), "launching the pack kernel");
}

void launch_repad(const DeviceBand& band, int planes, int first, int count, cudaStream_t stream) {
  const dim3 block(64, 4);
  repad_kernel<<<grid_for(band.width, band.rows, block), block, 0, stream>>>(band, planes, first, count);
  check(cudaGetLastError(), "launching the re-padding kernel");
}

void launch_invalid_configuration() {
  // A block of 4096 threads: invalid on every device.
  repad_kernel<<<1, dim3(64, 64)>>>(DeviceBand{}, 0, 0, 0);
  check(cudaGetLastError(), "injected failure (EDGEWISE_INJECT_GPU_FAILURE=launch)");
}

void launch_copy_plane(const DeviceBand& in, int row_offset, const DeviceOutput& out, int plane, cudaStream_t stream) {
  const dim3 block(32, 8);
  copy_plane_kernel<<<grid_for(out.width, out.rows, block), block, 0, stream>>>(in, row_offset, out, plane);
  check(cudaGetLastError(), "launching the plane copy");
}

}  // namespace edgewise::cuda
