// The dialog's last values for `edgewise --gui`, kept between runs as GIMP
// keeps a plug-in's: one line of options ("--mode rgb --sigma-s 3 ...") in
// $XDG_CONFIG_HOME/edgewise/dialog.args, or ~/.config/edgewise/dialog.args.
#pragma once

#include <string>

#include "settings.h"

namespace edgewise_cli {

std::string dialog_memory_path();
// The stored settings, or the defaults when there are none. A stored value
// that is no longer valid keeps its default, and the notice says which.
edgewise::Settings load_dialog_memory(std::string& notice);
// Written whole or not at all; a failure is returned as a notice, since
// losing the last values must not fail the run.
std::string save_dialog_memory(const edgewise::Settings& settings);

}  // namespace edgewise_cli
