// The collaborative denoiser's band kernel on the CPU. Per band: the band's
// image rows in the opponent space (code values), then the band's schedule
// (core/filters/nlbayes_schedule.h: each scale's rows, the 2 x 2 means of
// the finer scale's, and each step's): the reference grid rows whose
// groups reach the rows the step must deliver are cut into slabs of
// kSlabGridRows grid rows, fixed by the grid (so by image coordinates);
// OpenMP threads take slabs, each adding its groups to its own sums, and
// the slabs' sums are added to the step's in slab order. A pixel's
// numerator is therefore the same sum in the same order for any band
// height or thread count (groups, then members, then slabs, all in raster
// order), and the output is bit-identical.
#include "nlbayes_cpu.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "band_io.h"
#include "nlbayes_math.h"
#include "nlbayes_schedule.h"
#include "opponent_color.h"

namespace edgewise::cpu {

namespace {

// Reference rows per slab, and slabs in flight per thread: enough slabs to
// keep two cores busy through uneven groups, few enough that their sums stay
// small (a slab's sums cover its rows and a search window around them).
constexpr int kSlabGridRows = kNlbSumGridRows;
constexpr int kSlabsPerThread = 2;

// Throws where a range of rows to read is not all held: a schedule that
// missed a margin fails loudly instead of reading rows nobody computed.
void require_rows(int row0, int rows, const NlbRowRange& needed, const char* what) {
  if (!NlbRowRange{row0, row0 + rows}.contains(needed))
    throw std::logic_error(std::string("nlbayes: ") + what + " outside the rows the schedule computed");
}

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
    schedule_ = nlbayes_schedule(p, width, height, out0, out1);
    require_rows(level.row0, level.rows, schedule_.scale[0].input, "the band's input");
    const NlbRows result = denoise(level);
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

  // The band's result on scale 0's out rows, from its input rows `level`:
  // every scale's input (2 x 2 means of the finer one's), then from the
  // coarsest, out_k = D_k + U(out_{k+1} - Dn(D_k)).
  NlbRows denoise(const NlbRows& level) {
    const int scales = schedule_.scales;
    std::vector<NlbRows> coarse_inputs(size_t(scales - 1));
    std::vector<const NlbRows*> noisy(size_t(scales), &level);
    for (int k = 1; k < scales; ++k) {
      coarse_inputs[size_t(k - 1)] = downsample(*noisy[size_t(k - 1)], schedule_.scale[k].input, true);
      noisy[size_t(k)] = &coarse_inputs[size_t(k - 1)];
    }
    NlbRows result = denoise_scale(scales - 1, *noisy[size_t(scales - 1)]);
    for (int k = scales - 2; k >= 0; --k) result = recombine(k, denoise_scale(k, *noisy[size_t(k)]), result);
    return result;
  }

  // Scale k's result on its out rows: its steps' result `denoised` plus the
  // upsampled difference of the coarser scale's result `coarse` and the 2 x 2
  // means of `denoised`.
  NlbRows recombine(int k, const NlbRows& denoised, const NlbRows& coarse) {
    const NlbScaleRows& rows = schedule_.scale[k];
    const NlbScaleRows& coarser = schedule_.scale[k + 1];
    // low := coarse - Dn(denoised), on the coarse rows the taps read.
    NlbRows low = downsample(denoised, coarser.out, false);
    for (int c = 0; c < denoised.channels; ++c)
      for (int y = coarser.out.first; y < coarser.out.end; ++y) {
        float* l = low.row(c, y);
        const float* from = coarse.row(c, y);
        for (int x = 0; x < low.width; ++x) l[x] = from[x] - l[x];
      }
    NlbRows out;
    out.resize(denoised.width, denoised.height, rows.out.first, rows.out.rows(), denoised.channels, false);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = rows.out.first; y < rows.out.end; ++y) {
      int y_first, y_second;
      float wy;
      nlb_upsample_taps(y, coarser.height, y_first, y_second, wy);
      for (int c = 0; c < denoised.channels; ++c) {
        const float *a = low.row(c, y_first), *b = low.row(c, y_second), *d = denoised.row(c, y);
        float* o = out.row(c, y);
        for (int x = 0; x < denoised.width; ++x) {
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

  // The 2 x 2 means (the pixels of the block inside the image) on coarse
  // rows `rows`; alpha too when asked.
  NlbRows downsample(const NlbRows& fine, const NlbRowRange& rows, bool with_alpha) {
    require_rows(fine.row0, fine.rows, {2 * rows.first, std::min(fine.height, 2 * rows.end)}, "2 x 2 means");
    const int width = (fine.width + 1) / 2, height = (fine.height + 1) / 2;
    const bool alpha = with_alpha && fine.alpha;
    NlbRows coarse;
    coarse.resize(width, height, rows.first, rows.rows(), fine.channels, alpha);
    const int planes = fine.channels + (alpha ? 1 : 0);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (int y = rows.first; y < rows.end; ++y) {
      const int pair_rows = 2 * y + 1 < fine.height ? 2 : 1;
      for (int c = 0; c < planes; ++c) {
        const float* top = fine.row(c, 2 * y);
        const float* bottom = fine.row(c, 2 * y + pair_rows - 1);
        float* out = coarse.row(c, y);
        for (int x = 0; x < width; ++x) {
          const bool pair = 2 * x + 1 < fine.width;
          float sum = top[2 * x];
          if (pair) sum += top[2 * x + 1];
          if (pair_rows == 2) {
            sum += bottom[2 * x];
            if (pair) sum += bottom[2 * x + 1];
          }
          out[x] = sum / float(pair_rows * (pair ? 2 : 1));
        }
      }
    }
    return coarse;
  }

  // One scale, both steps, on the schedule's rows.
  NlbRows denoise_scale(int scale, const NlbRows& noisy) {
    const NlbParams& p = plan_.params;
    const NlbScaleRows& rows = schedule_.scale[scale];
    NlbStepJob job;
    job.params = &p;
    job.noise = &plan_.noise;
    job.scale = scale;
    job.noisy = &noisy;
    job.step = &p.first;
    job.patch = rows.step[0].patch;
    if (p.steps == 1) return run_step(job, rows.step[0]);
    const NlbRows basic = run_step(job, rows.step[0]);
    if (observer_) observer_(scale, basic);
    job.step = &p.second;
    job.patch = rows.step[1].patch;
    job.basic = &basic;
    return run_step(job, rows.step[1]);
  }

  // One step's result on its out rows: the sums of the groups of its grid
  // rows, divided; the input where no group reached.
  NlbRows run_step(const NlbStepJob& job, const NlbStepRows& schedule) {
    const NlbRows& noisy = *job.noisy;
    require_rows(noisy.row0, noisy.rows, schedule.read, "a step's groups");
    if (job.basic) require_rows(job.basic->row0, job.basic->rows, schedule.read, "the basic estimate's groups");
    const int width = noisy.width, height = noisy.height, channels = noisy.channels;
    const int patch = job.patch, step = job.step->step;
    const int out0 = schedule.out.first, out1 = schedule.out.end, rows = schedule.out.rows();
    const int g0 = schedule.grid.first, g1 = std::max(g0, schedule.grid.end);
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
        const NlbRowRange spanned = nlb_group_rows({slab_g0, slab_g1}, height, patch, *job.step);
        const int top = std::max(out0, spanned.first);
        const int slab_rows = std::max(0, std::min(out1, spanned.end) - top);
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
  NlbSchedule schedule_;                   // the band's
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
