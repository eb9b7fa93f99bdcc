// Filters one drawable's selection through its shadow buffer: the drawable
// changes only when the whole job succeeded, in one undo step.
#pragma once

#include <libgimp/gimp.h>

#include <string>

#include "pdb_params.h"

namespace edgewise_plugin {

// Returns "" on success, otherwise a message for the user; on failure the
// drawable is untouched.
std::string filter_drawable(gint32 drawable, const Request& request);

}  // namespace edgewise_plugin
