// What the dialog reports to whoever watches it, outside its drawing and
// compute code: the host attaches an observer (the test trace file, see
// dialog_trace.h) through DialogOptions, and the dialog calls it.
#pragma once

#include <cstdint>
#include <string>

#include "image_port.h"

namespace edgewise_dialog {

// A preview as it reached the screen.
struct PreviewOnScreen {
  uint64_t generation = 0;
  const char* view = "result";  // result, original or split
  double scale = 1;
  int magnify = 1;
  Rect visible;          // the image pixels shown (scaled coordinates)
  Rect screen;           // where, in root-window coordinates
  std::string backend;   // what filtered it
  double seconds = 0;    // engine time
  std::string settings;  // edgewise::format_arguments of what was filtered
  double split = 0.5;    // the split view's line, a fraction of the pane's width
  Rect pane;             // the whole preview area, in root-window coordinates
};

class DialogObserver {
 public:
  virtual ~DialogObserver() = default;
  virtual void shown(const std::string& /*settings*/) {}
  // Called after the frame showing the preview is on the display; costs
  // the pane an X round trip, so only observers that ask get it.
  virtual bool wants_previews() const { return false; }
  virtual void preview(const PreviewOnScreen& /*preview*/) {}
  // The preview's status line, each time its text changes ("Computing…
  // 1.2 s" while a preview runs, then what the result was).
  virtual void status(const std::string& /*text*/) {}
  virtual void responded(bool /*ok*/, const std::string& /*settings*/) {}
};

}  // namespace edgewise_dialog
