// What a filter's planner makes of a spec and an image size: everything a
// backend needs to run the filter band by band, normalised once so both
// backends use identical numbers. Each filter derives its own plan (its
// tables and constants); the executor reads only this base.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "image_shape.h"

namespace edgewise {

struct NoiseEstimate;

// A second image a plan writes besides the filtered one (the adaptive
// filter's sigma map): floats in 0..1, `channels` per pixel.
struct ExtraOutput {
  std::string name;
  int channels = 1;
};

// Memory, in floats, that a band of `rows` output rows needs: fixed + per_row * rows.
struct BandCost {
  size_t fixed = 0;
  size_t per_row = 0;
  size_t floats(int rows) const { return fixed + per_row * size_t(rows); }
};

class Plan {
 public:
  virtual ~Plan() = default;

  ImageShape shape;
  // The band kernels that run this plan: each backend keeps a table of its
  // kernels by family, so a filter's stem adds one row there.
  std::string family;
  // Clamp-to-edge columns on each side of a padded band, so kernels never
  // test for the left and right borders.
  int pad = 0;
  // Rows above and below a band that its output depends on, over all the
  // passes the kernel runs within the band: the band's halo.
  int reach = 0;
  // Padded bands the kernel works in besides its input (ping-pong between passes).
  int scratch_bands = 0;
  std::vector<ExtraOutput> extra_outputs;  // those requested, in request order
  // What the planner chose from the image's noise where the spec said auto
  // beyond resolve_noise's values (nlbayes: "scales 2"), for the run
  // report's auto values; "" when nothing.
  std::string auto_choices;
  // One line for the user where the planner could not do what auto asks
  // (the learned filter without its noise network: white noise instead of
  // the map); the engine sends it through RunOptions::notice. "" when none.
  std::string notice;

  int padded_width() const { return shape.width + 2 * pad; }
  // Floats of planar memory per band: the padded input, scratch bands, the
  // output and the extra outputs.
  BandCost band_cost() const;
};

// What the caller wants from a run besides the filtered image.
struct PlanRequest {
  std::vector<std::string> extra_outputs;  // names from the filter's registry row
  // The estimate the spec's auto parameters were resolved from
  // (resolve_noise) and their flags, so that a planner can follow the
  // estimate's noise level function per pixel where its values were auto
  // (the nlm filter does); explicit values never see it.
  const NoiseEstimate* noise = nullptr;
  std::vector<std::string> noise_auto_flags;
  bool noise_auto(const std::string& flag) const {
    if (!noise) return false;
    for (const std::string& auto_flag : noise_auto_flags)
      if (auto_flag == flag) return true;
    return false;
  }
};

}  // namespace edgewise
