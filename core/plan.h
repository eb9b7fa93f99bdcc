// Normalise once: a validated FilterSpec and an image shape become a Plan
// (effective radius, band height, range scale, spatial tables). Backends get
// the plan, never raw user values, so they use identical numbers.
#pragma once

#include <cstddef>
#include <vector>

#include "bilateral.h"
#include "filter_spec.h"

namespace edgewise {

struct ImageShape {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
};

struct PlanOptions {
  int band_rows = 0;                         // 0: chosen from band_bytes
  // Target size of one padded band: small enough that a band's gather,
  // filter and scatter stay in the last-level cache and its buffers are
  // reused, large enough that halo rows (2r per band) cost little.
  size_t band_bytes = size_t(16) << 20;
  // Adaptive filter only: write each pixel's sigma_r' (normalized units) to
  // the colour planes instead of the filtered colour, for inspection.
  bool output_sigma = false;
};

struct Plan {
  FilterSpec spec;
  ImageShape shape;
  BilateralParams params;
  int radius = 0;
  int band_rows = 0;  // output rows per band, at least max(radius, 1)
  // Per tap, indexed (dy + r) * (2r + 1) + (dx + r), computed in double;
  // what it holds depends on the range kernel (see tap_weight).
  std::vector<float> spatial_term;

  int window() const { return 2 * radius + 1; }
  int taps() const { return window() * window(); }
  int padded_width() const { return shape.width + 2 * radius; }
};

int effective_radius(const FilterSpec& spec);
// How far an output pixel's value reaches over all passes: each pass reads
// the radius around it, so filtering a region grown by this much gives its
// inner part exactly as filtering the whole image does.
int filter_reach(const FilterSpec& spec);

// Throws std::invalid_argument with validate()'s message for a bad spec, or
// naming the bad image dimension.
Plan make_plan(const FilterSpec& spec, const ImageShape& shape, const PlanOptions& options = {});

// Bytes the banded pass allocates besides the caller's source and sink.
size_t band_memory_bytes(const Plan& plan);

}  // namespace edgewise
