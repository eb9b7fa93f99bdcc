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
};

class DialogObserver {
 public:
  virtual ~DialogObserver() = default;
  virtual void shown(const std::string& /*settings*/) {}
  // Called after the frame showing the preview is on the display; costs
  // the pane an X round trip, so only observers that ask get it.
  virtual bool wants_previews() const { return false; }
  virtual void preview(const PreviewOnScreen& /*preview*/) {}
  virtual void responded(bool /*ok*/, const std::string& /*settings*/) {}
};

}  // namespace edgewise_dialog
