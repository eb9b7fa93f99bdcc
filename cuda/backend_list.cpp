// The backends this build installs, in the public order of their ids
// (--backend, and the PDB's backend argument: 0 auto, 1 cpu, 2 cuda). The
// engine's auto mode tries every usable backend but the CPU first, and
// falls back to the CPU. This is the one place that names them all: a new
// backend is a line here.
#include "backend.h"
#include "cpu_backend.h"
#include "cuda_backend.h"

namespace edgewise {

const BackendList& installed_backends() {
  static const BackendList list = {cpu::cpu_backend_provider(), cuda::cuda_backend_provider()};
  return list;
}

}  // namespace edgewise
