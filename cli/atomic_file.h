// Writes a file so that it either appears complete or not at all, and
// leaves nothing behind. The data goes to an unnamed file in the target's
// directory (O_TMPFILE) that gets a name only once complete, so even
// SIGKILL leaves no trace; where the file system has no O_TMPFILE, to a
// hidden temporary file beside the target that SIGINT, SIGTERM and SIGHUP
// remove (install_cleanup_on_signals). Either is renamed into place.
#pragma once

#include <functional>
#include <string>

namespace edgewise_cli {

// write(path) creates the file at the path it is given; on any exception
// nothing is left and the target is as it was. The result gets the
// target's permissions when it replaces a file, otherwise 0666 less the
// umask. A target that is a symbolic link is written through: the file it
// points to is replaced, the link stays.
void write_atomically(const std::string& path, const std::function<void(const std::string&)>& write);

// Where write_atomically(path) writes: path, or the file a link at path points to.
std::string write_target(const std::string& path);

// Throws std::runtime_error unless a file can be created in directory: it
// creates and removes a temporary file there, which is the only test that
// also holds for root and for read-only mounts.
void check_directory_writable(const std::string& directory);
// Throws std::runtime_error when path's name, with the temporary name's
// suffix, does not fit the file system's limit.
void check_name_fits(const std::string& path);

// SIGINT, SIGTERM and SIGHUP remove the temporary files of writes in
// progress, then end the process as the signal would have.
void install_cleanup_on_signals();

// EDGEWISE_STOP_AT=MOMENT, a test hook (as EDGEWISE_NAMED_TEMP=1): the
// process stops itself (SIGSTOP) when a write reaches MOMENT, after writing
// "edgewise: stopped for a test at MOMENT, thread TID" to stderr, so that
// tests/cli sends its signal to that thread at that moment for certain
// instead of after a measured delay. The moments: "opened" (the unnamed file or the named
// temporary exists, nothing written), "mid-write" (a PNG with data still to
// come: the writer calls this), "written" (the data synced, no name given
// yet), "linked" (a replaced file's hidden name linked, not yet renamed),
// "named" (the result has its name). Anything else, or unset: no stop.
void stop_for_test_at(const char* moment);

// The directory part of path ("." when there is none), and the name part.
std::string directory_of(const std::string& path);
std::string file_name_of(const std::string& path);

}  // namespace edgewise_cli
