#include "dialog_memory.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "atomic_file.h"

namespace edgewise_cli {

namespace {

std::string config_home() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return xdg;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.config";
}

void make_directory(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string dialog_memory_path() { return config_home() + "/edgewise/dialog.args"; }

edgewise::Settings load_dialog_memory(std::string& notice) {
  notice.clear();
  edgewise::Settings settings;
  std::ifstream file(dialog_memory_path());
  if (!file) return settings;  // first run
  std::stringstream text;
  text << file.rdbuf();
  const std::vector<std::string> problems = edgewise::read_arguments(text.str(), settings);
  for (const std::string& problem : problems) notice += (notice.empty() ? "" : "; ") + problem;
  if (!notice.empty()) notice = "in the last values in " + dialog_memory_path() + ": " + notice + " (default used)";
  return settings;
}

std::string save_dialog_memory(const edgewise::Settings& settings) {
  const std::string path = dialog_memory_path();
  try {
    make_directory(config_home());
    make_directory(directory_of(path));
    write_atomically(path, [&](const std::string& temp) {
      std::ofstream file(temp);
      file << edgewise::format_arguments(settings) << "\n";
      if (!file.flush()) throw std::runtime_error("cannot write " + temp);
    });
  } catch (const std::exception& error) {
    return std::string("could not keep the dialog's values: ") + error.what();
  }
  return "";
}

}  // namespace edgewise_cli
