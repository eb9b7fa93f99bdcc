// Filters one drawable's selection through its shadow buffer: the drawable
// changes only when the whole job succeeded, in one undo step.
#pragma once

#include <libgimp/gimp.h>

#include <string>

#include "settings.h"

namespace edgewise_plugin {

// Returns "" on success, otherwise a message for the user: the engine's, or
// GIMP's refusal of a write (merging the shadow buffer, updating the
// drawable), never a silent success. On failure the drawable is untouched.
// The caller checks the drawable first (drawable_checks.h).
std::string filter_drawable(gint32 drawable, const edgewise::Settings& settings);

}  // namespace edgewise_plugin
