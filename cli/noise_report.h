// edgewise --estimate-noise: each input's noise level on stdout, one line
// a file, estimated by core (noise_estimate.h) on the decoded samples.
#pragma once

#include <string>
#include <vector>

#include "jobs.h"
#include "noise_estimate.h"

namespace edgewise_cli {

// "PATH<TAB>R=5.12<TAB>G=4.98<TAB>B=5.30<TAB>median=5.12" (grey: "grey=");
// sigma in code values of the 8-bit scale, "-" for a channel that could not
// be measured. verbose adds a line per channel: "<TAB>R" then each bin of
// its noise level function as "<TAB>intensity:sigma" ("-" for a bin
// without enough flat area). Every line ends in a newline.
std::string noise_report(const std::string& path, const edgewise::NoiseEstimate& estimate, bool verbose);

// Checks every input is a PNG, JPEG or TIFF file first (throws
// std::runtime_error naming the first that is not), then reads and
// estimates each in turn, printing its report on stdout. A file that cannot
// be read, or holds no area flat enough to measure, is reported on stderr
// and the others are still done (unless fail_fast). `written` counts the
// reports printed.
BatchReport estimate_noise_of_files(const std::vector<std::string>& inputs, const JobOptions& files, bool verbose,
                                    int threads);

}  // namespace edgewise_cli
