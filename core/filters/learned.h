// The learned denoiser as a filter (issue 35): the network of
// core/denoise_net.h (training/denoise_net.py: a U-Net over three scales
// after a 2 x 2 unshuffle, told the noise by a map as FFDNet is: Zhang, Zuo
// & Zhang, "FFDNet: toward a fast and flexible solution for CNN based image
// denoising", IEEE TIP 2018; trained on a camera pipeline as CBDNet is:
// Guo et al., CVPR 2019), the map read by the noise-map network
// (core/noise_net.h) on every 64 px tile, both shipped in models/.
//
// The image is R'G'B' in 0..1 as stored (the network's training data); a
// grey image is given as R = G = B and its result is the mean of the
// three; alpha is kept as it is. Bands, tiles and threads cut the work on
// grids from the image's origin (core/learned_denoise.h), so the result is
// the same, bit for bit, however the image is cut.
//
// sigma-n at auto: the noise network's map, each cell's variances
// multiplied as the estimate the front end handed the filter was
// (NoiseEstimate::luminance_multiplier and colour_multiplier: the Denoise
// front end's Strength, Luminance and Colour). Where the noise network is
// not installed, white noise of the estimate's sigma, and the run report
// says so. A number: white noise of that sigma everywhere.
#pragma once

#include <memory>
#include <string>

#include "denoise_net.h"
#include "filter_registry.h"
#include "filter_spec.h"
#include "learned_denoise.h"
#include "noise_net.h"
#include "plan.h"

namespace edgewise {

struct LearnedParameters {
#define EW_DEF_FIELDS
#include "learned_params.def"
};

LearnedParameters learned_parameters(const FilterSpec& spec);
// Throws std::invalid_argument with validate()'s message for a bad value.
FilterSpec learned_spec(const LearnedParameters& parameters);

// The shipped denoiser, loaded once per process: from $EDGEWISE_DENOISE_NET
// when set ("none" turns it off), else the first of the installed data
// folder's and the source tree's models/denoiser-v1.ewnn. `net` is null
// when it could not be loaded; `problem` then says why, in one line naming
// the file.
struct ShippedDenoiseNet {
  std::shared_ptr<const DenoiseNet> net;
  std::string path;
  std::string problem;
};
const ShippedDenoiseNet& shipped_denoise_net();

class LearnedPlan : public Plan {
 public:
  std::shared_ptr<const DenoiseNet> denoiser;
  std::shared_ptr<const NoiseNet> noise_net;  // null where the map is white noise
  // The map (sigma 0: the noise network's) and its multipliers.
  LearnedDenoiseOptions options;
  bool untouched = false;  // strength 0: the input, as it is
};

const FilterInfo& learned_filter();

}  // namespace edgewise
