// Whether a parameter can change the result, from its .def entry's
// EW_ACTS_IF, EW_IDLE_ON_COLOUR_IF, EW_ACTS_IF_ON and EW_COLOUR_ONLY: a front
// end greys out (or hides) what cannot act and says why, instead of showing
// a control that changes nothing (the pyramid's luminance strength in rgb
// mode, nlm's range kernel while its range term is off).
#pragma once

#include <string>

#include "filter_spec.h"
#include "params.h"

namespace edgewise {

// Why `param` of `spec`'s filter cannot change the result for these values
// on an image of `colour_channels` (1 grey, 3 RGB), or "" when it can. Auto
// values should be resolved first (resolve_noise): nlm's range sigma at auto
// is off. The reason is a phrase for a tooltip: "acts only when Colour mode
// is lab".
std::string inactive_reason(const FilterSpec& spec, const ParamInfo& param, int colour_channels);

// "" when every flag an activity attribute of `filter`'s parameters names is
// a parameter of the filter of the right kind, else what is wrong (the
// registry refuses such a row).
std::string check_activity(const FilterInfo& filter);

}  // namespace edgewise
