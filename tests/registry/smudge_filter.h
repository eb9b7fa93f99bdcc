// A made-up filter, "smudge", and a registry holding it beside the
// bilateral filter: the front ends' generators (CLI options and help, PDB
// arguments, dialog controls) are run on this registry in the tests, so a
// filter no front-end file names gets its options, arguments and controls.
// It takes its own parameters, then the bilateral ones, and plans on the
// bilateral family's kernels with sigma-r scaled by (0.5 + strength), so it
// also runs through the real executor and backends.
#pragma once

#include "bilateral.h"
#include "filter_registry.h"

namespace edgewise_test {

#define EW_DEF_ENUMS
#include "smudge_params.def"

struct SmudgeParameters {
#define EW_DEF_FIELDS
#include "smudge_params.def"
};

SmudgeParameters smudge_parameters(const edgewise::FilterSpec& spec);
const edgewise::FilterInfo& smudge_filter();
// smudge (the default) and bilateral.
const edgewise::Registry& smudge_registry();
// The bilateral values smudge runs with.
edgewise::BilateralParameters smudge_as_bilateral(const edgewise::FilterSpec& spec);

}  // namespace edgewise_test
