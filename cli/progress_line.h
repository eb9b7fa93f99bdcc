// The progress line on stderr. On a terminal it is one line rewritten in
// place ("\r"), shown only once a job has run half a second and redrawn at
// most ten times a second; in a log (stderr not a terminal) it prints a plain
// line at most every ten seconds, and only for jobs that take that long, so
// short runs stay silent and long ones never flood the log.
#pragma once

#include <chrono>
#include <string>

namespace edgewise_cli {

// Chosen so that a sub-second job prints nothing on a terminal, and a log
// gets at most six lines a minute. Tests pass zeros.
struct ProgressTiming {
  std::chrono::milliseconds terminal_delay{500};
  std::chrono::milliseconds terminal_interval{100};
  std::chrono::milliseconds log_interval{10000};
};

class ProgressLine {
 public:
  ProgressLine(std::string label, bool terminal, const ProgressTiming& timing = {});
  // Ends an open terminal line, so that what follows starts on its own line.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // fraction in 0..1; always returns true (the CLI never cancels).
  bool update(double fraction);
  // A message for the user (the GPU fallback notice) on a line of its own.
  void message(const std::string& text);
  // The job succeeded: a shown line is completed with "done".
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void end_open_line();

  std::string label_;
  bool terminal_;
  ProgressTiming timing_;
  Clock::time_point start_;
  Clock::time_point last_shown_;
  bool shown_ = false;      // something was printed for this job
  bool line_open_ = false;  // the cursor sits at the end of a "\r" line
};

}  // namespace edgewise_cli
