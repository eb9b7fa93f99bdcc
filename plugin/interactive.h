// INTERACTIVE runs: the Edgewise dialog over the drawable, starting from the
// last values. Built with the dialog where GTK 3 exists; without it an
// interactive run repeats the last values.
#pragma once

#include <libgimp/gimp.h>

#include <string>

#include "pdb_params.h"

namespace edgewise_plugin {

enum class DialogOutcome { ok, cancelled, failed };

// On ok, `request` holds the user's choice; on failed, `error` says why.
DialogOutcome ask_user(gint32 drawable, Procedure procedure, Request& request, std::string& error);

}  // namespace edgewise_plugin
