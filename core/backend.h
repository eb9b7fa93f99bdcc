// What a compute backend supplies to the executor: band kernels for the
// plans it can run, its memory budget and how many bands it keeps in flight.
// Backends form a list (BackendList); core names none of them: the list a
// build installs is assembled outside core (cuda/backend_list.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "band.h"
#include "plan.h"

namespace edgewise {

// Errors a backend cannot recover from (no device, out of memory, a failed
// launch). In auto mode the engine reruns the job on the fallback backend.
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BackendOptions {
  int threads = 0;                             // CPU threads, 0 = all cores
  size_t gpu_memory_budget = size_t(1) << 30;  // bytes the GPU may hold for a job
};

// How a backend wants the image cut into bands.
struct BandBudget {
  // Bytes all bands in flight may hold together; each band holds the plan's
  // float planes (Plan::band_cost) and the backend's own buffers (`own`, in
  // bytes).
  size_t bytes = size_t(48) << 20;
  BandCost own;
  // Bands in flight: a GPU overlaps one band's copies with another's
  // compute. Fewer when the budget cannot hold this many bands of the
  // filter's reach.
  int slots = 1;
  // Bands no taller than this share of the image, so copies overlap compute
  // even when the budget would fit the whole image; and never shorter than
  // min_rows (a GPU pays a launch series per band), asked-for heights too.
  int min_bands = 1;
  int min_rows = 1;
  std::string name = "memory budget";  // for the message when not even reach rows fit
};

// Runs one plan's bands. submit() may return before the band is done;
// wait(slot) returns once that slot's band has written its outputs and no
// longer reads its input. The destructor waits for work still in flight.
class BandRunner {
 public:
  virtual ~BandRunner() = default;
  virtual void submit(int slot, const BandTask& task) = 0;
  virtual void wait(int slot) = 0;
};

enum class InjectedFailure { none, out_of_memory, launch };

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Why this backend cannot run the plan, or "" when it can.
  virtual std::string unsupported(const Plan& /*plan*/) const { return ""; }
  virtual BandBudget budget(const Plan& plan) const = 0;
  // Bands of at most band_rows output rows, `slots` at a time.
  virtual std::unique_ptr<BandRunner> prepare(const Plan& plan, int band_rows, int slots) = 0;
  // Host memory the executor stages rows in; a GPU backend gives pinned memory.
  virtual std::shared_ptr<void> allocate_host(size_t bytes);
  // Makes the device fail the way it really fails (a failed allocation, an
  // invalid launch), throwing BackendError: the failure-injection wrapper's
  // hook. The default throws a plain BackendError.
  virtual void provoke_failure(InjectedFailure failure);
};

// One entry of the backend list.
class BackendProvider {
 public:
  virtual ~BackendProvider() = default;
  virtual std::string id() const = 0;     // --backend ID; the list's order is the PDB's numbering (0 = auto)
  virtual std::string name() const = 0;   // "CUDA": messages
  virtual std::string label() const = 0;  // "GPU (CUDA)": the dialog's entry
  // The CPU: auto tries every other usable backend first and reruns here
  // when one fails.
  virtual bool is_fallback() const { return false; }
  // True when a usable device exists; `description` names it, or says why none.
  virtual bool usable(std::string& description) const = 0;
  // False for an entry this build lacks, listed only so that its id and PDB
  // number keep their meaning (CUDA built without nvcc): --version says so.
  virtual bool built() const { return true; }
  // Throws BackendError when the backend cannot start.
  virtual std::unique_ptr<Backend> make(const BackendOptions& options) const = 0;
  // Host memory this backend copies from fastest (a GPU's: pinned), for
  // buffers a front end fills before any backend exists. Throws
  // BackendError when it cannot give any; the default is plain memory.
  virtual std::shared_ptr<void> allocate_host(size_t bytes) const;
};

using BackendList = std::vector<std::shared_ptr<const BackendProvider>>;

// Backends kept from one run to the next by a front end that runs many
// (the dialog's previews, the CLI's files): a GPU backend then keeps its
// device buffers and pinned staging instead of allocating them per run,
// which costs more than filtering a preview. Used by one thread at a time;
// the backends live until this object goes.
class KeptBackends {
 public:
  // The provider's backend for these options: the kept one, or made now
  // (BackendError when it cannot start) and kept.
  Backend& get(const BackendProvider& provider, const BackendOptions& options);
  // Forgets the provider's backend: after it failed, its state is not trusted.
  void drop(const BackendProvider& provider);

 private:
  struct Entry {
    std::string id;
    BackendOptions options;
    std::unique_ptr<Backend> backend;
  };
  std::vector<Entry> entries_;
};

// The backends this build has (defined outside core, by the backend folders).
const BackendList& installed_backends();

// The first backend `choice` ("auto" or an id) tries: the named one, or in
// auto the first that is not the fallback (usable or not); null for the
// fallback alone.
const BackendProvider* first_choice(const BackendList& list, const std::string& choice);

// Host memory for images the `choice` backend ("auto" or an id) will read
// many times (the dialog's preview input): the memory of the backend that
// choice runs on first, where it is usable, else plain memory.
std::shared_ptr<void> host_memory_for(const BackendList& list, const std::string& choice, size_t bytes);

// The provider with this id, or null.
const BackendProvider* find_backend(const BackendList& list, const std::string& id);
// "auto" or an id of the list; "" when valid, else a message listing them.
std::string check_backend_choice(const BackendList& list, const std::string& choice);
// The choices in PDB order: "auto", then each id ("auto, cpu or cuda" in messages).
std::vector<std::string> backend_choices(const BackendList& list);

// A copy of `list` whose non-fallback backends fail part-way through every
// job (after writing garbage into their first band's output), as a real
// device fails: the test hook behind EDGEWISE_INJECT_GPU_FAILURE. Where such
// a backend is not usable here, a simulated device on the fallback backend
// fails instead, so machines without a GPU exercise the fallback too.
BackendList with_injected_failure(const BackendList& list, InjectedFailure failure);
// A copy of `list` whose every backend, the fallback too, runs out of host
// memory part-way through every job: std::bad_alloc, not a BackendError,
// once its first band's output is in place (garbage there), so the engine
// does not rerun it. What a front end running inside another program must
// survive (the GEGL operation's test hook EDGEWISE_INJECT_HOST_FAILURE).
BackendList with_host_memory_failure(const BackendList& list);
// "oom" -> out_of_memory, "launch" -> launch, "" -> none; anything else is out_of_memory.
InjectedFailure parse_injected_failure(const std::string& text);

}  // namespace edgewise
