#include "plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace edgewise {

constexpr double kLog2eDouble = 1.4426950408889634074;

int effective_radius(const FilterSpec& spec) {
  if (spec.radius > 0) return spec.radius;
  return static_cast<int>(std::ceil(2.0 * static_cast<double>(spec.sigma_s)));
}

int filter_reach(const FilterSpec& spec) { return spec.iterations * effective_radius(spec); }

static void check_shape(const ImageShape& shape) {
  if (shape.width < 1 || shape.height < 1)
    throw std::invalid_argument("invalid image size " + std::to_string(shape.width) + "x" +
                                std::to_string(shape.height) + ": both sides must be at least 1");
  if (shape.channels < 1 || shape.channels > 4)
    throw std::invalid_argument("invalid channel count " + std::to_string(shape.channels) +
                                ": expected 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA)");
}

static BilateralParams make_params(const FilterSpec& spec, const ImageShape& shape, int radius) {
  BilateralParams p{};
  p.radius = radius;
  p.color_channels = shape.channels >= 3 ? 3 : 1;
  p.has_alpha = shape.channels == 2 || shape.channels == 4;
  p.kernel = spec.kernel;
  // Grey images have one channel: every mode collapses to it, measured in
  // code values like per-channel and rgb.
  p.lab = spec.mode == ColorMode::lab && p.color_channels == 3;
  p.joint = spec.mode != ColorMode::per_channel || p.color_channels == 1;
  p.spatial_log2_coefficient =
      static_cast<float>(kLog2eDouble / (2.0 * double(spec.sigma_s) * double(spec.sigma_s)));
  p.adaptive = spec.filter == FilterKind::adaptive;
  p.adapt_k = spec.adapt_k;
  p.adapt_eps = spec.adapt_eps;
  p.adapt_min = spec.adapt_min;
  p.adapt_max = spec.adapt_max;
  p.normalized_unit2 = p.lab ? 1e-4f : 1.0f;  // working units: 0..1 samples, or Delta E
  p.coefficient_factor = static_cast<float>(p.kernel == RangeKernel::gaussian ? 0.5 * kLog2eDouble : 1.0);
  // sigma_r is in 0-255 code values for per-channel/rgb whatever the sample
  // precision, and in Delta E for lab (Lab planes are in Delta E units);
  // normalized, it is the adaptive filter's unit.
  p.range_coefficient = range_coefficient_for(p, static_cast<float>(spec.sigma_r) / (p.lab ? 100.0f : 255.0f));
  return p;
}

Plan make_plan(const FilterSpec& spec, const ImageShape& shape, const PlanOptions& options) {
  const std::string error = validate(spec);
  if (!error.empty()) throw std::invalid_argument(error);
  check_shape(shape);

  Plan plan;
  plan.spec = spec;
  plan.shape = shape;
  plan.radius = effective_radius(spec);
  plan.params = make_params(spec, shape, plan.radius);
  plan.params.output_sigma = options.output_sigma && plan.params.adaptive;

  const int r = plan.radius;
  const double inv_two_var = 1.0 / (2.0 * double(spec.sigma_s) * double(spec.sigma_s));
  const bool folded = spec.kernel == RangeKernel::gaussian;
  plan.spatial_term.resize(size_t(plan.taps()));
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const double e = -double(dx * dx + dy * dy) * inv_two_var;
      plan.spatial_term[size_t((dy + r) * plan.window() + (dx + r))] =
          static_cast<float>(folded ? e * kLog2eDouble : std::exp(e));
    }

  // A band is at least r rows so an in-place pass never reads rows it has
  // already overwritten (see banded_pass.cpp).
  int rows = options.band_rows;
  if (rows <= 0) {
    const size_t row_bytes = size_t(plan.padded_width()) * size_t(shape.channels) * sizeof(float);
    rows = static_cast<int>(std::max<size_t>(1, options.band_bytes / std::max<size_t>(1, row_bytes)));
    rows = std::max(1, rows - 2 * r);
  }
  plan.band_rows = std::min(shape.height, std::max({rows, r, 1}));
  return plan;
}

size_t band_memory_bytes(const Plan& plan) {
  const size_t c = size_t(plan.shape.channels);
  const size_t padded = size_t(plan.band_rows + 2 * plan.radius) * size_t(plan.padded_width()) * c;
  const size_t staging = size_t(plan.band_rows + 2 * plan.radius) * size_t(plan.shape.width) * c;
  const size_t output = 2 * size_t(plan.band_rows) * size_t(plan.shape.width) * c;
  return (padded + staging + output) * sizeof(float);
}

}  // namespace edgewise
