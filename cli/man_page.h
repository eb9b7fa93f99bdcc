// The manual page edgewise(1), made from --help's text (help_text, itself
// generated from the registry and the backend list), so the two never
// disagree: its heading lines become sections, its option lines tagged
// paragraphs, its paragraphs refilled by troff. The packaging installs it
// (cli/CMakeLists.txt runs edgewise-man-page at build time).
#pragma once

#include <string>

#include "filter_registry.h"

namespace edgewise_cli {

// The page in troff's man macros, for `version`.
std::string man_page(const std::string& help, const std::string& version,
                     const edgewise::Registry& registry = edgewise::builtin_registry());

}  // namespace edgewise_cli
