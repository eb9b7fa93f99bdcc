#include "dialog_trace.h"

#include <cstdlib>

namespace edgewise_dialog {

DialogTrace::DialogTrace() {
  const char* path = std::getenv("EDGEWISE_DIALOG_TRACE");
  if (path && *path) file_ = std::fopen(path, "a");
}

DialogTrace::~DialogTrace() {
  if (file_) std::fclose(file_);
}

void DialogTrace::line(const std::string& text) {
  if (!file_) return;
  std::fprintf(file_, "%s\n", text.c_str());
  std::fflush(file_);  // the test reads while the dialog runs
}

}  // namespace edgewise_dialog
