// What the dialogs' Help window shows after the user guide (user_guide.h):
// each control the dialog offers, generated from its layout: what it
// means, its valid values and default. No GTK: tests read it.
#pragma once

#include <string>

#include "control_rows.h"
#include "denoise.h"

namespace edgewise_dialog {

// A filter dialog's controls.
std::string dialog_help_text(const DialogLayout& layout);

// The Denoise dialog's: its methods, Strength, Luminance and Colour, each
// method's own controls, then its Advanced rows (`advanced`) and backends.
std::string denoise_help_text(const edgewise::Registry& registry, const DialogLayout& advanced);

}  // namespace edgewise_dialog
