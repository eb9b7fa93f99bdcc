#include "preview_worker.h"

#include <exception>
#include <utility>

namespace edgewise_dialog {

PreviewWorker::PreviewWorker(Deliver deliver, Progress progress)
    : deliver_(std::move(deliver)), progress_(std::move(progress)), thread_([this] { loop(); }) {}

PreviewWorker::~PreviewWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    pending_.reset();
    ++latest_;  // the running request sees itself outdated and stops
  }
  wake_.notify_one();
  thread_.join();
}

uint64_t PreviewWorker::submit(const Settings& settings, std::shared_ptr<const PreviewInput> input,
                               const std::string& context) {
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation = ++latest_;
    pending_ = std::make_unique<Request>(Request{generation, settings, std::move(input), context});
  }
  wake_.notify_one();
  return generation;
}

void PreviewWorker::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.reset();
  ++latest_;
}

void PreviewWorker::wait_until_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return stopping_ || (!running_ && !pending_); });
}

void PreviewWorker::loop() {
  for (;;) {
    std::unique_ptr<Request> request;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      running_ = false;
      idle_.notify_all();
      wake_.wait(lock, [this] { return stopping_ || pending_; });
      if (stopping_) return;
      request = std::move(pending_);
      running_ = true;
    }
    const uint64_t generation = request->generation;
    const auto still_wanted = [this, generation](double fraction) {
      if (latest_.load() != generation) return false;
      if (progress_) progress_(generation, fraction);
      return true;
    };
    PreviewResult result;
    try {
      result = render_preview(request->settings, *request->input, still_wanted, &backends_);
    } catch (const edgewise::Cancelled&) {
      continue;                              // a newer request is pending (or the worker is stopping)
    } catch (const std::exception& error) {  // out of memory: said in the pane, not fatal
      result.error = error.what();
    }
    result.generation = generation;
    if (!request->context.empty()) result.settings = request->context + " " + result.settings;
    if (latest_.load() == generation) deliver_(std::move(result));
  }
}

}  // namespace edgewise_dialog
