// The CPU's bilateral row kernels of every instruction set this processor
// runs (cpu_fallback/bilateral_rows_*.cpp), called directly on a prepared
// band, against the double reference: the engine tests (test_bilateral,
// test_adaptive) run only the widest set the dispatcher picks, so the
// narrower ones would otherwise go untested here. Random images of awkward
// sizes with transparent pixels (some windows rescued), every range kernel,
// per-channel and rgb, plain and adaptive, 1 to 4 channels.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "band_io.h"
#include "bilateral_cpu.h"
#include "filter_registry.h"
#include "test_support.h"

namespace edgewise_test {
namespace {

using edgewise::BilateralPlan;
using edgewise::OutputBand;
using edgewise::PaddedBand;
using edgewise::cpu::RowFunction;

constexpr double kTolerance = 1e-4;  // as test_bilateral's

struct Isa {
  std::string name;
  RowFunction (*select)(const edgewise::BilateralParams&);
};

std::vector<Isa> usable_isas() {
  std::vector<Isa> isas = {{"generic", edgewise::cpu::generic::select}};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    isas.push_back({"avx2", edgewise::cpu::avx2::select});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    isas.push_back({"avx512", edgewise::cpu::avx512::select});
  return isas;
}

// One pass of the band kernel on the whole image as a single band: the
// image clamp-padded by r, its colour planes times the plan's scale, the
// rows filtered by `rows`; alpha passes through.
FloatImage filter_with(const BilateralPlan& plan, RowFunction rows, const FloatImage& image) {
  const ImageShape& shape = image.shape();
  const int r = plan.radius, band_rows = shape.height + 2 * r, colours = plan.params.color_channels;
  const size_t floats = edgewise::padded_band_floats(band_rows, shape.width, r, shape.channels);
  std::vector<float> unscaled_floats(floats, 0.0f), scaled_floats(floats, 0.0f);
  PaddedBand unscaled =
      edgewise::describe_padded_band(-r, band_rows, shape.width, r, shape.channels, unscaled_floats.data());
  edgewise::RowSpan span;
  span.data = const_cast<float*>(image.pixels().data());
  span.stride = size_t(shape.width) * size_t(shape.channels) * sizeof(float);
  span.rows = shape.height;
  edgewise::unpack_rows(span, shape.height, unscaled);
  PaddedBand scaled = unscaled;
  scaled.data = scaled_floats.data();
  for (size_t i = 0; i < unscaled.plane_stride * size_t(shape.channels); ++i)
    scaled_floats[i] =
        i < unscaled.plane_stride * size_t(colours) ? unscaled_floats[i] * plan.params.scale : unscaled_floats[i];
  std::vector<float> planar(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels));
  const OutputBand out = edgewise::describe_output_band(0, shape.height, shape.width, shape.channels, planar.data());
  rows(plan, scaled, unscaled, out, {}, 0, shape.height);

  FloatImage result(shape);
  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x)
      for (int c = 0; c < shape.channels; ++c) result.at(x, y, c) = c < colours ? out.row(c, y)[x] : image.at(x, y, c);
  return result;
}

TEST(BilateralRows, EveryInstructionSetMatchesReference) {
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 1}, {1, 13, 1}, {19, 1, 1}, {37, 23, 1}, {23, 17, 1}};
  int compared = 0;
  for (const Isa& isa : usable_isas())
    for (bool adaptive : {false, true})
      for (edgewise::ColorMode mode : {edgewise::ColorMode::per_channel, edgewise::ColorMode::rgb})
        for (edgewise::RangeKernel kernel : kKernels)
          for (int channels : {1, 2, 3, 4}) {
            const int radius = 1 + compared % 4;
            ImageShape shape = sizes[size_t(compared) % std::size(sizes)];
            shape.channels = channels;
            const float sigma_r = std::uniform_real_distribution<float>(5.0f, 60.0f)(rng);
            const FilterSpec plain = make_spec(mode, kernel, float(radius) / 2 + 0.5f, sigma_r, radius);
            const FilterSpec spec = adaptive ? adaptive_of(plain) : plain;
            SCOPED_TRACE(isa.name + ", " + describe(spec, shape));
            const std::unique_ptr<edgewise::Plan> made = edgewise::make_plan(spec, shape);
            const auto& plan = static_cast<const BilateralPlan&>(*made);
            const FloatImage image = random_image(rng, shape);
            const FloatImage output = filter_with(plan, isa.select(plan.params), image);
            const Comparison result = compare_with_reference(spec, image, output, kTolerance);
            ASSERT_LE(result.worst.max_abs, kTolerance) << result.describe();
            ++compared;
          }
  std::cout << "[  INFO    ] " << compared << " variants compared with the reference" << std::endl;
}

}  // namespace
}  // namespace edgewise_test
