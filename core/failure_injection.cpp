// The failure-injection wrapper (backend.h): a backend that runs another
// and makes it fail once its first band's output is in place.
#include <cstring>
#include <limits>
#include <new>

#include "backend.h"

namespace edgewise {

namespace {

// Garbage where the failing device's first band landed: NaN floats, or
// bytes no filter result equals everywhere. The rerun must overwrite it.
void poison(const RowSpan& rows, size_t row_bytes) {
  for (int i = 0; i < rows.rows; ++i) {
    unsigned char* row = rows.row(rows.first_row + i);
    if (rows.type == SampleType::f32) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (size_t b = 0; b + sizeof nan <= row_bytes; b += sizeof nan) std::memcpy(row + b, &nan, sizeof nan);
    } else {
      std::memset(row, 0xA5, row_bytes);
    }
  }
}

// `failure` none stands for the host running out of memory: std::bad_alloc
// instead of the device's own error.
class FailingBackend : public Backend {
 public:
  FailingBackend(std::unique_ptr<Backend> inner, InjectedFailure failure, std::string name)
      : inner_(std::move(inner)), failure_(failure), name_(std::move(name)) {}

  std::string name() const override { return name_; }
  std::string unsupported(const Plan& plan) const override { return inner_->unsupported(plan); }
  BandBudget budget(const Plan& plan) const override { return inner_->budget(plan); }
  std::shared_ptr<void> allocate_host(size_t bytes) override { return inner_->allocate_host(bytes); }
  void provoke_failure(InjectedFailure failure) override { inner_->provoke_failure(failure); }

  std::unique_ptr<BandRunner> prepare(const Plan& plan, int band_rows, int slots) override {
    const size_t row_floats = size_t(plan.shape.width) * size_t(plan.shape.channels);
    return std::make_unique<Runner>(inner_->prepare(plan, band_rows, slots), *inner_, failure_, slots, row_floats);
  }

 private:
  // Passes bands through, then poisons the first one's output and fails.
  class Runner : public BandRunner {
   public:
    Runner(std::unique_ptr<BandRunner> inner, Backend& device, InjectedFailure failure, int slots, size_t samples)
        : inner_(std::move(inner)), device_(device), failure_(failure), tasks_(size_t(slots)), samples_(samples) {}
    void submit(int slot, const BandTask& task) override {
      tasks_[size_t(slot)] = task;
      inner_->submit(slot, task);
    }
    void wait(int slot) override {
      inner_->wait(slot);
      const RowSpan& output = tasks_[size_t(slot)].output;
      poison(output, samples_ * size_t(sample_bytes(output.type)));
      if (failure_ == InjectedFailure::none) throw std::bad_alloc();
      device_.provoke_failure(failure_);
    }

   private:
    std::unique_ptr<BandRunner> inner_;
    Backend& device_;
    InjectedFailure failure_;
    std::vector<BandTask> tasks_;
    size_t samples_;
  };

  std::unique_ptr<Backend> inner_;
  InjectedFailure failure_;
  std::string name_;
};

class FailingProvider : public BackendProvider {
 public:
  FailingProvider(std::shared_ptr<const BackendProvider> device, std::shared_ptr<const BackendProvider> fallback,
                  InjectedFailure failure)
      : device_(std::move(device)), fallback_(std::move(fallback)), failure_(failure) {}

  std::string id() const override { return device_->id(); }
  std::string name() const override { return device_->name(); }
  std::string label() const override { return device_->label(); }
  bool usable(std::string& description) const override {
    if (!device_->usable(description)) description = "simulated failing device";
    return true;
  }
  std::unique_ptr<Backend> make(const BackendOptions& options) const override {
    std::string description;
    if (device_->usable(description))
      return std::make_unique<FailingBackend>(device_->make(options), failure_, device_->name() + " (failing)");
    // No such device here: the fallback computes, then fails like one.
    return std::make_unique<FailingBackend>(fallback_->make(options), failure_, "simulated failing " + name());
  }

 private:
  std::shared_ptr<const BackendProvider> device_, fallback_;
  InjectedFailure failure_;
};

// Every backend of a list, the fallback too, running out of host memory.
class HostFailingProvider : public BackendProvider {
 public:
  explicit HostFailingProvider(std::shared_ptr<const BackendProvider> inner) : inner_(std::move(inner)) {}
  std::string id() const override { return inner_->id(); }
  std::string name() const override { return inner_->name(); }
  std::string label() const override { return inner_->label(); }
  bool is_fallback() const override { return inner_->is_fallback(); }
  bool usable(std::string& description) const override { return inner_->usable(description); }
  std::unique_ptr<Backend> make(const BackendOptions& options) const override {
    return std::make_unique<FailingBackend>(inner_->make(options), InjectedFailure::none, inner_->name());
  }

 private:
  std::shared_ptr<const BackendProvider> inner_;
};

}  // namespace

BackendList with_host_memory_failure(const BackendList& list) {
  BackendList wrapped;
  for (const auto& provider : list) wrapped.push_back(std::make_shared<HostFailingProvider>(provider));
  return wrapped;
}

BackendList with_injected_failure(const BackendList& list, InjectedFailure failure) {
  if (failure == InjectedFailure::none) return list;
  std::shared_ptr<const BackendProvider> fallback;
  for (const auto& provider : list)
    if (provider->is_fallback()) fallback = provider;
  BackendList wrapped;
  for (const auto& provider : list)
    wrapped.push_back(provider->is_fallback() || !fallback
                          ? provider
                          : std::make_shared<FailingProvider>(provider, fallback, failure));
  return wrapped;
}

}  // namespace edgewise
