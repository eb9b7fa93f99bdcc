// Test observability: with EDGEWISE_DIALOG_TRACE=FILE set, the dialog
// appends one line per event (shown, preview on screen, response) with the
// settings and the preview's place on the screen, so a test driving the
// real dialog through X can tell when to look and where.
#pragma once

#include <cstdio>
#include <string>

namespace edgewise_dialog {

class DialogTrace {
 public:
  DialogTrace();
  ~DialogTrace();
  DialogTrace(const DialogTrace&) = delete;
  DialogTrace& operator=(const DialogTrace&) = delete;
  bool enabled() const { return file_ != nullptr; }
  void line(const std::string& text);

 private:
  std::FILE* file_ = nullptr;
};

}  // namespace edgewise_dialog
