// The GEGL module: every filter of the registry as an operation
// (operation.h), registered when GEGL loads the module from its plug-in
// folders (GEGL_PATH, ~/.local/share/gegl-0.4/plug-ins, pkg-config
// gegl-0.4's pluginsdir).
#include <exception>

#include "op_properties.h"
#include "operation.h"

namespace {

const GeglModuleInfo kModuleInfo = {GEGL_MODULE_ABI_VERSION};

}  // namespace

extern "C" {

G_MODULE_EXPORT const GeglModuleInfo* gegl_module_query(GTypeModule*) { return &kModuleInfo; }

// GEGL calls this on every load of the module (it loads, registers and
// unloads it at start-up, then loads it again when an operation is made);
// the module is linked -z nodelete, so its C++ state outlives the unloads.
G_MODULE_EXPORT gboolean gegl_module_register(GTypeModule* module) {
  try {
    const edgewise::Registry& registry = edgewise::builtin_registry();
    edgewise_gegl::register_enum_types(module, registry, edgewise::installed_backends());
    // One filter GObject refuses does not take the others with it.
    for (const edgewise::FilterInfo* filter : registry.filters())
      if (!edgewise_gegl::register_operation(module, *filter))
        g_warning("%s could not be registered", edgewise_gegl::operation_name(*filter).c_str());
    return TRUE;
  } catch (const std::exception& error) {
    g_warning("edgewise: the GEGL operations could not be registered: %s", error.what());
    return FALSE;
  }
}

}  // extern "C"
