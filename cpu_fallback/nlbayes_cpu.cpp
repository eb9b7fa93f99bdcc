// The collaborative denoiser's band kernel on the CPU. Per band: the band's
// image rows in the opponent space (code values), then, from the output
// rows back, each scale's rows (the 2 x 2 means of the finer scale's) and
// each step's: the reference rows whose groups reach the rows the step must
// deliver are cut into slabs of kSlabGridRows grid rows, fixed by the grid
// (so by image coordinates); OpenMP threads take slabs, each adding its
// groups to its own sums, and the slabs' sums are added to the step's in
// slab order. A pixel's numerator is therefore the same sum in the same
// order for any band height or thread count (groups, then members, then
// slabs, all in raster order), and the output is bit-identical.
#include "nlbayes_cpu.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "band_io.h"
#include "nlbayes_math.h"
#include "opponent_color.h"

namespace edgewise::cpu {

namespace {

// Reference rows per slab, and slabs in flight per thread: enough slabs to
// keep two cores busy through uneven groups, few enough that their sums stay
// small (a slab's sums cover its rows and a search window around them).
constexpr int kSlabGridRows = kNlbSumGridRows;
constexpr int kSlabsPerThread = 2;

int ceil_half(int value) { return (value + 1) / 2; }

class NlBayesKernel : public BandKernel {
 public:
  NlBayesKernel(const NlbPlan& plan, const KernelContext& context, NlbBasicObserver observer = {})
      : plan_(plan),
        context_(context),
        observer_(std::move(observer)),
        threads_(std::max(1, context.threads)),
        row_function_(select_nlbayes_row_function()),
        scratch_(size_t(threads_)),
        slab_sums_(size_t(threads_ * kSlabsPerThread)) {}

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>&) override {
    const NlbParams& p = plan_.params;
    const int width = plan_.shape.width, height = plan_.shape.height, colours = p.channels;
    const int first = std::max(0, input.first_row), end = std::min(height, input.first_row + input.rows);
    work_total_ = 0;
    for (int scale = 0; scale < p.scales; ++scale) work_total_ += p.steps * scale_weight(scale);
    work_done_ = 0;
    NlbRows level;
    level.resize(width, height, first, end - first, colours, p.has_alpha);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = first; y < end; ++y) {
      const int i = y - input.first_row;
      const float* in[4];
      for (int c = 0; c < input.planes; ++c) in[c] = input.row(c, i) + input.pad;
      if (colours == 3) {
        float* luma = level.row(0, y);
        float* c1 = level.row(1, y);
        float* c2 = level.row(2, y);
        for (int x = 0; x < width; ++x)
          rgb_to_opponent(255.0f * in[0][x], 255.0f * in[1][x], 255.0f * in[2][x], luma[x], c1[x], c2[x]);
      } else {
        float* grey = level.row(0, y);
        for (int x = 0; x < width; ++x) grey[x] = 255.0f * in[0][x];
      }
      if (p.has_alpha) std::memcpy(level.row(colours, y), in[colours], size_t(width) * sizeof(float));
    }
    const int out0 = output.first_row, out1 = output.first_row + output.rows;
    const NlbRows result = denoise(0, level, out0, out1);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = out0; y < out1; ++y) {
      const int j = y - out0;
      if (colours == 3) {
        const float *luma = result.row(0, y), *c1 = result.row(1, y), *c2 = result.row(2, y);
        float *r = output.row(0, j), *g = output.row(1, j), *b = output.row(2, j);
        for (int x = 0; x < width; ++x) {
          opponent_to_rgb(luma[x], c1[x], c2[x], r[x], g[x], b[x]);
          r[x] *= 1.0f / 255.0f;
          g[x] *= 1.0f / 255.0f;
          b[x] *= 1.0f / 255.0f;
        }
      } else {
        const float* grey = result.row(0, y);
        float* out = output.row(0, j);
        for (int x = 0; x < width; ++x) out[x] = grey[x] * (1.0f / 255.0f);
      }
      if (p.has_alpha) std::memcpy(output.row(colours, j), level.row(colours, y), size_t(width) * sizeof(float));
    }
  }

 private:
  // A step's share of the band's work, for its progress: each scale has a
  // quarter of the finer scale's pixels.
  static double scale_weight(int scale) { return std::ldexp(1.0, -2 * scale); }

  // Scale `scale`'s result for rows [out0, out1), from its input rows
  // `noisy` (enough rows around them: nlbayes_reach).
  NlbRows denoise(int scale, const NlbRows& noisy, int out0, int out1) {
    const int height = noisy.height;
    if (scale + 1 == plan_.params.scales) return denoise_scale(scale, noisy, out0, out1);
    // The denoised rows the 2 x 2 means under the bilinear taps need.
    const int d0 = std::max(0, out0 - 2), d1 = std::min(height, out1 + 2);
    const NlbRows denoised = denoise_scale(scale, noisy, d0, d1);
    const NlbRows coarse_noisy = downsample(noisy, true);
    int c0, c1, unused_int;
    float unused;
    const int coarse_height = ceil_half(height);
    nlb_upsample_taps(out0, coarse_height, c0, unused_int, unused);
    nlb_upsample_taps(out1 - 1, coarse_height, unused_int, c1, unused);
    const NlbRows coarse = denoise(scale + 1, coarse_noisy, c0, c1 + 1);
    NlbRows low = downsample(denoised, false);
    // low := coarse - Dn(denoised), on the coarse rows the taps read.
    for (int c = 0; c < noisy.channels; ++c)
      for (int y = c0; y <= c1; ++y) {
        float* l = low.row(c, y);
        const float* k = coarse.row(c, y);
        for (int x = 0; x < low.width; ++x) l[x] = k[x] - l[x];
      }
    NlbRows out;
    out.resize(noisy.width, height, out0, out1 - out0, noisy.channels, false);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = out0; y < out1; ++y) {
      int y_first, y_second;
      float wy;
      nlb_upsample_taps(y, coarse_height, y_first, y_second, wy);
      for (int c = 0; c < noisy.channels; ++c) {
        const float *a = low.row(c, y_first), *b = low.row(c, y_second), *d = denoised.row(c, y);
        float* o = out.row(c, y);
        for (int x = 0; x < noisy.width; ++x) {
          int x_first, x_second;
          float wx;
          nlb_upsample_taps(x, low.width, x_first, x_second, wx);
          o[x] = d[x] + (wy * (wx * a[x_first] + (1.0f - wx) * a[x_second]) +
                         (1.0f - wy) * (wx * b[x_first] + (1.0f - wx) * b[x_second]));
        }
      }
    }
    return out;
  }

  // The 2 x 2 means of the rows `fine` holds completely (the image's last
  // row alone where its height is odd); alpha too when asked.
  NlbRows downsample(const NlbRows& fine, bool with_alpha) {
    const int width = ceil_half(fine.width), height = ceil_half(fine.height);
    const int first = ceil_half(fine.row0);
    const int fine_end = fine.row0 + fine.rows;
    const int end = fine_end == fine.height ? height : fine_end / 2;
    const bool alpha = with_alpha && fine.alpha;
    NlbRows coarse;
    coarse.resize(width, height, first, std::max(0, end - first), fine.channels, alpha);
    const int planes = fine.channels + (alpha ? 1 : 0);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = first; y < end; ++y) {
      const int rows = 2 * y + 1 < fine.height ? 2 : 1;
      for (int c = 0; c < planes; ++c) {
        const float* top = fine.row(c, 2 * y);
        const float* bottom = fine.row(c, 2 * y + rows - 1);
        float* out = coarse.row(c, y);
        for (int x = 0; x < width; ++x) {
          const bool pair = 2 * x + 1 < fine.width;
          float sum = top[2 * x];
          if (pair) sum += top[2 * x + 1];
          if (rows == 2) {
            sum += bottom[2 * x];
            if (pair) sum += bottom[2 * x + 1];
          }
          out[x] = sum / float(rows * (pair ? 2 : 1));
        }
      }
    }
    return coarse;
  }

  // One scale, both steps: rows [out0, out1).
  NlbRows denoise_scale(int scale, const NlbRows& noisy, int out0, int out1) {
    const NlbParams& p = plan_.params;
    NlbStepJob job;
    job.params = &p;
    job.noise = &plan_.noise;
    job.scale = scale;
    job.noisy = &noisy;
    job.step = &p.second;
    job.patch = nlb_patch_side(p.second.patch, noisy.width, noisy.height);
    NlbStep second_reach = p.second;
    second_reach.patch = job.patch;
    const int reach = nlb_step_reach(second_reach);
    const int b0 = std::max(0, out0 - reach), b1 = std::min(noisy.height, out1 + reach);
    NlbStepJob first_job = job;
    first_job.step = &p.first;
    first_job.patch = nlb_patch_side(p.first.patch, noisy.width, noisy.height);
    if (p.steps == 1) return run_step(first_job, out0, out1);
    const NlbRows basic = run_step(first_job, b0, b1);
    if (observer_) observer_(scale, basic);
    job.basic = &basic;
    return run_step(job, out0, out1);
  }

  // One step's result for rows [out0, out1): the sums of every group whose
  // members reach those rows, divided; the input where no group reached.
  NlbRows run_step(const NlbStepJob& job, int out0, int out1) {
    const NlbRows& noisy = *job.noisy;
    const int width = noisy.width, height = noisy.height, channels = noisy.channels;
    const int patch = job.patch, radius = job.step->search_radius, step = job.step->step;
    const int g0 = nlb_grid_first_from(out0 - radius - patch + 1, height, patch, step);
    const int g1 = nlb_grid_first_from(out1 + radius, height, patch, step);
    const int rows = out1 - out0;
    std::vector<float>& total = step_sums_;
    total.assign(size_t(channels + 1) * size_t(rows) * size_t(width), 0.0f);
    const NlbSums sums{out0, rows, width, channels, total.data()};

    // Progress by reference rows done (each a few hundred groups): thread 0
    // reports within a wave, so a 24 MP band's waves of seconds show.
    const double weight = scale_weight(job.scale);
    const double grid_rows = double(std::max(1, g1 - g0));
    std::atomic<int> rows_done{0};
    const auto step_done = [&] {
      return std::min(1.0, (work_done_ + weight * double(rows_done.load()) / grid_rows) / work_total_);
    };
    const int slabs = threads_ * kSlabsPerThread;
    const int first_slab = g0 / kSlabGridRows, end_slab = (g1 + kSlabGridRows - 1) / kSlabGridRows;
    for (int wave = first_slab; wave < end_slab; wave += slabs) {
      const int in_wave = std::min(slabs, end_slab - wave);
      std::vector<NlbSums> slab(static_cast<size_t>(in_wave));
      for (int k = 0; k < in_wave; ++k) {
        const int slab_g0 = std::max(g0, (wave + k) * kSlabGridRows);
        const int slab_g1 = std::min(g1, (wave + k + 1) * kSlabGridRows);
        const int top = std::max(out0, nlb_grid_position(slab_g0, height, patch, step) - radius);
        const int bottom =
            std::min(out1, nlb_grid_position(std::max(slab_g0, slab_g1 - 1), height, patch, step) + radius + patch);
        const int slab_rows = std::max(0, bottom - top);
        std::vector<float>& buffer = slab_sums_[size_t(k)];
        buffer.assign(size_t(channels + 1) * size_t(slab_rows) * size_t(width), 0.0f);
        slab[size_t(k)] = {top, slab_rows, width, channels, buffer.data()};
      }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (in_wave > 1)
      for (int k = 0; k < in_wave; ++k) {
        const int slab_g0 = std::max(g0, (wave + k) * kSlabGridRows);
        const int slab_g1 = std::min(g1, (wave + k + 1) * kSlabGridRows);
        NlbScratch& scratch = scratch_[size_t(omp_get_thread_num())];
        if (slab[size_t(k)].rows > 0)
          for (int g = slab_g0; g < slab_g1; ++g) {
            row_function_(job, nlb_grid_position(g, height, patch, step), scratch, slab[size_t(k)]);
            ++rows_done;
            if (omp_get_thread_num() == 0) band_progress_inside(context_, step_done());
          }
      }
      // The wave's slabs into the step's sums, in slab order per row.
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (int y = out0; y < out1; ++y)
        for (int k = 0; k < in_wave; ++k) {
          const NlbSums& from = slab[size_t(k)];
          if (y < from.row0 || y >= from.row0 + from.rows) continue;
          for (int c = 0; c <= channels; ++c) {
            const float* source = from.plane_row(c, y);
            float* target = sums.plane_row(c, y);
            for (int x = 0; x < width; ++x) target[x] += source[x];
          }
        }
      band_progress(context_, step_done());  // between waves: a stop asked for is thrown here
    }
    work_done_ += weight;

    NlbRows out;
    out.resize(width, height, out0, rows, channels, false);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = out0; y < out1; ++y) {
      const float* denominator = sums.plane_row(channels, y);
      for (int c = 0; c < channels; ++c) {
        const float* numerator = sums.plane_row(c, y);
        const float* input = noisy.row(c, y);
        float* o = out.row(c, y);
        for (int x = 0; x < width; ++x) o[x] = denominator[x] > 0.0f ? numerator[x] / denominator[x] : input[x];
      }
    }
    return out;
  }

  const NlbPlan& plan_;
  const KernelContext& context_;  // the runner's, which outlives the kernel
  NlbBasicObserver observer_;     // nlbayes_run_observed's; empty in production
  int threads_;
  NlbRowFunction row_function_;
  std::vector<NlbScratch> scratch_;
  std::vector<std::vector<float>> slab_sums_;
  std::vector<float> step_sums_;
  double work_total_ = 1, work_done_ = 0;  // the band's steps, weighed by scale_weight
};

}  // namespace

BandCost nlbayes_own_cost(const Plan& plan) {
  // Per output row, about: the opponent rows, the basic estimate, the sums
  // and the result (colour planes, alpha, denominators); the slabs' sums are
  // a search window of rows each.
  const NlbPlan& nlb = static_cast<const NlbPlan&>(plan);
  const size_t width = size_t(plan.shape.width), planes = size_t(nlb.params.channels) + 1;
  const size_t slab_rows =
      size_t(kSlabGridRows * nlb.params.first.step + 2 * nlb.params.first.search_radius + nlb.params.first.patch);
  return {size_t(omp_get_max_threads() * kSlabsPerThread) * slab_rows * planes * width, 4 * planes * width};
}

std::unique_ptr<BandKernel> make_nlbayes_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<NlBayesKernel>(static_cast<const NlbPlan&>(plan), context);
}

void nlbayes_run_observed(const NlbPlan& plan, const float* image, float* result, int threads,
                          const NlbBasicObserver& observer) {
  // As the CPU runner (cpu_backend.cpp) runs a band of every row: its
  // halo clamped from the image, the output packed back.
  const int width = plan.shape.width, height = plan.shape.height, planes = plan.shape.channels;
  const int band_rows = height + 2 * plan.reach;
  std::vector<float> band(padded_band_floats(band_rows, width, plan.pad, planes));
  PaddedBand input = describe_padded_band(-plan.reach, band_rows, width, plan.pad, planes, band.data());
  const size_t stride = size_t(width) * size_t(planes) * sizeof(float);
  unpack_rows({const_cast<float*>(image), stride, SampleType::f32, 0, height}, height, input);
  std::vector<float> planar(size_t(planes) * size_t(height) * size_t(width));
  const OutputBand output = describe_output_band(0, height, width, planes, planar.data());
  KernelContext context;
  context.band_rows = height;
  context.threads = threads;
  NlBayesKernel(plan, context, observer).run(input, output, {});
  pack_rows(output, {result, stride, SampleType::f32, 0, height});
}

}  // namespace edgewise::cpu
