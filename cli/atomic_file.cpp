#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace edgewise_cli {

namespace {

// Creates an empty, uniquely named file in directory; returns its path.
// fd is -1 and error holds errno when that fails.
std::string make_temp_file(const std::string& directory, const std::string& name, int& fd, int& error) {
  std::string pattern = directory + "/." + name + ".edgewise-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  fd = mkstemp(buffer.data());
  error = errno;
  return std::string(buffer.data());
}

std::string why_not_writable(const std::string& directory, int error) {
  struct stat info {};
  if (stat(directory.c_str(), &info) != 0) return "output directory " + directory + " does not exist";
  if (!S_ISDIR(info.st_mode)) return "output directory " + directory + " is not a directory";
  return "cannot write to directory " + directory + ": " + std::strerror(error);
}

// mkstemp makes 0600 files; a result should look like any other new file.
mode_t mode_for(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) return info.st_mode & 07777;
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

// Data on disk before the rename makes it visible, so a crash cannot leave
// a complete-looking but empty file.
bool sync_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = fsync(fd) == 0;
  return close(fd) == 0 && ok;
}

}  // namespace

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void check_directory_writable(const std::string& directory) {
  int fd = -1, error = 0;
  const std::string temp = make_temp_file(directory, "probe", fd, error);
  if (fd < 0) throw std::runtime_error(why_not_writable(directory, error));
  close(fd);
  unlink(temp.c_str());
}

void write_atomically(const std::string& path, const std::function<void(const std::string&)>& write) {
  const std::string directory = directory_of(path);
  int fd = -1, error = 0;
  const std::string temp = make_temp_file(directory, file_name_of(path), fd, error);
  if (fd < 0) throw std::runtime_error(why_not_writable(directory, error));
  const int chmod_error = fchmod(fd, mode_for(path)) == 0 ? 0 : errno;
  close(fd);
  try {
    if (chmod_error) throw std::runtime_error("cannot write " + path + ": " + std::strerror(chmod_error));
    write(temp);
    if (!sync_file(temp)) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    if (std::rename(temp.c_str(), path.c_str()) != 0)
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  } catch (...) {
    unlink(temp.c_str());
    throw;
  }
}

}  // namespace edgewise_cli
