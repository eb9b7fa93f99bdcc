#include "dialog_help.h"

#include <sstream>

#include "readme_dialog_section.h"  // generated: kReadmeDialogSection

namespace edgewise_dialog {

namespace {

// Markdown as a text window shows it: no image lines, no ** or ` or *
// emphasis (an escaped \* stays), links reduced to their text; the lines
// of a paragraph joined, one blank line between paragraphs.
std::string plain(const std::string& markdown) {
  std::istringstream lines(markdown);
  std::string line, joined;
  bool blank_before = true, first = true;
  while (std::getline(lines, line)) {
    if (line.rfind("![", 0) == 0) continue;
    if (line.rfind("## ", 0) == 0) line = line.substr(3);
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '*') {
        clean += '*';
        ++i;
      } else if (line[i] != '*' && line[i] != '`') {
        clean += line[i];
      }
    }
    const size_t start = clean.find_first_not_of(' ');
    if (start == std::string::npos) {
      blank_before = true;
      continue;
    }
    const bool item = clean.compare(start, 2, "- ") == 0;
    if (first) {
      joined = clean;
    } else if (blank_before) {
      joined += "\n\n" + clean;
    } else if (item) {
      joined += "\n" + clean;
    } else {
      joined += " " + clean.substr(start);
    }
    first = false;
    blank_before = false;
  }
  return joined;
}

}  // namespace

std::string readme_dialog_section() { return plain(kReadmeDialogSection); }

std::string dialog_help_text(const DialogLayout& layout) {
  std::string text = readme_dialog_section() + "\n\nThe controls\n\n";
  if (!layout.filters.empty()) {
    text += "Filter: ";
    for (size_t i = 0; i < layout.filters.size(); ++i)
      text += std::string(i ? "; " : "") + layout.filters[i]->name + ", " + layout.filters[i]->summary;
    text += ".\n\n";
  }
  for (const ControlBlock& block : layout.blocks) {
    if (!block.frame.empty()) text += block.frame + ":\n\n";
    for (const ControlRow& row : block.rows) {
      const edgewise::ParamInfo& info = *row.param;
      text += info.label + " (--" + info.cli_flag + "): " + info.help + ". ";
      if (info.is_enum())
        text += "Default " + info.default_token + ".\n\n";
      else
        text +=
            "Allowed: " + info.range_text() + "; default " + edgewise::value_text(info, info.default_value) + ".\n\n";
    }
  }
  text += "Backend: ";
  for (size_t i = 0; i < layout.backends.size(); ++i)
    text += std::string(i ? "; " : "") + layout.backends[i].label + ", " + layout.backends[i].description;
  return text + ".";
}

}  // namespace edgewise_dialog
