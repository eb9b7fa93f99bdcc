// INTERACTIVE runs: the Edgewise dialog over the drawable, starting from the
// last values, in GIMP's light or dark look. Built with the dialog where
// GTK 3 exists; without it an interactive run repeats the last values.
#pragma once

#include <libgimp/gimp.h>

#include <string>

#include "denoise.h"
#include "settings.h"

namespace edgewise_plugin {

enum class DialogOutcome { ok, cancelled, failed };

// On ok, `settings` holds the user's choice; on failed, `error` says why.
// The dialog edits settings.spec's filter only (each menu entry is one),
// and offers only the parameters procedure `version` takes.
DialogOutcome ask_user(gint32 drawable, edgewise::Settings& settings, int version, std::string& error);

// The Denoise dialog (dialogs/denoise_dialog.h), starting from `denoise`.
DialogOutcome ask_user_denoise(gint32 drawable, edgewise::DenoiseSettings& denoise, std::string& error);

}  // namespace edgewise_plugin
