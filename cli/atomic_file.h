// Writes a file so that it either appears complete or not at all: the data
// goes to a temporary file beside the target, which is renamed into place.
#pragma once

#include <functional>
#include <string>

namespace edgewise_cli {

// write(temp_path) creates the file; on any exception the temporary file is
// removed and the target is left as it was.
void write_atomically(const std::string& path, const std::function<void(const std::string&)>& write);

}  // namespace edgewise_cli
