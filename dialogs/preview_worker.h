// Runs previews off the UI thread. Only the newest request matters: a new
// one replaces any that has not started and cancels the one running (at
// its next band), so dragging a slider never queues stale work and the UI
// never waits for the filter.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "preview_render.h"

namespace edgewise_dialog {

class PreviewWorker {
 public:
  // Both are called on the worker thread: the GTK side hands them to the
  // main loop. Cancelled requests deliver nothing.
  using Deliver = std::function<void(PreviewResult&&)>;
  using Progress = std::function<void(uint64_t generation, double fraction)>;

  explicit PreviewWorker(Deliver deliver, Progress progress = {});
  ~PreviewWorker();  // cancels what runs and waits for it
  PreviewWorker(const PreviewWorker&) = delete;
  PreviewWorker& operator=(const PreviewWorker&) = delete;

  // Returns the request's generation, which its result carries. `context`,
  // when not empty, goes before the settings text in the result (what the
  // Denoise dialog's controls asked, for its trace).
  uint64_t submit(const Settings& settings, std::shared_ptr<const PreviewInput> input, const std::string& context = "");
  // Drops pending work and cancels what runs.
  void cancel();
  uint64_t latest() const { return latest_.load(); }
  // Waits until nothing is pending and no request runs (finished, delivered
  // or cancelled). For tests: what a cancel left running shows by counts
  // after this, not by how long someone waited.
  void wait_until_idle();

 private:
  struct Request {
    uint64_t generation = 0;
    Settings settings;
    std::shared_ptr<const PreviewInput> input;
    std::string context;
  };
  void loop();

  Deliver deliver_;
  Progress progress_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  bool running_ = false;  // a request taken from pending_ is being rendered or delivered
  std::unique_ptr<Request> pending_;
  bool stopping_ = false;
  std::atomic<uint64_t> latest_{0};
  edgewise::KeptBackends backends_;  // the worker thread's only: one backend per dialog, kept between previews
  std::thread thread_;               // last: starts once everything above exists
};

}  // namespace edgewise_dialog
