// The Denoise dialog (GTK 3, issue 30): a photographer's controls first.
// Method (Recommended, with the reason the noise gives, or one of the
// Denoise methods with what it is good for and how fast), Strength, and
// Luminance and Colour apart where the method can set them apart (else a
// line says why one control does both), the method's own plain controls
// (Smoothness, Coarse grain), the noise measured in the image as a plot
// against brightness, then an Advanced expander with the method's
// parameters and the backend, and the line saying where it runs. The same
// live preview as the filter dialog. Generated from the registry: nothing
// here names a filter.
#pragma once

#include "denoise.h"
#include "filter_dialog.h"

namespace edgewise_dialog {

// Shows the dialog and waits for the user. True for OK with `denoise`
// holding the choice; false for Cancel, Escape or closing the window, with
// `denoise` unchanged. options.filter_locked and hidden_params do not apply.
bool run_denoise_dialog(ImagePort& image, edgewise::DenoiseSettings& denoise, const DialogOptions& options);

}  // namespace edgewise_dialog
