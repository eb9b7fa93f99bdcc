// The collaborative denoiser (Non-Local Bayes: Lebrun, Buades & Morel, SIAM
// J. Imaging Sciences 2013; multiscale as the Noise Clinic, Lebrun, Colom &
// Morel, IPOL 2015; core/filters/nlbayes.h states the algorithm) on the
// GPU: the CPU band kernel's steps (cpu_fallback/nlbayes_cpu.cpp) with the
// same schedule (core/filters/nlbayes_schedule.h: every scale's and step's
// rows), on the device. Per band, on the slot's stream:
//   - the input band's colour planes become opponent code values in place
//     (the kernel may overwrite its input band);
//   - each scale's input rows (2 x 2 means of the finer scale's) and each
//     step's: the step's sums zeroed, one block per reference patch of the
//     schedule's grid rows (nlbayes_groups.cu), then sums divided (a pixel
//     no group reached keeps the step's input);
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
#include <string>

#include "device_resources.h"
#include "nlbayes_cuda.h"
#include "nlbayes_math.h"
#include "nlbayes_schedule.h"
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

// Throws where a range of rows to read is not all held (as the CPU's
// kernel does): a schedule that missed a margin fails loudly, in the
// measuring pass already.
void require_rows(const NlbDeviceRows& held, const NlbRowRange& needed, const char* what) {
  if (!NlbRowRange{held.row0, held.row0 + held.rows}.contains(needed))
    throw std::logic_error(std::string("nlbayes: ") + what + " outside the rows the schedule computed");
}

// One band's run (or its measurement, when the workspace only measures).
class BandRun {
 public:
  BandRun(const NlbPlan& plan, const NlbNoiseTable* noise, Workspace& workspace, cudaStream_t stream)
      : plan_(plan), noise_(noise), ws_(workspace), stream_(stream) {}

  // The image rows of the input (opponent planes, alpha), the output's rows
  // [out0, out1).
  NlbDeviceRows run(const NlbDeviceRows& level, int out0, int out1) {
    schedule_ = nlbayes_schedule(plan_.params, level.width, level.height, out0, out1);
    require_rows(level, schedule_.scale[0].input, "the band's input");
    return denoise(level);
  }

 private:
  NlbDeviceRows make_rows(int width, int height, const NlbRowRange& rows, int channels, bool alpha) {
    NlbDeviceRows r;
    r.width = width;
    r.height = height;
    r.row0 = rows.first;
    r.rows = rows.rows();
    r.channels = channels;
    r.alpha = alpha;
    r.plane_stride = size_t(r.rows) * size_t(width);
    r.data = ws_.rows(size_t(channels + (alpha ? 1 : 0)) * r.plane_stride);
    return r;
  }

  // As the CPU's: every scale's input, then from the coarsest, out_k = D_k +
  // U(out_{k+1} - Dn(D_k)).
  NlbDeviceRows denoise(const NlbDeviceRows& level) {
    const int scales = schedule_.scales;
    NlbDeviceRows noisy[kNlbMaxScales];
    noisy[0] = level;
    for (int k = 1; k < scales; ++k) noisy[k] = downsample(noisy[k - 1], schedule_.scale[k].input, true);
    NlbDeviceRows result = denoise_scale(scales - 1, noisy[scales - 1]);
    for (int k = scales - 2; k >= 0; --k) result = recombine(k, denoise_scale(k, noisy[k]), result);
    return result;
  }

  NlbDeviceRows recombine(int k, const NlbDeviceRows& denoised, const NlbDeviceRows& coarse) {
    const NlbScaleRows& coarser = schedule_.scale[k + 1];
    const NlbDeviceRows low = downsample(denoised, coarser.out, false);
    NlbDeviceRows out = make_rows(denoised.width, denoised.height, schedule_.scale[k].out, denoised.channels, false);
    if (ws_.live()) {
      const dim3 low_grid = grid_for(low.width, low.rows, kBlock);
      nlb_difference_kernel<<<low_grid, kBlock, 0, stream_>>>(coarse, low, low.row0, low.rows);
      check(cudaGetLastError(), "launching the nlbayes scales' difference");
      nlb_upsample_kernel<<<grid_for(out.width, out.rows, kBlock), kBlock, 0, stream_>>>(denoised, low, out,
                                                                                         coarser.height);
      check(cudaGetLastError(), "launching the nlbayes upsampling");
    }
    return out;
  }

  // The 2 x 2 means on coarse rows `rows`; alpha too when asked.
  NlbDeviceRows downsample(const NlbDeviceRows& fine, const NlbRowRange& rows, bool with_alpha) {
    require_rows(fine, {2 * rows.first, std::min(fine.height, 2 * rows.end)}, "2 x 2 means");
    const int width = (fine.width + 1) / 2, height = (fine.height + 1) / 2;
    const NlbDeviceRows coarse = make_rows(width, height, rows, fine.channels, with_alpha && fine.alpha);
    if (ws_.live() && coarse.rows > 0) {
      nlb_downsample_kernel<<<grid_for(width, coarse.rows, kBlock), kBlock, 0, stream_>>>(fine, coarse);
      check(cudaGetLastError(), "launching the nlbayes 2 x 2 means");
    }
    return coarse;
  }

  NlbDeviceRows denoise_scale(int scale, const NlbDeviceRows& noisy) {
    const NlbParams& p = plan_.params;
    const NlbScaleRows& rows = schedule_.scale[scale];
    if (p.steps == 1) return run_step(scale, p.first, rows.step[0], noisy, nullptr);
    const NlbDeviceRows basic = run_step(scale, p.first, rows.step[0], noisy, nullptr);
    return run_step(scale, p.second, rows.step[1], noisy, &basic);
  }

  NlbDeviceRows run_step(int scale, const NlbStep& step, const NlbStepRows& schedule, const NlbDeviceRows& noisy,
                         const NlbDeviceRows* basic) {
    require_rows(noisy, schedule.read, "a step's groups");
    if (basic) require_rows(*basic, schedule.read, "the basic estimate's groups");
    const int width = noisy.width, height = noisy.height, channels = noisy.channels;
    NlbDeviceStep job;
    job.params = plan_.params;
    job.step = step;
    job.scale = scale;
    job.patch = schedule.patch;
    job.noise = noise_;
    job.noisy = noisy;
    if (basic) job.basic = *basic;
    job.sums.row0 = schedule.out.first;
    job.sums.rows = schedule.out.rows();
    job.sums.width = width;
    job.sums.channels = channels;
    const size_t sums_count = size_t(channels + 1) * size_t(job.sums.rows) * size_t(width);
    job.sums.data = ws_.sums(sums_count);
    job.grid0 = schedule.grid.first;
    job.grid_rows = schedule.grid.rows();
    job.grid_columns = nlb_grid_count(width, schedule.patch, step.step);
    job.layout = nlb_group_layout(plan_.params, step, basic != nullptr, width, height);
    NlbDeviceRows out = make_rows(width, height, schedule.out, channels, false);
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
  NlbSchedule schedule_;  // the band's
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
  const NlbParams& p = plan.params;
  const NlbSchedule schedule = nlbayes_schedule(p, plan.shape.width, plan.shape.height, 0, 1);
  size_t most = 0;
  for (int k = 0; k < schedule.scales; ++k) {
    const int width = schedule.scale[k].width, height = schedule.scale[k].height;
    most = std::max(most, nlb_group_layout(p, p.first, false, width, height).bytes());
    if (p.steps > 1) most = std::max(most, nlb_group_layout(p, p.second, true, width, height).bytes());
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
