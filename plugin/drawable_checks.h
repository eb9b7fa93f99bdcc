// What the plug-in refuses before any work, as GIMP's own filters do: a
// drawable that is not one (any more), a layer group (its pixels are made
// from its layers), pixels locked on the drawable or above it (Layers
// dialog: Lock pixels, on it, its layer for a mask, or a group holding it),
// and indexed images (the menu entries are greyed for them; scripts get the
// message).
#pragma once

#include <libgimp/gimp.h>

#include <string>

namespace edgewise_plugin {

struct Refusal {
  GimpPDBStatusType status = GIMP_PDB_SUCCESS;
  std::string message;  // empty: the drawable can be filtered
  explicit operator bool() const { return !message.empty(); }
};

Refusal check_drawable(gint32 drawable);

// Test hook: EDGEWISE_SKIP_DRAWABLE_CHECKS=1 skips check_drawable's group
// and lock checks, so the tests can show that a write GIMP refuses still
// ends in an error, never in success.
bool drawable_checks_skipped();

}  // namespace edgewise_plugin
