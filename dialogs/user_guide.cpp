#include "user_guide.h"

#include <sstream>

#include "user_guide_data.h"  // generated: kUserGuide, kGuideImages

namespace edgewise_dialog {

namespace {

// **bold**, `code` and [links](target) as their text; other characters as they are.
std::vector<GuideSpan> spans_of(const std::string& text) {
  std::vector<GuideSpan> spans(1);
  bool bold = false, code = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto toggle = [&](bool& flag) {
      flag = !flag;
      spans.push_back({"", bold, code});
    };
    if (!code && text.compare(i, 2, "**") == 0) {
      toggle(bold);
      ++i;
    } else if (text[i] == '`') {
      toggle(code);
    } else if (!code && text[i] == '[') {
      const size_t close = text.find("](", i);
      const size_t end = close == std::string::npos ? close : text.find(')', close);
      if (end == std::string::npos) {
        spans.back().text += text[i];
        continue;
      }
      spans.back().text += text.substr(i + 1, close - i - 1);
      i = end;
    } else if (text[i] == '\\' && i + 1 < text.size()) {
      spans.back().text += text[++i];
    } else {
      spans.back().text += text[i];
    }
  }
  std::vector<GuideSpan> kept;
  for (GuideSpan& span : spans)
    if (!span.text.empty()) kept.push_back(std::move(span));
  return kept;
}

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> row;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|') {
      std::string plain;
      for (const GuideSpan& span : spans_of(trimmed(cell))) plain += span.text;
      row.push_back(plain);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return row;
}

}  // namespace

std::vector<GuideBlock> parse_guide(const std::string& markdown) {
  std::vector<GuideBlock> blocks;
  std::istringstream lines(markdown);
  std::string line, paragraph;
  bool in_item = false, in_table = false;
  const auto flush = [&] {
    if (!paragraph.empty()) {
      GuideBlock block;
      block.kind = in_item ? GuideBlock::Kind::item : GuideBlock::Kind::paragraph;
      block.spans = spans_of(paragraph);
      blocks.push_back(std::move(block));
    }
    paragraph.clear();
    in_item = false;
  };
  while (std::getline(lines, line)) {
    const std::string text = trimmed(line);
    const bool table_line = !text.empty() && text[0] == '|';
    const bool continues_table = in_table && table_line;
    in_table = table_line;
    if (text.empty()) {
      flush();
      continue;
    }
    if (text[0] == '#') {
      flush();
      GuideBlock block;
      block.kind = GuideBlock::Kind::heading;
      while (block.level < int(text.size()) && text[size_t(block.level)] == '#') ++block.level;
      block.spans = spans_of(trimmed(text.substr(size_t(block.level))));
      blocks.push_back(std::move(block));
    } else if (text.rfind("![", 0) == 0) {
      flush();
      GuideBlock block;
      block.kind = GuideBlock::Kind::image;
      const size_t close = text.find("](");
      block.alt = text.substr(2, close - 2);
      block.image = text.substr(close + 2, text.find(')', close) - close - 2);
      blocks.push_back(std::move(block));
    } else if (text[0] == '|') {
      if (!continues_table) {
        flush();
        blocks.push_back({GuideBlock::Kind::table, 0, {}, {}, "", ""});
      }
      if (text.find_first_not_of("|-: ") != std::string::npos) blocks.back().rows.push_back(cells(text));
    } else if (text.rfind("- ", 0) == 0) {
      flush();
      in_item = true;
      paragraph = text.substr(2);
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + text;
    }
  }
  flush();
  return blocks;
}

const std::string& user_guide_markdown() {
  static const std::string text = kUserGuide;
  return text;
}

const std::vector<uint8_t>* guide_image(const std::string& path) {
  static const std::vector<std::pair<std::string, std::vector<uint8_t>>> images = [] {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> list;
    for (const GuideImageData& image : kGuideImages)
      if (image.size > 0) list.emplace_back(image.path, std::vector<uint8_t>(image.bytes, image.bytes + image.size));
    return list;
  }();
  for (const auto& [name, bytes] : images)
    if (name == path) return &bytes;
  return nullptr;
}

std::vector<std::string> guide_image_paths() {
  std::vector<std::string> paths;
  for (const GuideImageData& image : kGuideImages)
    if (image.size > 0) paths.emplace_back(image.path);
  return paths;
}

}  // namespace edgewise_dialog
