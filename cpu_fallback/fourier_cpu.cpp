// The Fourier bilateral filter's band kernel on the CPU. One pass over the
// band: colour planes to working units in place (Lab in lab mode), clamped
// and centred; the blurred alpha once; then per colour channel, four terms
// at a time, the column pass over blocks of columns and the row pass over
// output rows (OpenMP; each pixel by one thread in a fixed order, so
// results do not depend on the thread count), D and E accumulated; the
// output formula, Lab back, alpha through.
#include "fourier_cpu.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "color_rows.h"
#include "fourier_math.h"

namespace edgewise::cpu {

namespace {

FourierPasses select_passes() {
  return std::string(instruction_set()) == "generic" ? generic::fourier_passes() : avx2::fourier_passes();
}

// Group g's lanes for colour channel c: terms 4g + 1 .. 4g + 4.
FourierGroup term_group(const FourierPlan& plan, int c, int g) {
  const FourierParams& p = plan.params;
  FourierGroup group{};
  for (int j = 0; j < kFourierTermsPerGroup; ++j) {
    const int k = g * kFourierTermsPerGroup + j + 1;
    if (k > p.terms) break;
    const float frequency = float(double(k) * double(p.channel[c].turns_per_unit));
    for (int lane = 2 * j; lane < 2 * j + 2; ++lane) {
      group.frequency[lane] = frequency;
      group.denominator[lane] = plan.cosine[plan.coefficient(c, k)];
    }
    group.phase[2 * j] = 0.25f;  // cos
    group.numerator[2 * j] = -plan.sine[plan.coefficient(c, k)];
    group.numerator[2 * j + 1] = plan.sine[plan.coefficient(c, k)];
  }
  return group;
}

// Lane 0 is 1 (phase a quarter turn at frequency 0): the passes blur alpha
// and add it to D alone.
FourierGroup alpha_group() {
  FourierGroup group{};
  group.phase[0] = 0.25f;
  group.denominator[0] = 1.0f;
  return group;
}

class FourierKernel : public BandKernel {
 public:
  FourierKernel(const FourierPlan& plan, const KernelContext& context)
      : plan_(plan), context_(context), passes_(select_passes()), scratch_(size_t(std::max(1, context.threads))) {
    const size_t plane = size_t(context.band_rows) * size_t(plan.shape.width);
    terms_.resize(plane * kFourierLanes);
    denominator_.resize(plane);
    numerator_.resize(plane);
    if (plan.params.has_alpha) alpha_.resize(plane);
  }

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>&) override {
    const FourierParams& p = plan_.params;
    const int colours = p.color_channels, width = output.width, out_rows = output.rows;
    prepare(input);
    for (FourierScratch& scratch : scratch_) {
      const size_t chunk_rows = size_t(fourier_chunk_band_rows(p) + fourier_chunk_rows(p));
      scratch.block.resize(std::max(scratch.block.size(), chunk_rows * kFourierBlockColumns * kFourierLanes));
      scratch.row.resize(std::max(scratch.row.size(), size_t(width) * kFourierLanes));
    }
    FourierBandView view;
    view.alpha = p.has_alpha ? input.row(colours, 0) : nullptr;
    view.stride = size_t(input.width);
    view.rows = input.rows;
    view.width = width;
    view.reach = plan_.reach;
    view.out_rows = out_rows;
    view.terms = terms_.data();
    if (p.has_alpha) {
      view.samples = input.row(0, 0);
      view.denominator = alpha_.data();
      std::fill(alpha_.begin(), alpha_.begin() + ptrdiff_t(size_t(out_rows) * size_t(width)), 0.0f);
      run_group(view, alpha_group());
    }
    for (int c = 0; c < colours; ++c) {
      view.samples = input.row(c, 0);
      view.denominator = denominator_.data();
      view.numerator = numerator_.data();
      const float a0 = plan_.cosine[plan_.coefficient(c, 0)];
      const size_t count = size_t(out_rows) * size_t(width);
      for (size_t i = 0; i < count; ++i) denominator_[i] = p.has_alpha ? a0 * alpha_[i] : a0;
      std::fill(numerator_.begin(), numerator_.begin() + ptrdiff_t(count), 0.0f);
      const int groups = (p.terms + kFourierTermsPerGroup - 1) / kFourierTermsPerGroup;
      for (int g = 0; g < groups; ++g) run_group(view, term_group(plan_, c, g));
      finish(input, output, c);
    }
    finish_pixels(input, output);
  }

 private:
  int threads() const { return std::max(1, context_.threads); }

  // Working units in place: Lab, the unit, clamped and centred.
  void prepare(PaddedBand& band) const {
    const FourierParams& p = plan_.params;
#pragma omp parallel for schedule(static) num_threads(threads())
    for (int i = 0; i < band.rows; ++i) {
      if (p.lab) {
        color_rows().to_lab(band.row(0, i), band.row(1, i), band.row(2, i), size_t(band.width));
      }
      for (int c = 0; c < p.color_channels; ++c) {
        float* row = band.row(c, i);
        for (int x = 0; x < band.width; ++x) row[x] = fourier_centred(p.channel[c], row[x] * p.unit);
      }
    }
  }

  void run_group(const FourierBandView& view, const FourierGroup& group) {
    const FourierParams& p = plan_.params;
    const float* taps = plan_.taps.data();
    const FourierPasses passes = passes_;
    const int blocks = (view.width + kFourierBlockColumns - 1) / kFourierBlockColumns;
#pragma omp parallel num_threads(threads())
    {
      FourierScratch& scratch = scratch_[size_t(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (int block = 0; block < blocks; ++block) {
        const int x0 = block * kFourierBlockColumns;
        passes.columns(p, taps, group, view, x0, std::min(view.width, x0 + kFourierBlockColumns), scratch);
      }
#pragma omp for schedule(static)
      for (int j = 0; j < view.out_rows; ++j) passes.row(p, taps, group, view, j, scratch);
    }
  }

  void finish(const PaddedBand& input, const OutputBand& output, int c) const {
    const FourierParams& p = plan_.params;
    const FourierChannel& channel = p.channel[c];
    const int width = output.width;
#pragma omp parallel for schedule(static) num_threads(threads())
    for (int j = 0; j < output.rows; ++j) {
      const float* u = input.row(c, j + plan_.reach);
      const float* D = denominator_.data() + size_t(j) * size_t(width);
      const float* E = numerator_.data() + size_t(j) * size_t(width);
      const float* A = p.has_alpha ? alpha_.data() + size_t(j) * size_t(width) : nullptr;
      float* out = output.row(c, j);
      for (int x = 0; x < width; ++x)
        out[x] = fourier_output(p, channel, u[x], E[x], D[x], A ? A[x] : 1.0f) * p.inverse_unit;
    }
  }

  // Lab back to R'G'B', alpha passed through.
  void finish_pixels(const PaddedBand& input, const OutputBand& output) const {
    const FourierParams& p = plan_.params;
#pragma omp parallel for schedule(static) num_threads(threads())
    for (int j = 0; j < output.rows; ++j) {
      if (p.lab) {
        color_rows().from_lab(output.row(0, j), output.row(1, j), output.row(2, j), size_t(output.width));
      }
      if (p.has_alpha)
        std::memcpy(output.row(p.color_channels, j), input.row(p.color_channels, j + plan_.reach),
                    size_t(output.width) * sizeof(float));
    }
  }

  const FourierPlan& plan_;
  KernelContext context_;
  FourierPasses passes_;
  std::vector<FourierScratch> scratch_;
  std::vector<float> terms_, denominator_, numerator_, alpha_;
};

}  // namespace

BandCost fourier_own_cost(const Plan& plan) {
  // Per output row: the column-blurred lanes (8 floats a pixel), D, E and
  // the blurred alpha. Fixed: each thread's column chunk (counted for two
  // threads).
  const size_t width = size_t(plan.shape.width);
  const auto& params = static_cast<const FourierPlan&>(plan).params;
  const size_t chunk = size_t(fourier_chunk_band_rows(params) + fourier_chunk_rows(params));
  const size_t block = 2 * size_t(kFourierBlockColumns) * kFourierLanes * chunk;
  return {block, width * (kFourierLanes + 3)};
}

std::unique_ptr<BandKernel> make_fourier_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<FourierKernel>(static_cast<const FourierPlan&>(plan), context);
}

}  // namespace edgewise::cpu
