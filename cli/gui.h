// edgewise --gui: the filter dialog on the one input, then the usual job.
#pragma once

#include <vector>

#include "jobs.h"
#include "options.h"

namespace edgewise_cli {

// Returns the exit status: kExitOk when the output was written,
// kExitCancelled when the user cancelled (nothing written). Throws like
// run_jobs for file and filter errors.
int run_gui(std::vector<Job>& jobs, const CliOptions& options);

}  // namespace edgewise_cli
