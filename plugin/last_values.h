// The last successful call's settings, kept by GIMP for the session
// (gimp_set_data/gimp_get_data) so that RUN-WITH-LAST-VALS and Filters >
// Repeat reproduce it.
#pragma once

#include "pdb_params.h"

namespace edgewise_plugin {

// Returns the defaults when nothing (or data of another layout) is stored.
Request load_last_values(const char* procedure);
void store_last_values(const char* procedure, const Request& request);

}  // namespace edgewise_plugin
