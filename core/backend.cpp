#include "backend.h"

#include <cstdlib>
#include <new>

namespace edgewise {

namespace {

std::shared_ptr<void> plain_memory(size_t bytes) {
  void* data = std::malloc(bytes ? bytes : 1);
  if (!data) throw std::bad_alloc();
  return std::shared_ptr<void>(data, std::free);
}

}  // namespace

std::shared_ptr<void> Backend::allocate_host(size_t bytes) { return plain_memory(bytes); }

std::shared_ptr<void> BackendProvider::allocate_host(size_t bytes) const { return plain_memory(bytes); }

const BackendProvider* first_choice(const BackendList& list, const std::string& choice) {
  for (const auto& provider : list)
    if (!provider->is_fallback() && (choice == "auto" || provider->id() == choice)) return provider.get();
  return nullptr;
}

std::shared_ptr<void> host_memory_for(const BackendList& list, const std::string& choice, size_t bytes) {
  std::string why_not;
  if (const BackendProvider* provider = first_choice(list, choice); provider && provider->usable(why_not)) {
    try {
      return provider->allocate_host(bytes);
    } catch (const BackendError&) {
      // plain memory works for every backend
    }
  }
  return plain_memory(bytes);
}

void Backend::provoke_failure(InjectedFailure failure) {
  throw BackendError(failure == InjectedFailure::launch ? "injected failure: kernel launch failed"
                                                        : "injected failure: out of device memory");
}

Backend& KeptBackends::get(const BackendProvider& provider, const BackendOptions& options) {
  for (Entry& entry : entries_)
    if (entry.id == provider.id() && entry.options.threads == options.threads &&
        entry.options.gpu_memory_budget == options.gpu_memory_budget)
      return *entry.backend;
  drop(provider);  // kept with other options: its buffers were sized for them
  entries_.push_back({provider.id(), options, provider.make(options)});
  return *entries_.back().backend;
}

void KeptBackends::drop(const BackendProvider& provider) {
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].id == provider.id()) {
      entries_.erase(entries_.begin() + long(i));
      return;
    }
}

const BackendProvider* find_backend(const BackendList& list, const std::string& id) {
  for (const auto& provider : list)
    if (provider->id() == id) return provider.get();
  return nullptr;
}

std::vector<std::string> backend_choices(const BackendList& list) {
  std::vector<std::string> choices = {"auto"};
  for (const auto& provider : list) choices.push_back(provider->id());
  return choices;
}

std::string check_backend_choice(const BackendList& list, const std::string& choice) {
  const std::vector<std::string> choices = backend_choices(list);
  std::string words;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choice == choices[i]) return "";
    words += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return "invalid backend '" + choice + "': expected " + words;
}

InjectedFailure parse_injected_failure(const std::string& text) {
  if (text.empty()) return InjectedFailure::none;
  if (text == "launch") return InjectedFailure::launch;
  return InjectedFailure::out_of_memory;
}

}  // namespace edgewise
