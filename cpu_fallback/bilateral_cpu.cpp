// The bilateral family's band kernel on the CPU. Each iteration is a pass
// within the band: the input band carries a halo of iterations x radius
// rows, and pass k computes the rows the later passes still need (image
// rows only; rows beyond the image's top and bottom are clamped copies, as
// a whole-image pass would see them). Threading is OpenMP: a static split
// of rows keeps results independent of the thread count, since each pixel
// is computed by one thread alone.
#include "bilateral_cpu.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "color_lab.h"

namespace edgewise::cpu {

namespace {

void planes_to_lab(float* r, float* g, float* b, size_t count, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (ptrdiff_t i = 0; i < ptrdiff_t(count); ++i) rgb_to_lab(r[i], g[i], b[i], r[i], g[i], b[i]);
}

void rows_from_lab(const OutputBand& band, int first, int count, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i = first; i < first + count; ++i) {
    float *L = band.row(0, i), *a = band.row(1, i), *b = band.row(2, i);
    for (int x = 0; x < band.width; ++x) lab_to_rgb(L[x], a[x], b[x], L[x], a[x], b[x]);
  }
}

class BilateralKernel : public BandKernel {
 public:
  BilateralKernel(const BilateralPlan& plan, const KernelContext& context)
      : plan_(plan), context_(context), rows_(select_row_function(plan.params)) {
    const int width = plan.shape.width, planes = plan.shape.channels;
    scaled_.resize(padded_band_floats(context.band_rows + 2 * plan.reach, width, plan.pad, planes));
    if (plan.passes > 1)
      next_.resize(padded_band_floats(context.band_rows + 2 * (plan.reach - plan.radius), width, plan.pad, planes));
  }

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>& extras) override {
    const BilateralParams& p = plan_.params;
    const int passes = plan_.passes, r = plan_.radius, height = plan_.shape.height;
    const int colours = p.color_channels;
    PaddedBand source = input;
    float* spare = next_.data();  // ping-pong with the input band's memory
    for (int pass = 1; pass <= passes; ++pass) {
      const bool last = pass == passes;
      const int halo = (passes - pass) * r;  // rows this pass's output keeps for the passes after it
      if (p.lab) planes_to_lab(source.plane(0), source.plane(1), source.plane(2), source.plane_stride, threads());
      const PaddedBand scaled = scale(source);

      PaddedBand next;
      OutputBand target = output;
      if (!last) {
        next = describe_padded_band(output.first_row - halo, output.rows + 2 * halo, output.width, plan_.pad,
                                    source.planes, spare);
        target = inside_of(next, 0, next.rows);
      }
      // Only image rows are computed; the others are clamped copies.
      const int first = std::max(0, -target.first_row);
      const int end = std::min(target.rows, height - target.first_row);
      SigmaTarget sigma;
      if (pass == 1 && !extras.empty()) sigma = {&extras[0], halo};
      const RowFunction rows = rows_;
      const BilateralPlan& plan = plan_;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads())
      for (int j = first; j < end; ++j) rows(plan, scaled, source, target, sigma, j, j + 1);

      if (p.lab) rows_from_lab(target, first, end - first, threads());
      if (p.has_alpha)  // alpha passes through every pass unchanged
        for (int j = first; j < end; ++j)
          std::memcpy(target.row(colours, j), source.row(colours, j + r) + source.pad,
                      size_t(target.width) * sizeof(float));
      if (last) break;
      repad(next, first, end - first, context_.parallel);
      spare = source.data;
      source = next;
    }
  }

 private:
  int threads() const { return context_.threads; }

  // The colour planes times params.scale (the one form of the range
  // coefficient, bilateral_math.h), alpha as it is, in scaled_.
  PaddedBand scale(const PaddedBand& source) {
    PaddedBand scaled = source;
    scaled.data = scaled_.data();
    const float factor = plan_.params.scale;
    const int colours = plan_.params.color_channels;
    const ptrdiff_t count = ptrdiff_t(source.plane_stride);
    for (int c = 0; c < colours; ++c) {
      const float* from = source.plane(c);
      float* to = scaled.plane(c);
#pragma omp parallel for schedule(static) num_threads(threads())
      for (ptrdiff_t i = 0; i < count; ++i) to[i] = from[i] * factor;
    }
    if (plan_.params.has_alpha)
      std::memcpy(scaled.plane(colours), source.plane(colours), source.plane_stride * sizeof(float));
    return scaled;
  }

  const BilateralPlan& plan_;
  KernelContext context_;
  RowFunction rows_;
  std::vector<float> scaled_, next_;
};

}  // namespace

BandCost bilateral_own_cost(const Plan& plan) {
  // The scaled copy of the input band.
  const size_t row = size_t(plan.padded_width()) * size_t(plan.shape.channels);
  return {2 * size_t(plan.reach) * row, row};
}

std::unique_ptr<BandKernel> make_bilateral_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<BilateralKernel>(static_cast<const BilateralPlan&>(plan), context);
}

}  // namespace edgewise::cpu
