// What the dialog's Help button shows: the README's section on the dialog
// (compiled in from README.md when the build is configured, so the help
// matches the build and needs no installed files, browser or GIMP manual),
// then each control the dialog offers, generated from its layout: what it
// means, its valid values and default. No GTK: tests read it.
#pragma once

#include <string>

#include "control_rows.h"

namespace edgewise_dialog {

// README.md's "## The dialog" section as plain text (markdown emphasis and
// images left out).
std::string readme_dialog_section();

// The whole help text for a dialog with this layout.
std::string dialog_help_text(const DialogLayout& layout);

}  // namespace edgewise_dialog
