#include "dialog_trace.h"

#include <cstdlib>

namespace edgewise_dialog {

TraceFile::TraceFile(const std::string& path) : file_(std::fopen(path.c_str(), "a")) {}

TraceFile::~TraceFile() {
  if (file_) std::fclose(file_);
}

void TraceFile::line(const std::string& text) {
  if (!file_) return;
  std::fprintf(file_, "%s\n", text.c_str());
  std::fflush(file_);  // the test reads while the dialog runs
}

void TraceFile::shown(const std::string& settings) { line("shown settings=" + settings); }

void TraceFile::preview(const PreviewOnScreen& p) {
  char text[640];
  std::snprintf(text, sizeof text,
                "preview generation=%llu view=%s scale=%g magnify=%d visible=%d,%d,%d,%d screen=%d,%d,%d,%d "
                "backend=%s seconds=%.4f split=%.3f pane=%d,%d,%d,%d settings=",
                static_cast<unsigned long long>(p.generation), p.view, p.scale, p.magnify, p.visible.x, p.visible.y,
                p.visible.width, p.visible.height, p.screen.x, p.screen.y, p.screen.width, p.screen.height,
                p.backend.c_str(), p.seconds, p.split, p.pane.x, p.pane.y, p.pane.width, p.pane.height);
  const std::string text_line = text + p.settings;
  if (text_line == last_preview_) return;  // a redraw of what is already traced
  last_preview_ = text_line;
  line(text_line);
}

void TraceFile::status(const std::string& text) { line("status " + text); }

void TraceFile::responded(bool ok, const std::string& settings) {
  line(ok ? "response ok settings=" + settings : "response cancel");
}

std::unique_ptr<DialogObserver> trace_from_environment() {
  const char* path = std::getenv("EDGEWISE_DIALOG_TRACE");
  if (!path || !*path) return nullptr;
  return std::make_unique<TraceFile>(path);
}

}  // namespace edgewise_dialog
