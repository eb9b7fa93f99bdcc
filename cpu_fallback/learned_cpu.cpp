#include "learned_cpu.h"

#include <algorithm>
#include <vector>

#include "image_shape.h"
#include "learned.h"

namespace edgewise::cpu {

namespace {

class LearnedKernel : public BandKernel {
 public:
  LearnedKernel(const LearnedPlan& plan, const KernelContext& context) : plan_(plan), context_(context) {}

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>&) override {
    const ImageShape& shape = plan_.shape;
    const int width = shape.width, height = shape.height, colour = color_channels(shape);
    const int first = std::max(0, input.first_row), last = std::min(height, input.first_row + input.rows);
    auto input_row = [&](int plane, int y) { return input.row(plane, y - input.first_row) + input.pad; };
    if (plan_.untouched) {
      for (int plane = 0; plane < output.planes; ++plane)
        for (int i = 0; i < output.rows; ++i)
          std::copy_n(input_row(plane, output.first_row + i), width, output.row(plane, i));
      return;
    }
    // R'G'B' interleaved, as the network reads it; grey as R = G = B.
    rgb_.resize(size_t(last - first) * size_t(width) * 3);
    context_.parallel(last - first, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        float* rgb = &rgb_[size_t(i) * size_t(width) * 3];
        for (int x = 0; x < width; ++x)
          for (int c = 0; c < 3; ++c) rgb[size_t(x) * 3 + size_t(c)] = input_row(colour == 3 ? c : 0, first + i)[x];
      }
    });
    out_.resize(size_t(output.rows) * size_t(width) * 3);
    LearnedDenoiseOptions options = plan_.options;
    options.threads = context_.threads;
    bool stopped = false;
    options.keep_going = [&](double done) {
      // A stop asked for here is thrown after the parallel region.
      try {
        band_progress(context_, done);
      } catch (const Cancelled&) {
        stopped = true;
      }
      return !stopped;
    };
    const RgbRows rows{rgb_.data(), width, first, last - first};
    learned_denoise_rows(*plan_.denoiser, plan_.noise_net.get(), rows, width, height, output.first_row,
                         output.first_row + output.rows, out_.data(), options);
    if (stopped) band_progress(context_, 1.0);  // throws the stop
    context_.parallel(output.rows, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const float* denoised = &out_[size_t(i) * size_t(width) * 3];
        if (colour == 3) {
          for (int c = 0; c < 3; ++c) {
            float* o = output.row(c, i);
            for (int x = 0; x < width; ++x) o[x] = denoised[size_t(x) * 3 + size_t(c)];
          }
        } else {
          float* o = output.row(0, i);
          for (int x = 0; x < width; ++x)
            o[x] = (denoised[size_t(x) * 3] + denoised[size_t(x) * 3 + 1] + denoised[size_t(x) * 3 + 2]) / 3.0f;
        }
        if (has_alpha(shape))
          std::copy_n(input_row(colour, output.first_row + i), width, output.row(colour, i));
      }
    });
  }

 private:
  const LearnedPlan& plan_;
  KernelContext context_;
  std::vector<float> rgb_, out_;
};

}  // namespace

BandCost learned_own_cost(const Plan& plan) {
  // The band's rows interleaved (reach rows on both sides) and its output's.
  const size_t row = size_t(plan.shape.width) * 3;
  return {2 * size_t(plan.reach) * row, 2 * row};
}

std::unique_ptr<BandKernel> make_learned_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<LearnedKernel>(static_cast<const LearnedPlan&>(plan), context);
}

}  // namespace edgewise::cpu
