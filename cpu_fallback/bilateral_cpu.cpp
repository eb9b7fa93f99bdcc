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

#include "color_rows.h"

namespace edgewise::cpu {

namespace {

// Below this many samples a loop runs on the calling thread: waking the
// team costs more than it saves, and with many processes sharing the cores
// (a test suite) the spinning threads of short regions starve each other.
constexpr size_t kParallelSamples = 32768;

// The pass's input as the kernels read it: colour planes converted in place
// to Lab (lab mode) or to linear light (the linear working space) and
// copied, times params.scale, into `scaled`, alpha as it is. One sweep over
// the band.
void prepare_pass(const BilateralParams& p, PaddedBand& source, const PaddedBand& scaled, int threads) {
  const int colours = p.color_channels;
  const ptrdiff_t rows = source.rows;
  const size_t width = size_t(source.width);
#pragma omp parallel for schedule(static) num_threads(threads) if (size_t(rows) * width >= kParallelSamples)
  for (ptrdiff_t i = 0; i < rows; ++i) {
    if (p.lab) {
      color_rows().to_lab(source.row(0, int(i)), source.row(1, int(i)), source.row(2, int(i)), width);
    }
    if (p.linear)
      for (int c = 0; c < colours; ++c) color_rows().to_linear(source.row(c, int(i)), width);
    for (int c = 0; c < colours; ++c) {
      const float* from = source.row(c, int(i));
      float* to = scaled.row(c, int(i));
      for (size_t x = 0; x < width; ++x) to[x] = from[x] * p.scale;
    }
    if (p.has_alpha) std::memcpy(scaled.row(colours, int(i)), source.row(colours, int(i)), width * sizeof(float));
  }
}

// The pass's output rows [first, end): back from Lab or linear light, and
// alpha, which passes through unchanged, from the source rows r further down.
void finish_pass(const BilateralParams& p, const PaddedBand& source, const OutputBand& target, int first, int end,
                 int threads) {
  const int colours = p.color_channels, r = p.radius;
#pragma omp parallel for schedule(static) \
    num_threads(threads) if (size_t(end - first) * size_t(target.width) >= kParallelSamples)
  for (int j = first; j < end; ++j) {
    if (p.lab) {
      color_rows().from_lab(target.row(0, j), target.row(1, j), target.row(2, j), size_t(target.width));
    }
    if (p.linear)
      for (int c = 0; c < colours; ++c) color_rows().from_linear(target.row(c, j), size_t(target.width));
    if (p.has_alpha)
      std::memcpy(target.row(colours, j), source.row(colours, j + r) + source.pad,
                  size_t(target.width) * sizeof(float));
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
    PaddedBand source = input;
    float* spare = next_.data();  // ping-pong with the input band's memory
    for (int pass = 1; pass <= passes; ++pass) {
      const bool last = pass == passes;
      const int halo = (passes - pass) * r;  // rows this pass's output keeps for the passes after it
      PaddedBand scaled = source;
      scaled.data = scaled_.data();
      prepare_pass(p, source, scaled, threads());

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
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads()) if (end - first > 1)
      for (int j = first; j < end; ++j) rows(plan, scaled, source, target, sigma, j, j + 1);
      finish_pass(p, source, target, first, end, threads());
      if (last) break;
      repad(next, first, end - first, context_.parallel);
      spare = source.data;
      source = next;
    }
  }

 private:
  int threads() const { return context_.threads; }

  const BilateralPlan& plan_;
  KernelContext context_;
  RowFunction rows_;
  BandMemory scaled_, next_;
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
