// Test observability: with EDGEWISE_DIALOG_TRACE=FILE set, the host
// attaches this observer and the dialog's events become lines in FILE
// (shown, preview on screen, response) with the settings and the preview's
// place on the screen, so a test driving the real dialog through X can
// tell when to look and where.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "dialog_observer.h"

namespace edgewise_dialog {

class TraceFile : public DialogObserver {
 public:
  explicit TraceFile(const std::string& path);
  ~TraceFile() override;
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  void shown(const std::string& settings) override;
  bool wants_previews() const override { return file_ != nullptr; }
  void preview(const PreviewOnScreen& preview) override;
  void status(const std::string& text) override;
  void responded(bool ok, const std::string& settings) override;

 private:
  void line(const std::string& text);
  std::FILE* file_ = nullptr;
  std::string last_preview_;
};

// The trace EDGEWISE_DIALOG_TRACE asks for, or null.
std::unique_ptr<DialogObserver> trace_from_environment();

}  // namespace edgewise_dialog
