// Linked when GTK 3 was not found at build time.
#include <stdexcept>

#include "gui.h"

namespace edgewise_cli {

int run_gui(std::vector<Job>&, const CliOptions&) {
  throw std::runtime_error("--gui is not available: this edgewise was built without GTK 3 (Debian libgtk-3-dev)");
}

}  // namespace edgewise_cli
