#include "progress_line.h"

#include <cstdio>
#include <utility>

namespace edgewise_cli {

ProgressLine::ProgressLine(std::string label, bool terminal, const ProgressTiming& timing)
    : label_(std::move(label)), terminal_(terminal), timing_(timing), start_(Clock::now()), last_shown_(start_) {}

ProgressLine::~ProgressLine() { end_open_line(); }

bool ProgressLine::update(double fraction) {
  const auto now = Clock::now();
  const int percent = fraction <= 0.0 ? 0 : fraction >= 1.0 ? 100 : int(fraction * 100.0);
  if (terminal_) {
    if (now - start_ < timing_.terminal_delay || (shown_ && now - last_shown_ < timing_.terminal_interval)) return true;
    std::fprintf(stderr, "\redgewise: %s %3d%%", label_.c_str(), percent);
    line_open_ = true;
  } else {
    if (now - last_shown_ < timing_.log_interval) return true;
    std::fprintf(stderr, "edgewise: %s %d%%\n", label_.c_str(), percent);
  }
  std::fflush(stderr);
  shown_ = true;
  last_shown_ = now;
  return true;
}

void ProgressLine::message(const std::string& text) {
  end_open_line();
  std::fprintf(stderr, "edgewise: %s\n", text.c_str());
}

void ProgressLine::finish() {
  if (!shown_) return;
  if (terminal_) {
    std::fprintf(stderr, "\redgewise: %s done\n", label_.c_str());
    line_open_ = false;
  } else {
    std::fprintf(stderr, "edgewise: %s done\n", label_.c_str());
  }
}

void ProgressLine::end_open_line() {
  if (!line_open_) return;
  std::fputc('\n', stderr);
  line_open_ = false;
}

}  // namespace edgewise_cli
