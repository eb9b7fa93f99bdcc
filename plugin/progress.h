// GIMP's progress bar for a final run: libgimp's calls, and a log of them
// for the GIMP tests. EDGEWISE_PROGRESS_LOG=FILE appends one line per call
// ("init TEXT", "pulse", "update FRACTION", each followed by the seconds
// since the plug-in started), so a test counts what GIMP was told rather
// than timing anything, and a person can read the gaps.
#pragma once

#include <string>

namespace edgewise_plugin {

void progress_init(const std::string& text);
void progress_pulse();  // work of unknown length (measuring the noise)
void progress_update(double fraction);

}  // namespace edgewise_plugin
