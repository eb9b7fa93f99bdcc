// Where the shipped networks (models/*.ewnn) are found: a file named by an
// environment variable when it is set, else the first readable copy in the
// installed data folder, Debian's, then the source tree (so that a build
// runs before it is installed).
#pragma once

#include <string>

namespace edgewise {

struct ModelLocation {
  std::string path;     // empty when none was found or the variable says "none"
  std::string problem;  // why not, in one line, when path is empty
};

// `variable` ("EDGEWISE_NOISE_NET"): a path, or "none" to turn the network
// off; `file`: the shipped file's name; `what`: the network in words ("the
// noise network"), `use`: what it gives ("the learned reading"), for the
// problem's line.
ModelLocation find_shipped_model(const char* variable, const char* file, const char* what, const char* use);

}  // namespace edgewise
