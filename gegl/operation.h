// One GEGL operation per filter of the registry, edgewise:NAME, a
// GeglOperationAreaFilter subclass registered at run time (the filters are
// data, so the types are made from them, not declared by gegl-op.h's
// macros). It filters the part GEGL asks for through core/region_job.h, so
// a render of any tile size gives the CLI's pixels; it runs inside the
// host program (GIMP), so nothing may escape it: every failure leaves the
// input unchanged in the output, or reruns on the CPU, with a g_warning.
#pragma once

#include <gegl-plugin.h>

#include "filter_registry.h"

namespace edgewise_gegl {

// The operation's name: "edgewise:bilateral".
std::string operation_name(const edgewise::FilterInfo& filter);

// Registers the operation of `filter` with the module (again on every
// load). Returns its type, or 0 when GObject refused it.
GType register_operation(GTypeModule* module, const edgewise::FilterInfo& filter);

}  // namespace edgewise_gegl
