// The GObject properties of an operation, generated from its filter's
// parameters (core/params.h) as GEGL's own operations declare theirs: one
// property per parameter, named by its flag, with its label, help, hard
// range, slider range (GEGL's ui range) and default; a choice as a GEnum
// type shared by every filter that has the flag. A parameter that takes
// auto from the image's noise takes -1 for it (any negative value), as GEGL
// users expect a number to say "automatic"; its description says so.
#pragma once

#include <gegl-plugin.h>

#include <string>
#include <vector>

#include "backend.h"
#include "filter_registry.h"

namespace edgewise_gegl {

// Registers the GEnum types of every choice of the registry and of the
// backend list with the module (again on every load: GTypeModule keeps the
// types). Throws std::runtime_error when GObject refuses one.
void register_enum_types(GTypeModule* module, const edgewise::Registry& registry,
                         const edgewise::BackendList& backends);

// The property of a parameter, and of the backend choice (its GEnum
// registered first).
GParamSpec* param_property(const edgewise::ParamInfo& param);
GParamSpec* backend_property(const edgewise::BackendList& backends);

// A property's value as the spec's number (a choice's index, kNoiseAuto
// for a negative value of a parameter that takes auto), and back.
double spec_number(const edgewise::ParamInfo& param, const GValue* value);
void set_gvalue(const edgewise::ParamInfo& param, double number, GValue* value);

// "Edgewise" + "WorkingSpace" for "working-space": a GType name from words
// separated by '-' or '_'.
std::string type_name(const char* prefix, const std::string& words);

}  // namespace edgewise_gegl
