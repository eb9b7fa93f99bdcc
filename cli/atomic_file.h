// Writes a file so that it either appears complete or not at all: the data
// goes to a temporary file beside the target (same directory, so the final
// rename cannot cross file systems), which is renamed into place.
#pragma once

#include <functional>
#include <string>

namespace edgewise_cli {

// write(temp_path) creates the file; on any exception the temporary file is
// removed and the target is left as it was. The result gets the target's
// permissions when it replaces a file, otherwise 0666 less the umask.
void write_atomically(const std::string& path, const std::function<void(const std::string&)>& write);

// Throws std::runtime_error unless a file can be created in directory: it
// creates and removes a temporary file there, which is the only test that
// also holds for root and for read-only mounts.
void check_directory_writable(const std::string& directory);

// The directory part of path ("." when there is none), and the name part.
std::string directory_of(const std::string& path);
std::string file_name_of(const std::string& path);

}  // namespace edgewise_cli
