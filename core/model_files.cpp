#include "model_files.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef EDGEWISE_MODEL_DIRS
#define EDGEWISE_MODEL_DIRS ""
#endif

namespace edgewise {

namespace {

bool readable(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return false;
  std::fclose(file);
  return true;
}

// The folders searched, in order (EDGEWISE_MODEL_DIRS, set by
// core/CMakeLists.txt).
std::vector<std::string> model_dirs() {
  std::vector<std::string> dirs;
  const std::string list = EDGEWISE_MODEL_DIRS;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(':', start), list.size());
    if (end > start) dirs.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

}  // namespace

ModelLocation find_shipped_model(const char* variable, const char* file, const char* what, const char* use) {
  ModelLocation location;
  const char* chosen = std::getenv(variable);
  if (chosen && *chosen) {
    if (std::string(chosen) == "none")
      location.problem = std::string(use) + " is off (" + variable + "=none)";
    else
      location.path = chosen;
    return location;
  }
  for (const std::string& dir : model_dirs())
    if (readable(dir + "/" + file)) {
      location.path = dir + "/" + file;
      return location;
    }
  location.problem = std::string(what) + " " + file + " is not installed (looked in " + EDGEWISE_MODEL_DIRS + ")";
  return location;
}

}  // namespace edgewise
