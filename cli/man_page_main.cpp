// edgewise-man-page: writes edgewise(1) to standard output (cli/man_page.h);
// run by the build, not installed.
#include <cstdio>

#include "man_page.h"
#include "options.h"

#ifndef EDGEWISE_VERSION
#define EDGEWISE_VERSION "unknown"
#endif

int main() {
  std::fputs(edgewise_cli::man_page(edgewise_cli::help_text(), EDGEWISE_VERSION).c_str(), stdout);
  return 0;
}
