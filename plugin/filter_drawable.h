// Filters one drawable's selection through its shadow buffer, with the
// region adapter the GEGL operation uses (core/region_job.h): the drawable
// changes only when the whole job succeeded, in one undo step.
#pragma once

#include <libgimp/gimp.h>

#include <string>

#include "noise_estimate.h"
#include "settings.h"

namespace edgewise_plugin {

// Returns "" on success, otherwise a message for the user: the engine's, or
// GIMP's refusal of a write (merging the shadow buffer, updating the
// drawable), never a silent success. On failure the drawable is untouched.
// The caller checks the drawable first (drawable_checks.h). `noise`, when
// given, is what parameters at auto follow (the Denoise procedure's scaled
// estimate); else the whole drawable's noise is measured when they need it.
// `progress`: the progress bar's text, else the filter's (progress_text).
std::string filter_drawable(gint32 drawable, const edgewise::Settings& settings,
                            const edgewise::NoiseEstimate* noise = nullptr, const std::string& progress = "");

// The progress bar's text while the noise is measured, before a run.
constexpr const char* kMeasuringNoise = "Edgewise: measuring the noise";

// The noise of the whole drawable (whatever the selection), as the auto
// values follow it. Returns "" or the message.
std::string measure_drawable_noise(gint32 drawable, edgewise::NoiseEstimate& noise);

}  // namespace edgewise_plugin
