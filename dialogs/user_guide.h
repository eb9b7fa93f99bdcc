// The user guide (docs/user-guide.md) as the Help window shows it: compiled
// in, with the images it shows (docs/guide/*.png), when the build is
// configured, so the help matches the build and needs no installed files,
// browser or GIMP manual. Parsed here into blocks (the Markdown the guide
// uses: headings, paragraphs, bullet items, tables, images, **bold** and
// `code`); the window draws them (dialog_window.cpp). No GTK: tests read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgewise_dialog {

struct GuideSpan {
  std::string text;
  bool bold = false;
  bool code = false;
};

struct GuideBlock {
  enum class Kind { heading, paragraph, item, table, image };
  Kind kind = Kind::paragraph;
  int level = 0;                               // heading: 1 for #, 2 for ##, ...
  std::vector<GuideSpan> spans;                // heading, paragraph, item
  std::vector<std::vector<std::string>> rows;  // table: the header row first, cells as plain text
  std::string image;                           // image: its path relative to docs/ ("guide/phone-jpeg.png")
  std::string alt;                             // image: its text
};

std::vector<GuideBlock> parse_guide(const std::string& markdown);

// The compiled-in guide.
const std::string& user_guide_markdown();
// A compiled-in image's PNG bytes by its path in the guide, or null.
const std::vector<uint8_t>* guide_image(const std::string& path);
// The paths of every compiled-in image.
std::vector<std::string> guide_image_paths();

}  // namespace edgewise_dialog
