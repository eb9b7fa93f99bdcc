// The collaborative denoiser (Non-Local Bayes: Lebrun, Buades & Morel, SIAM
// J. Imaging Sciences 2013; multiscale as the Noise Clinic, Lebrun, Colom &
// Morel, IPOL 2015; core/filters/nlbayes.h states the algorithm) on the
// GPU: the CPU band kernel's steps (cpu_fallback/nlbayes_cpu.cpp) with the
// same row ranges, on the device. Per band, on the slot's stream:
//   - the input band's colour planes become opponent code values in place
//     (the kernel may overwrite its input band);
//   - from the output rows back, each scale's rows (2 x 2 means of the
//     finer scale's) and each step's: the step's sums zeroed, one block per
//     reference patch of every grid row whose groups reach the rows the step
//     delivers (nlbayes_groups.cu), then sums divided (a pixel no group
//     reached keeps the step's input);
//   - the scales recombined from the coarsest (denoised + bilinear
//     upsampling of coarse - Dn(denoised)), back to R'G'B' in the output.
// The sums are 32.32 fixed-point integers added by atomics, so every pixel's
// sum is the same whatever order the blocks run in and whichever band
// computes it: the output is bit-identical for any band height, budget and
// run. It differs from the CPU's float sums by rounding (and by the group
// search where float distances computed in another order tie differently).
// Device memory: each band's working rows are carved from one buffer per
// stream (the backend keeps three bands in flight), measured by a dry run
// of the same code before the band runs; nlbayes_device_cost gives the
// backend's budget an upper bound of it, so the band heights it chooses keep
// the whole job within the budget.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "device_resources.h"
#include "nlbayes_cuda.h"
#include "nlbayes_math.h"
#include "opponent_color.h"

namespace edgewise::cuda {

namespace {

constexpr int kMaxSharedBytes = 48 * 1024;  // without the opt-in; the opt-in limit is asked

int shared_memory_limit() {
  int device = 0, limit = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return kMaxSharedBytes;
  return limit;
}

int ceil_half(int value) { return (value + 1) / 2; }

dim3 grid_for(int width, int rows, dim3 block) {
  return dim3(unsigned(width + int(block.x) - 1) / block.x, unsigned(rows + int(block.y) - 1) / block.y);
}

const dim3 kBlock(32, 8);

// The band's colour planes, rows [first, first + rows) of the image, to
// opponent code values (grey: code values) in place.
__global__ void nlb_to_opponent_kernel(NlbDeviceRows rows) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = rows.row0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= rows.width || y >= rows.row0 + rows.rows) return;
  if (rows.channels == 3) {
    float* r = rows.row(0, y) + x;
    float* g = rows.row(1, y) + x;
    float* b = rows.row(2, y) + x;
    rgb_to_opponent(255.0f * *r, 255.0f * *g, 255.0f * *b, *r, *g, *b);
  } else {
    rows.row(0, y)[x] *= 255.0f;
  }
}

// The result's rows back to R'G'B' (0-1) in the output, alpha from the input.
__global__ void nlb_to_output_kernel(NlbDeviceRows result, NlbDeviceRows input, DeviceOutput out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || j >= out.rows) return;
  const int y = out.first_row + j;
  const size_t at = size_t(j) * out.row_stride + size_t(x);
  if (result.channels == 3) {
    float r, g, b;
    opponent_to_rgb(result.row(0, y)[x], result.row(1, y)[x], result.row(2, y)[x], r, g, b);
    out.plane(0)[at] = r * (1.0f / 255.0f);
    out.plane(1)[at] = g * (1.0f / 255.0f);
    out.plane(2)[at] = b * (1.0f / 255.0f);
  } else {
    out.plane(0)[at] = result.row(0, y)[x] * (1.0f / 255.0f);
  }
  if (input.alpha) out.plane(result.channels)[at] = input.row(input.channels, y)[x];
}

// A step's result: the sums divided, the step's input where no group reached.
__global__ void nlb_divide_kernel(NlbDeviceSums sums, NlbDeviceRows noisy, NlbDeviceRows out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = out.row0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.row0 + out.rows) return;
  const long long denominator = (long long)sums.row(out.channels, y)[x];
  for (int c = 0; c < out.channels; ++c) {
    const long long numerator = (long long)sums.row(c, y)[x];
    out.row(c, y)[x] = denominator > 0 ? float(double(numerator) / double(denominator)) : noisy.row(c, y)[x];
  }
}

// The 2 x 2 means (the pixels of the block inside the image), as the CPU's
// downsample: rows [coarse.row0, coarse.row0 + coarse.rows), alpha too
// when coarse has it.
__global__ void nlb_downsample_kernel(NlbDeviceRows fine, NlbDeviceRows coarse) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = coarse.row0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= coarse.width || y >= coarse.row0 + coarse.rows) return;
  const int rows = 2 * y + 1 < fine.height ? 2 : 1;
  const bool pair = 2 * x + 1 < fine.width;
  const int planes = coarse.channels + (coarse.alpha ? 1 : 0);
  for (int c = 0; c < planes; ++c) {
    const float* top = fine.row(c, 2 * y);
    const float* bottom = fine.row(c, 2 * y + rows - 1);
    float sum = top[2 * x];
    if (pair) sum += top[2 * x + 1];
    if (rows == 2) {
      sum += bottom[2 * x];
      if (pair) sum += bottom[2 * x + 1];
    }
    coarse.row(c, y)[x] = sum / float(rows * (pair ? 2 : 1));
  }
}

// low := coarse - low on rows [first, first + count).
__global__ void nlb_difference_kernel(NlbDeviceRows coarse, NlbDeviceRows low, int first, int count) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = first + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= low.width || y >= first + count) return;
  for (int c = 0; c < low.channels; ++c) low.row(c, y)[x] = coarse.row(c, y)[x] - low.row(c, y)[x];
}

// out = denoised + the bilinear upsampling of low (as the CPU's denoise).
__global__ void nlb_upsample_kernel(NlbDeviceRows denoised, NlbDeviceRows low, NlbDeviceRows out, int coarse_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = out.row0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.row0 + out.rows) return;
  int y_first, y_second, x_first, x_second;
  float wy, wx;
  nlb_upsample_taps(y, coarse_height, y_first, y_second, wy);
  nlb_upsample_taps(x, low.width, x_first, x_second, wx);
  for (int c = 0; c < out.channels; ++c) {
    const float *a = low.row(c, y_first), *b = low.row(c, y_second), *d = denoised.row(c, y);
    out.row(c, y)[x] = d[x] + (wy * (wx * a[x_first] + (1.0f - wx) * a[x_second]) +
                               (1.0f - wy) * (wx * b[x_first] + (1.0f - wx) * b[x_second]));
  }
}

// Device memory for one band, carved in order: the step sums first (one
// region every step reuses, in stream order), then the rows. With no base
// it only measures.
class Workspace {
 public:
  Workspace(char* base, size_t sums_bytes) : base_(base), sums_bytes_(sums_bytes) {}
  bool live() const { return base_ != nullptr; }
  unsigned long long* sums(size_t count) {
    const size_t bytes = round(count * sizeof(unsigned long long));
    most_sums_ = std::max(most_sums_, bytes);
    if (live() && bytes > sums_bytes_) throw std::logic_error("nlbayes: a step's sums outgrew the measured region");
    return live() ? reinterpret_cast<unsigned long long*>(base_) : nullptr;
  }
  float* rows(size_t floats) {
    float* piece = live() ? reinterpret_cast<float*>(base_ + sums_bytes_ + used_) : nullptr;
    used_ += round(floats * sizeof(float));
    return piece;
  }
  // What a measuring pass found: the sums region, then everything.
  size_t sums_bytes() const { return most_sums_; }
  size_t total(size_t sums_region) const { return sums_region + used_; }

 private:
  static size_t round(size_t bytes) { return (bytes + 255) / 256 * 256; }
  char* base_;
  size_t sums_bytes_;
  size_t most_sums_ = 0, used_ = 0;
};

// One band's run (or its measurement, when the workspace only measures).
class BandRun {
 public:
  BandRun(const NlbPlan& plan, const NlbNoiseTable* noise, Workspace& workspace, cudaStream_t stream)
      : plan_(plan), noise_(noise), ws_(workspace), stream_(stream) {}

  // The image rows [first, end) of the input (opponent planes, alpha), the
  // output's rows [out0, out1).
  NlbDeviceRows run(const NlbDeviceRows& level, int out0, int out1) { return denoise(0, level, out0, out1); }

 private:
  NlbDeviceRows make_rows(int width, int height, int row0, int rows, int channels, bool alpha) {
    NlbDeviceRows r;
    r.width = width;
    r.height = height;
    r.row0 = row0;
    r.rows = std::max(0, rows);
    r.channels = channels;
    r.alpha = alpha;
    r.plane_stride = size_t(r.rows) * size_t(width);
    r.data = ws_.rows(size_t(channels + (alpha ? 1 : 0)) * r.plane_stride);
    return r;
  }

  NlbDeviceRows denoise(int scale, const NlbDeviceRows& noisy, int out0, int out1) {
    const int height = noisy.height;
    if (scale + 1 == plan_.params.scales) return denoise_scale(scale, noisy, out0, out1);
    const int d0 = std::max(0, out0 - 2), d1 = std::min(height, out1 + 2);
    const NlbDeviceRows denoised = denoise_scale(scale, noisy, d0, d1);
    const NlbDeviceRows coarse_noisy = downsample(noisy, true);
    int c0, c1, unused_int;
    float unused;
    const int coarse_height = ceil_half(height);
    nlb_upsample_taps(out0, coarse_height, c0, unused_int, unused);
    nlb_upsample_taps(out1 - 1, coarse_height, unused_int, c1, unused);
    const NlbDeviceRows coarse = denoise(scale + 1, coarse_noisy, c0, c1 + 1);
    const NlbDeviceRows low = downsample(denoised, false);
    NlbDeviceRows out = make_rows(noisy.width, height, out0, out1 - out0, noisy.channels, false);
    if (ws_.live()) {
      nlb_difference_kernel<<<grid_for(low.width, c1 - c0 + 1, kBlock), kBlock, 0, stream_>>>(coarse, low, c0,
                                                                                              c1 - c0 + 1);
      check(cudaGetLastError(), "launching the nlbayes scales' difference");
      nlb_upsample_kernel<<<grid_for(out.width, out.rows, kBlock), kBlock, 0, stream_>>>(denoised, low, out,
                                                                                         coarse_height);
      check(cudaGetLastError(), "launching the nlbayes upsampling");
    }
    return out;
  }

  NlbDeviceRows downsample(const NlbDeviceRows& fine, bool with_alpha) {
    const int width = ceil_half(fine.width), height = ceil_half(fine.height);
    const int first = ceil_half(fine.row0);
    const int fine_end = fine.row0 + fine.rows;
    const int end = fine_end == fine.height ? height : fine_end / 2;
    const NlbDeviceRows coarse =
        make_rows(width, height, first, end - first, fine.channels, with_alpha && fine.alpha);
    if (ws_.live() && coarse.rows > 0) {
      nlb_downsample_kernel<<<grid_for(width, coarse.rows, kBlock), kBlock, 0, stream_>>>(fine, coarse);
      check(cudaGetLastError(), "launching the nlbayes 2 x 2 means");
    }
    return coarse;
  }

  NlbDeviceRows denoise_scale(int scale, const NlbDeviceRows& noisy, int out0, int out1) {
    const NlbParams& p = plan_.params;
    NlbStep second_reach = p.second;
    second_reach.patch = nlb_patch_side(p.second.patch, noisy.width, noisy.height);
    const int reach = nlb_step_reach(second_reach);
    const int b0 = std::max(0, out0 - reach), b1 = std::min(noisy.height, out1 + reach);
    if (p.steps == 1) return run_step(scale, p.first, noisy, nullptr, out0, out1);
    const NlbDeviceRows basic = run_step(scale, p.first, noisy, nullptr, b0, b1);
    return run_step(scale, p.second, noisy, &basic, out0, out1);
  }

  NlbDeviceRows run_step(int scale, const NlbStep& step, const NlbDeviceRows& noisy, const NlbDeviceRows* basic,
                         int out0, int out1) {
    const int width = noisy.width, height = noisy.height, channels = noisy.channels;
    const int patch = nlb_patch_side(step.patch, width, height), radius = step.search_radius;
    const int g0 = nlb_grid_first_from(out0 - radius - patch + 1, height, patch, step.step);
    const int g1 = nlb_grid_first_from(out1 + radius, height, patch, step.step);
    NlbDeviceStep job;
    job.params = plan_.params;
    job.step = step;
    job.scale = scale;
    job.patch = patch;
    job.noise = noise_;
    job.noisy = noisy;
    if (basic) job.basic = *basic;
    job.sums.row0 = out0;
    job.sums.rows = out1 - out0;
    job.sums.width = width;
    job.sums.channels = channels;
    const size_t sums_count = size_t(channels + 1) * size_t(job.sums.rows) * size_t(width);
    job.sums.data = ws_.sums(sums_count);
    job.grid0 = g0;
    job.grid_rows = std::max(0, g1 - g0);
    job.grid_columns = nlb_grid_count(width, patch, step.step);
    job.layout = nlb_group_layout(plan_.params, step, basic != nullptr, width, height);
    NlbDeviceRows out = make_rows(width, height, out0, out1 - out0, channels, false);
    if (ws_.live() && out.rows > 0) {
      check(cudaMemsetAsync(job.sums.data, 0, sums_count * sizeof(unsigned long long), stream_),
            "clearing the nlbayes sums");
      launch_nlbayes_groups(job, stream_);
      nlb_divide_kernel<<<grid_for(width, out.rows, kBlock), kBlock, 0, stream_>>>(job.sums, noisy, out);
      check(cudaGetLastError(), "launching the nlbayes division");
    }
    return out;
  }

  const NlbPlan& plan_;
  const NlbNoiseTable* noise_;
  Workspace& ws_;
  cudaStream_t stream_;
};

// The input band's image rows as the scale-0 rows (planes in place).
NlbDeviceRows level_of(const NlbPlan& plan, const DeviceBand& input) {
  const int height = plan.shape.height;
  const int first = std::max(0, input.first_row), end = std::min(height, input.first_row + input.rows);
  NlbDeviceRows level;
  level.width = plan.shape.width;
  level.height = height;
  level.row0 = first;
  level.rows = end - first;
  level.channels = plan.params.channels;
  level.alpha = plan.params.has_alpha;
  level.plane_stride = input.plane_stride;
  level.data = input.data ? input.data + size_t(first - input.first_row) * size_t(input.width) : nullptr;
  return level;
}

// The sums region and the whole workspace a band of the plan needs.
struct Need {
  size_t sums = 0, total = 0;
};

Need measure(const NlbPlan& plan, const DeviceBand& input, int out0, int out1) {
  Workspace counter(nullptr, 0);
  BandRun(plan, nullptr, counter, nullptr).run(level_of(plan, input), out0, out1);
  return {counter.sums_bytes(), counter.total(counter.sums_bytes())};
}

// The largest group layout of the plan's steps over its scales.
size_t largest_shared_bytes(const NlbPlan& plan) {
  size_t most = 0;
  int width = plan.shape.width, height = plan.shape.height;
  for (int scale = 0; scale < plan.params.scales; ++scale) {
    most = std::max(most, nlb_group_layout(plan.params, plan.params.first, false, width, height).bytes());
    if (plan.params.steps > 1)
      most = std::max(most, nlb_group_layout(plan.params, plan.params.second, true, width, height).bytes());
    width = ceil_half(width);
    height = ceil_half(height);
  }
  return most;
}

class NlbDeviceKernel : public DeviceBandKernel {
 public:
  explicit NlbDeviceKernel(const NlbPlan& plan) : plan_(plan), noise_(sizeof(NlbNoiseTable)) {
    check(cudaMemcpy(noise_.as<void>(), &plan.noise, sizeof(NlbNoiseTable), cudaMemcpyHostToDevice),
          "uploading the nlbayes noise table");
    allow_nlbayes_shared_memory(largest_shared_bytes(plan));
  }

  void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>&, float*,
           cudaStream_t stream) override {
    if (input.pad != 0) throw BackendError("nlbayes: a padded band (the plan asks for none)");
    const int out0 = output.first_row, out1 = output.first_row + output.rows;
    DeviceBand shape = input;
    shape.data = nullptr;
    const Need need = measure(plan_, shape, out0, out1);
    Scratch& scratch = scratch_[stream];
    if (scratch.bytes < need.total) {
      scratch.memory = DeviceMemory();  // cudaFree waits for the stream's earlier work
      scratch.memory = DeviceMemory(need.total);
      scratch.bytes = need.total;
    }
    const NlbDeviceRows level = level_of(plan_, input);
    if (level.rows > 0) {
      nlb_to_opponent_kernel<<<grid_for(level.width, level.rows, kBlock), kBlock, 0, stream>>>(level);
      check(cudaGetLastError(), "launching the nlbayes opponent conversion");
    }
    Workspace workspace(scratch.memory.as<char>(), need.sums);
    const NlbDeviceRows result =
        BandRun(plan_, noise_.as<NlbNoiseTable>(), workspace, stream).run(level, out0, out1);
    nlb_to_output_kernel<<<grid_for(output.width, output.rows, kBlock), kBlock, 0, stream>>>(result, level, output);
    check(cudaGetLastError(), "launching the nlbayes output conversion");
  }

 private:
  struct Scratch {
    DeviceMemory memory;
    size_t bytes = 0;
  };
  const NlbPlan& plan_;
  DeviceMemory noise_;
  std::map<cudaStream_t, Scratch> scratch_;
};

}  // namespace

std::string nlbayes_unsupported(const Plan& plan) {
  const size_t bytes = largest_shared_bytes(static_cast<const NlbPlan&>(plan));
  const int limit = shared_memory_limit();
  if (bytes > size_t(limit))
    return "the nlbayes filter's patch and group sizes need " + std::to_string((bytes + 1023) / 1024) +
           " KiB of shared memory per group; this GPU has " + std::to_string(limit / 1024);
  return "";
}

std::unique_ptr<DeviceBandKernel> make_nlbayes_device_kernel(const Plan& plan) {
  return std::make_unique<NlbDeviceKernel>(static_cast<const NlbPlan&>(plan));
}

// Measured on bands in the middle of an image tall enough that no row range
// is clamped (a band near an edge needs less): `short_rows` and twice that
// give the cost per row; the rounding of halved row ranges and of the
// pieces' 256-byte alignment is covered by a few rows' slack.
BandCost nlbayes_device_cost(const Plan& plan) {
  const NlbPlan& nlb = static_cast<const NlbPlan&>(plan);
  NlbPlan tall = nlb;
  constexpr int kShortRows = 256;
  const int middle = (4 * plan.reach + 4 * kShortRows) << kNlbMaxScales;
  tall.shape.height = 2 * middle;
  auto bytes = [&](int rows) {
    DeviceBand band;
    band.first_row = middle - plan.reach;
    band.rows = rows + 2 * plan.reach;
    band.width = plan.shape.width;
    return measure(tall, band, middle, middle + rows).total;
  };
  const size_t short_band = bytes(kShortRows), long_band = bytes(2 * kShortRows);
  const size_t per_row = (long_band - short_band + kShortRows - 1) / kShortRows;
  const size_t fixed = short_band > per_row * kShortRows ? short_band - per_row * kShortRows : 0;
  return {fixed + 8 * per_row + (size_t(64) << 10) * size_t(nlb.params.scales), per_row};
}

}  // namespace edgewise::cuda
