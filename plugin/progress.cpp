#include "progress.h"

#include <libgimp/gimp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace edgewise_plugin {

namespace {

// Each line ends with the seconds since the plug-in started, so a person
// can read the gaps between updates (bench/gimp); tests only count.
void log_line(const std::string& line) {
  static const auto start = std::chrono::steady_clock::now();
  const char* path = std::getenv("EDGEWISE_PROGRESS_LOG");
  if (!path || !*path) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::FILE* file = std::fopen(path, "a")) {
    std::fprintf(file, "%s %.3f\n", line.c_str(), seconds);
    std::fclose(file);
  }
}

}  // namespace

void progress_init(const std::string& text) {
  gimp_progress_init(text.c_str());
  log_line("init " + text);
}

void progress_pulse() {
  gimp_progress_pulse();
  log_line("pulse");
}

void progress_update(double fraction) {
  gimp_progress_update(fraction);
  char text[32];
  std::snprintf(text, sizeof text, "update %.4f", fraction);
  log_line(text);
}

}  // namespace edgewise_plugin
