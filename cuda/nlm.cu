// The non-local-means bilateral filter on the GPU: the band kernel (Lab
// conversion around the fused kernel, alpha carried), the layout of a
// tile, and the dispatch to the fused kernel of the plan's patch radius
// (nlm_kernel.cuh, one translation unit per radius).
#include <algorithm>

#include "color_lab.h"
#include "nlm_cuda.h"
#include "nlm_layout.h"

namespace edgewise::cuda {

namespace {

int shared_memory_limit() {
  int device = 0, limit = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return 48 * 1024;
  return limit;
}

int strip_rows(const NlmParams& p) {
  static_assert(kNlmMaxPatchRadius == 5, "one case per patch radius");
  const bool joint = p.joint || p.color_channels == 1;
  switch (p.patch_radius) {
    case 0:
      return nlm_strip_rows(p.color_channels, joint, 0);
    case 1:
      return nlm_strip_rows(p.color_channels, joint, 1);
    case 2:
      return nlm_strip_rows(p.color_channels, joint, 2);
    case 3:
      return nlm_strip_rows(p.color_channels, joint, 3);
    case 4:
      return nlm_strip_rows(p.color_channels, joint, 4);
    default:
      return nlm_strip_rows(p.color_channels, joint, 5);
  }
}

__global__ void nlm_to_lab_kernel(float* r, float* g, float* b, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    rgb_to_lab(r[i], g[i], b[i], r[i], g[i], b[i]);
}

__global__ void nlm_from_lab_kernel(DeviceOutput out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.rows) return;
  const size_t at = size_t(y) * out.row_stride + size_t(x);
  float* L = out.plane(0) + at;
  float* a = out.plane(1) + at;
  float* b = out.plane(2) + at;
  lab_to_rgb(*L, *a, *b, *L, *a, *b);
}

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
}

class NlmDeviceKernel : public DeviceBandKernel {
 public:
  explicit NlmDeviceKernel(const NlmPlan& plan) : plan_(plan) {}

  void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>&, float*,
           cudaStream_t stream) override {
    const NlmParams& p = plan_.params;
    if (p.lab) {
      nlm_to_lab_kernel<<<264, 256, 0, stream>>>(input.plane(0), input.plane(1), input.plane(2), input.plane_stride);
      check(cudaGetLastError(), "launching the Lab conversion");
    }
    launch_nlm(plan_, input, output, stream);
    if (p.lab) {
      const dim3 block(32, 8);
      nlm_from_lab_kernel<<<grid_for(output.width, output.rows, block), block, 0, stream>>>(output);
      check(cudaGetLastError(), "launching the Lab conversion");
    }
    if (p.has_alpha) launch_copy_plane(input, plan_.reach, output, p.color_channels, stream);
  }

 private:
  const NlmPlan& plan_;
};

}  // namespace

NlmLayout nlm_layout(const NlmParams& p) {
  static const int limit = shared_memory_limit();
  const int S = p.search_radius, f = p.patch_radius, rows = strip_rows(p);
  const int tile_width = 32 - 2 * f;
  NlmLayout layout{};
  for (int warps = kNlmMaxWarps; warps >= 1; warps /= 2) {
    layout = {warps,
              rows,
              tile_width,
              tile_width + 2 * (S + f),
              warps * rows + 2 * (S + f),
              p.color_channels + (p.has_alpha ? 1 : 0)};
    if (layout.shared_bytes() <= size_t(limit)) break;
  }
  return layout;
}

void launch_nlm(const NlmPlan& plan, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream) {
  const NlmParams& p = plan.params;
  switch (p.patch_radius) {
    case 0:
      return launch_nlm_patch<0>(p, in, out, stream);
    case 1:
      return launch_nlm_patch<1>(p, in, out, stream);
    case 2:
      return launch_nlm_patch<2>(p, in, out, stream);
    case 3:
      return launch_nlm_patch<3>(p, in, out, stream);
    case 4:
      return launch_nlm_patch<4>(p, in, out, stream);
    default:
      return launch_nlm_patch<5>(p, in, out, stream);
  }
}

std::string nlm_unsupported(const Plan& plan) {
  const NlmLayout layout = nlm_layout(static_cast<const NlmPlan&>(plan).params);
  const int limit = shared_memory_limit();
  if (layout.shared_bytes() > size_t(limit))
    return "the nlm filter's search and patch radii need " + std::to_string(layout.shared_bytes() / 1024) +
           " KiB of shared memory per block; this GPU has " + std::to_string(limit / 1024);
  return "";
}

std::unique_ptr<DeviceBandKernel> make_nlm_device_kernel(const Plan& plan) {
  return std::make_unique<NlmDeviceKernel>(static_cast<const NlmPlan&>(plan));
}

}  // namespace edgewise::cuda
