// The Denoise procedure as data (issue 30): plug-in-edgewise-denoise, the
// one menu entry a photographer needs (Filters > Enhance > Denoise
// (Edgewise)...). Arguments: run-mode, image, drawable, method (-1: the one
// the noise model recommends for the image, else a filter's index in the
// registry, listed in the help), strength, luminance, colour (multipliers
// of the measured noise, core/denoise.h). Generated from the registry like
// the filters' procedures; it names no filter. Free of libgimp, so tests
// run it on any registry.
#pragma once

#include <string>
#include <vector>

#include "denoise.h"
#include "pdb_layout.h"

namespace edgewise_plugin {

constexpr const char* kDenoiseProcedure = "plug-in-edgewise-denoise";
constexpr const char* kDenoiseMenuLabel = "_Denoise (Edgewise)...";
constexpr const char* kDenoiseBlurb = "Removes noise from photos: the method and its settings follow the image's noise";
// Where the filters' own entries live: a submenu beside it.
constexpr const char* kEnhanceMenu = "<Image>/Filters/Enhance";
constexpr const char* kMethodsMenu = "<Image>/Filters/Enhance/Edgewise methods";

std::vector<PdbArgument> denoise_arguments(const edgewise::Registry& registry);
std::string denoise_help(const edgewise::Registry& registry);

// A NONINTERACTIVE call's values after run-mode, image and drawable (method,
// strength, luminance, colour) into `denoise`, which keeps everything else.
// Returns "" or the one message for the first bad value; `denoise` is then
// unchanged.
std::string read_denoise_call(const edgewise::Registry& registry, const std::vector<double>& values,
                              edgewise::DenoiseSettings& denoise);

// The progress bar's text: "Denoise (Edgewise): Multiscale".
std::string denoise_progress_text(const edgewise::FilterInfo& method);

}  // namespace edgewise_plugin
