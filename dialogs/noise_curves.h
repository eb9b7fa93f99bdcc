// The noise the dialog shows a photographer: the model's noise level
// functions (noise against brightness) as curves to plot, and a caption.
// Colour images show luminance (the opponent luma channel) and colour (the
// two chroma channels together), the two things the Luminance and Colour
// controls scale; grey images their one channel. No GTK: tests read it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "noise_estimate.h"

namespace edgewise_dialog {

struct NoiseCurve {
  std::string name;                               // "luminance", "colour", "grey"
  std::vector<std::pair<double, double>> points;  // (brightness 0-255, noise sigma in code values), increasing
  bool measured = false;                          // from the noise level function's bins (else one level)
};

std::vector<NoiseCurve> noise_curves(const edgewise::NoiseEstimate& noise);

// One or two sentences under the plot: the levels, or that the noise could
// not be measured, why, and what the numbers are instead.
std::string noise_caption(const edgewise::NoiseEstimate& noise);

}  // namespace edgewise_dialog
