#include "atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace edgewise_cli {

void write_atomically(const std::string& path, const std::function<void(const std::string&)>& write) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string pattern = (dir == "." ? std::string() : dir) + "." + name + ".edgewise-XXXXXX";
  std::vector<char> temp(pattern.begin(), pattern.end());
  temp.push_back('\0');
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  close(fd);
  const std::string temp_path(temp.data());
  try {
    write(temp_path);
    if (std::rename(temp_path.c_str(), path.c_str()) != 0)
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  } catch (...) {
    std::remove(temp_path.c_str());
    throw;
  }
}

}  // namespace edgewise_cli
