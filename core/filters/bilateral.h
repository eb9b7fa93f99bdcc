// The bilateral family: the exact bilateral filter (Tomasi & Manduchi,
// "Bilateral filtering for gray and color images", ICCV 1998) and its
// variance-adaptive variant, whole image, clamp-to-edge:
//   out(p) = sum_q w(p,q) I(q) / sum_q w(p,q),  q in the (2r+1)^2 square,
//   w(p,q) = exp(-|p-q|^2 / (2 sigma_s^2)) * R(d(p,q)) * alpha(q).
// This header holds the family's parameters (generated from its .def
// lists), the values its kernels need, its plan and its registry rows; the
// per-pixel math is in bilateral_math.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filter_registry.h"
#include "filter_spec.h"
#include "plan.h"

namespace edgewise {

// enum class ColorMode, enum class WorkingSpace, enum class RangeKernel.
#define EW_DEF_ENUMS
#include "bilateral_params.def"

struct BilateralParameters {
#define EW_DEF_FIELDS
#include "bilateral_params.def"
};

struct AdaptiveParameters {
#define EW_DEF_FIELDS
#include "adaptive_params.def"
};

// The typed values of a spec that has them (every filter of the family has
// the bilateral parameters), and a spec from typed values: throws
// std::invalid_argument with validate()'s message for a bad value.
BilateralParameters bilateral_parameters(const FilterSpec& spec);
AdaptiveParameters adaptive_parameters(const FilterSpec& spec);
FilterSpec bilateral_spec(const BilateralParameters& parameters);
FilterSpec adaptive_spec(const BilateralParameters& bilateral, const AdaptiveParameters& adaptive);

const char* to_string(ColorMode mode);
const char* to_string(WorkingSpace space);
const char* to_string(RangeKernel kernel);

// ceil(2 sigma_s) for radius 0.
int effective_radius(const BilateralParameters& parameters);
int effective_radius(const FilterSpec& spec);

// Plain values the kernels need, built once by the planner (trivially
// copyable: CUDA kernels take it by value).
struct BilateralParams {
  int radius;          // window half-width
  int color_channels;  // 1 (grey) or 3 (RGB, or Lab after conversion)
  bool has_alpha;      // an alpha plane follows the colour planes
  bool joint;          // one weight per tap (rgb, lab, grey) or per channel
  bool lab;            // colour planes are converted to Lab around each pass
  bool linear;         // colour planes are decoded to linear light around each pass (never with lab)
  bool adaptive;       // the variance-adaptive filter (see adaptive_ratio)
  RangeKernel kernel;
  // Distances are measured on samples scaled by `scale` = sqrt(range
  // coefficient), so a tap's range argument is the plain squared difference
  // of scaled samples (see plain_weight); outputs are scaled back by
  // inverse_scale. One form on every backend.
  float range_coefficient;
  float scale;
  float inverse_scale;
  float spatial_log2_coefficient;  // log2(e) / (2 sigma_s^2), for rescue_pixel
  float adapt_k, adapt_eps, adapt_min, adapt_max;
  float normalized_unit2;    // (normalized units per working unit)^2: 1, or 1e-4 for Delta E
  float coefficient_factor;  // 0.5 log2(e) for the folded Gaussian, 1 for the other kernels
};

class BilateralPlan : public Plan {
 public:
  BilateralParams params{};
  int radius = 0;
  int passes = 1;  // iterations, run one after the other within each band
  // Per tap, indexed (dy + r) * (2r + 1) + (dx + r), computed in double;
  // what it holds depends on the range kernel (see plain_weight).
  std::vector<float> spatial_term;
  bool sigma_output = false;  // the adaptive filter's sigma map is requested (extra_outputs[0])

  int window() const { return 2 * radius + 1; }
  int taps() const { return window() * window(); }
};

// The family's plan for typed values; `adaptive` null for the plain filter.
// A filter that runs on the family's kernels plans through this.
std::unique_ptr<Plan> plan_bilateral_family(const BilateralParameters& bilateral, const AdaptiveParameters* adaptive,
                                            const ImageShape& shape, const PlanRequest& request);

// The registry rows (core/filters/registry.cpp lists them).
const FilterInfo& bilateral_filter();
const FilterInfo& adaptive_filter();

}  // namespace edgewise
