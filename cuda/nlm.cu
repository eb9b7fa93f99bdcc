// The non-local-means bilateral filter on the GPU: one fused kernel per
// band, nothing per offset written to device memory. A block holds its
// tile's input region (the tile grown by S + f) in shared memory, loaded
// once; then each warp works alone on a strip of the tile, with no block
// barrier in the offset loop. For each search offset a warp walks its
// strip's rows: lane l computes the squared difference E of its column
// (the tile's columns grown by f), keeps the last 2f + 1 rows of it in a
// per-lane ring in shared memory, sums them (the vertical box sum) and adds
// its neighbours' sums by warp shuffles: the patch
// distance, for the 32 - 2f lanes whose patch lies within the warp's
// columns. Then one weight and the weighted sums, in registers. Per pixel
// and offset: one difference, 2f + 1 ring reads, 2f shuffles.
#include <algorithm>

#include "color_lab.h"
#include "nlm_cuda.h"
#include "nlm_math.h"

namespace edgewise::cuda {

namespace {

constexpr int kMaxWarps = 8;   // warps per block, stacked strips
constexpr int kStripRows = 8;  // output rows per warp
constexpr unsigned kAllLanes = 0xffffffffu;

struct NlmLayout {
  int warps;                        // strips per tile (fewer where the region would not fit)
  int tile_width;                   // output columns per tile: 32 - 2f
  int region_width, region_height;  // the tile grown by S + f
  int ring;                         // 2f + 1 rows of E per lane
  int groups;                       // weight groups: 1, or 3 per-channel
  EW_HD int tile_height() const { return warps * kStripRows; }
  EW_HD size_t region_floats4() const { return size_t(region_width) * size_t(region_height); }
  size_t shared_bytes() const {
    return region_floats4() * sizeof(float4) + size_t(warps) * size_t(groups) * size_t(ring) * 32 * sizeof(float);
  }
};

int shared_memory_limit() {
  int device = 0, limit = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return 48 * 1024;
  return limit;
}

// The most strips per tile whose region fits the GPU's shared memory; a
// layout depends on the plan alone, so every band tiles the image alike.
NlmLayout layout_for(const NlmParams& p) {
  static const int limit = shared_memory_limit();
  const int S = p.search_radius, f = p.patch_radius;
  const int tile_width = 32 - 2 * f;
  NlmLayout layout{};
  for (int warps = kMaxWarps; warps >= 1; warps /= 2) {
    layout = {warps, tile_width, tile_width + 2 * (S + f), warps * kStripRows + 2 * (S + f), 2 * f + 1,
              p.joint ? 1 : p.color_channels};
    if (layout.shared_bytes() <= size_t(limit)) break;
  }
  return layout;
}

__device__ float colour_of(const float4& v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }

template <RangeKernel K, int C, bool Joint, bool Alpha>
__global__ void __launch_bounds__(32 * kMaxWarps)
    nlm_kernel(DeviceBand in, DeviceOutput out, NlmParams p, NlmLayout layout) {
  constexpr int kGroups = Joint ? 1 : C;
  extern __shared__ float4 shared[];
  float4* region = shared;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* ring = reinterpret_cast<float*>(region + layout.region_floats4()) + warp * kGroups * layout.ring * 32;

  const int S = p.search_radius, f = p.patch_radius, reach = S + f, W = layout.region_width;
  // Tiles sit on image rows that are multiples of the tile height whatever
  // the band's first row, so each pixel is computed by the same lane, strip
  // and instruction sequence in every band: bit-identical across band
  // heights. tile_y is output-relative and may be negative.
  const int tile_height = layout.tile_height(), shift = out.first_row % tile_height;
  const int tile_x = blockIdx.x * layout.tile_width, tile_y = int(blockIdx.y) * tile_height - shift;

  // The region: band rows tile_y .. (band row j + reach is output row j),
  // band columns tile_x .. (pad = reach), clamped to the band.
  for (int i = threadIdx.x; i < W * layout.region_height; i += 32 * layout.warps) {
    const int ry = i / W, rx = i - ry * W;
    const int by = max(0, min(tile_y + ry, in.rows - 1)), bx = min(tile_x + rx, in.width - 1);
    const size_t at = size_t(by) * size_t(in.width) + size_t(bx);
    float4 v;
    v.x = in.plane(0)[at] * p.unit;
    v.y = C == 3 ? in.plane(1)[at] * p.unit : 0.f;
    v.z = C == 3 ? in.plane(2)[at] * p.unit : 0.f;
    v.w = Alpha ? in.plane(C)[at] : 1.f;
    region[i] = v;
  }
  __syncthreads();

  // Lane l's E column is output column l - f of the tile; its pixel p at
  // E row r (output row strip + r - f) is region (l + S, strip + r + S).
  const int strip = warp * kStripRows;
  const bool outputs = lane >= f && lane < 32 - f;
  float sum[kStripRows][C];
  float weight_sum[kStripRows][kGroups];
#pragma unroll
  for (int j = 0; j < kStripRows; ++j) {
#pragma unroll
    for (int c = 0; c < C; ++c) sum[j][c] = 0.f;
#pragma unroll
    for (int g = 0; g < kGroups; ++g) weight_sum[j][g] = 0.f;
  }

  for (int dy = -S; dy <= S; ++dy)
    for (int dx = -S; dx <= S; ++dx) {
      const float spatial = nlm_spatial_log2(p, dx, dy);
      const float4* pixel = region + (strip + S) * W + lane + S;  // E row 0
      const float4* shifted = pixel + dy * W + dx;
      float vertical[kGroups];
      // E of row r into the ring; returns it per group.
      auto difference = [&](int r, float* e) {
        const float4 a = pixel[r * W], b = shifted[r * W];
        const float d0 = a.x - b.x, d1 = a.y - b.y, d2 = a.z - b.z;
        if constexpr (Joint) {
          e[0] = C == 3 ? d0 * d0 + d1 * d1 + d2 * d2 : d0 * d0;
        } else {
          e[0] = d0 * d0;
          e[1] = d1 * d1;
          e[2] = d2 * d2;
        }
      };
      // The first 2f rows into the ring.
      for (int r = 0; r < 2 * f; ++r) {
        float e[kGroups];
        difference(r, e);
        for (int g = 0; g < kGroups; ++g) ring[(g * layout.ring + r) * 32 + lane] = e[g];
      }
#pragma unroll
      for (int j = 0; j < kStripRows; ++j) {
        const int r = j + 2 * f;  // the newest E row; output row j is E row j + f
        const int slot = r % layout.ring, centre_slot = (j + f) % layout.ring;
        float e[kGroups];
        difference(r, e);
        float box[kGroups], centre[kGroups];
#pragma unroll
        for (int g = 0; g < kGroups; ++g) {
          float* row = ring + g * layout.ring * 32 + lane;
          row[slot * 32] = e[g];  // over E row r - (2f+1), which leaves the window
          // The vertical sum afresh from the ring, not as a running sum: a
          // running sum would carry the rounding of rows above the band,
          // which differ between band heights (clamped copies or real rows).
          float v = row[0];
          for (int k = 1; k < layout.ring; ++k) v += row[k * 32];
          vertical[g] = v;
          centre[g] = row[centre_slot * 32];
          // The horizontal sum of the vertical sums, lanes l - f .. l + f.
          float b = vertical[g];
          for (int t = 1; t <= f; ++t)
            b += __shfl_down_sync(kAllLanes, vertical[g], t) + __shfl_up_sync(kAllLanes, vertical[g], t);
          box[g] = b;
        }
        if (outputs) {
          const float4 q = shifted[(j + f) * W];
#pragma unroll
          for (int g = 0; g < kGroups; ++g) {
            float w = nlm_weight<K>(p, box[g], centre[g], spatial);
            if constexpr (Alpha) w *= q.w;
            weight_sum[j][g] += w;
            if constexpr (Joint) {
              sum[j][0] += w * q.x;
              if constexpr (C == 3) {
                sum[j][1] += w * q.y;
                sum[j][2] += w * q.z;
              }
            } else {
              sum[j][g] += w * colour_of(q, g);
            }
          }
        }
      }
    }

  if (!outputs) return;
#pragma unroll
  for (int j = 0; j < kStripRows; ++j) {
    const int x = tile_x + lane - f, y = tile_y + strip + j;
    if (x >= out.width || y < 0 || y >= out.rows) continue;
    const size_t at = size_t(y) * out.row_stride + size_t(x);
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      float value[3];
      if (weight_sum[j][g] >= kNlmRescueWeightSum) {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (Joint || c == g) value[c] = sum[j][c] / weight_sum[j][g];
      } else {
        const float4* centre = region + (strip + j + reach) * W + lane + S;
        auto fetch = [&](int ox, int oy, float* colour, float& a) {
          const float4 v = centre[oy * W + ox];
          colour[0] = v.x;
          colour[1] = v.y;
          colour[2] = v.z;
          a = v.w;
        };
        nlm_rescue_pixel(p, fetch, g, value);
      }
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (Joint || c == g) out.plane(c)[at] = value[c] * p.inverse_unit;
    }
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

template <RangeKernel K, int C, bool Joint, bool Alpha>
void launch(const NlmParams& p, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream) {
  const NlmLayout layout = layout_for(p);
  const size_t shared = layout.shared_bytes();
  auto kernel = nlm_kernel<K, C, Joint, Alpha>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
        "raising the nlm kernel's shared-memory limit");
  const int tile_height = layout.tile_height(), shift = out.first_row % tile_height;  // see nlm_kernel
  const dim3 grid((out.width + layout.tile_width - 1) / layout.tile_width,
                  (shift + out.rows + tile_height - 1) / tile_height);
  kernel<<<grid, 32 * layout.warps, shared, stream>>>(in, out, p, layout);
  check(cudaGetLastError(), "launching the nlm kernel");
}

template <RangeKernel K>
void launch_layout(const NlmParams& p, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream) {
  if (p.color_channels == 1)
    return p.has_alpha ? launch<K, 1, true, true>(p, in, out, stream) : launch<K, 1, true, false>(p, in, out, stream);
  if (p.joint)
    return p.has_alpha ? launch<K, 3, true, true>(p, in, out, stream) : launch<K, 3, true, false>(p, in, out, stream);
  return p.has_alpha ? launch<K, 3, false, true>(p, in, out, stream) : launch<K, 3, false, false>(p, in, out, stream);
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

void launch_nlm(const NlmPlan& plan, const DeviceBand& in, const DeviceOutput& out, cudaStream_t stream) {
  const NlmParams& p = plan.params;
  switch (p.kernel) {
    case RangeKernel::tukey:
      return launch_layout<RangeKernel::tukey>(p, in, out, stream);
    case RangeKernel::lorentz:
      return launch_layout<RangeKernel::lorentz>(p, in, out, stream);
    case RangeKernel::huber:
      return launch_layout<RangeKernel::huber>(p, in, out, stream);
    default:
      return launch_layout<RangeKernel::gaussian>(p, in, out, stream);
  }
}

std::string nlm_unsupported(const Plan& plan) {
  const NlmLayout layout = layout_for(static_cast<const NlmPlan&>(plan).params);
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
