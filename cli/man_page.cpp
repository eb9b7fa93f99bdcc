#include "man_page.h"

#include <sstream>
#include <vector>

namespace edgewise_cli {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Text for troff: backslashes escaped, a '-' that starts an option or a
// negative number written as a minus (\-), and a line that would start with
// a control character guarded (\&).
std::string escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char before = i ? text[i - 1] : ' ';
    const bool option_dash = c == '-' && (before == ' ' || before == '(' || before == '-' || before == '|' ||
                                          before == '[' || (i + 1 < text.size() && text[i + 1] == '-'));
    if (c == '\\')
      out += "\\e";
    else if (option_dash)
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// An option line ("--mode per-channel|rgb|lab", "-o, --output PATH"): the
// option names bold, their arguments roman.
std::string option_term(const std::string& term) {
  std::istringstream words(term);
  std::string word, out;
  while (words >> word) {
    if (!out.empty()) out += ' ';
    out += starts_with(word, "-") ? "\\fB" + escape(word) + "\\fR" : escape(word);
  }
  return out;
}

std::string trimmed(const std::string& line) {
  const size_t first = line.find_first_not_of(' ');
  return first == std::string::npos ? "" : line.substr(first);
}

std::string join(const std::vector<std::string>& items, const std::string& between, const std::string& last) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : i + 1 == items.size() ? last : between) + items[i];
  return text;
}

// --help's text as blocks.
struct Block {
  enum Kind { heading, intro, option, paragraph, note, exit_status } kind;
  std::string text;  // a heading, an option's term, or a paragraph's text
  std::string body;  // an option's description
};

std::vector<Block> parse(std::istream& help, std::vector<std::string>& synopsis) {
  std::vector<Block> blocks;
  std::string line;
  bool blank_before = true, seen_option = false;
  while (std::getline(help, line)) {
    if (starts_with(line, "Usage: ")) {
      synopsis.push_back(line.substr(7));
      continue;
    }
    if (starts_with(line, "       ") && blocks.empty() && !synopsis.empty()) {
      synopsis.push_back(trimmed(line));
      continue;
    }
    if (trimmed(line).empty()) {
      blank_before = true;
      continue;
    }
    const bool after_heading = !blocks.empty() && blocks.back().kind == Block::heading;
    if (starts_with(line, "      ") && !blocks.empty() && blocks.back().kind == Block::option) {
      Block& option = blocks.back();
      option.body += (option.body.empty() ? "" : " ") + trimmed(line);
    } else if (starts_with(line, "  -")) {
      blocks.push_back({Block::option, trimmed(line), ""});
      seen_option = true;
    } else if (line[0] != ' ' && blank_before && line.back() == ':' && line.size() < 70) {
      blocks.push_back({Block::heading, line.substr(0, line.size() - 1), ""});
    } else if (!blank_before && !blocks.empty() &&
               (blocks.back().kind == Block::paragraph || blocks.back().kind == Block::intro ||
                blocks.back().kind == Block::note || blocks.back().kind == Block::exit_status)) {
      blocks.back().text += " " + trimmed(line);
    } else if (starts_with(line, "Exit status: ")) {
      blocks.push_back({Block::exit_status, line.substr(13), ""});
    } else {
      const Block::Kind kind = after_heading ? Block::intro : seen_option ? Block::note : Block::paragraph;
      blocks.push_back({kind, trimmed(line), ""});
    }
    blank_before = false;
  }
  return blocks;
}

}  // namespace

std::string man_page(const std::string& help, const std::string& version, const edgewise::Registry& registry) {
  std::vector<std::string> filters, operations, procedures;
  for (const edgewise::FilterInfo* filter : registry.filters()) {
    filters.push_back(filter->name);
    operations.push_back(std::string("edgewise:") + filter->name);
    procedures.push_back(filter->pdb_procedure);
  }
  std::istringstream text(help);
  std::vector<std::string> synopsis;
  const std::vector<Block> blocks = parse(text, synopsis);

  std::ostringstream page;
  page << ".\\\" Made from edgewise --help by edgewise-man-page (cli/man_page.cpp); do not edit.\n"
       << ".TH EDGEWISE 1 \"\" \"edgewise " << version << "\" \"User Commands\"\n"
       << ".nh\n"
       << ".SH NAME\n"
       << "edgewise \\- edge\\-preserving denoising of images (" << join(filters, ", ", " and ") << " filters)\n"
       << ".SH SYNOPSIS\n.nf\n";
  for (const std::string& line : synopsis) {
    const size_t space = line.find(' ');
    page << "\\fB" << line.substr(0, space) << "\\fR" << (space == std::string::npos ? "" : escape(line.substr(space)))
         << "\n";
  }
  page << ".fi\n.SH DESCRIPTION\n";
  for (const Block& block : blocks)
    if (block.kind == Block::paragraph) page << ".PP\n" << escape(block.text) << "\n";
  page << ".PP\n"
       << escape("The same filters run inside GIMP 2.10 as the plug-in's procedures " +
                 join(procedures, ", ", " and ") + " (Filters > Enhance), and as the GEGL operations " +
                 join(operations, ", ", " and ") +
                 " in GIMP 3, in GIMP 2.10's GEGL Operation tool (Tools > GEGL Operation), in the gegl(1) command "
                 "and in any GEGL graph; their properties are the options below, named without the dashes, -1 "
                 "standing for auto.")
       << "\n.SH OPTIONS\n";
  for (const Block& block : blocks) {
    if (block.kind == Block::heading) page << ".SS \"" << escape(block.text) << "\"\n";
    if (block.kind == Block::intro) page << ".PP\n" << escape(block.text) << "\n";
    if (block.kind == Block::option) page << ".TP\n" << option_term(block.text) << "\n" << escape(block.body) << "\n";
  }
  bool notes = false;
  for (const Block& block : blocks)
    if (block.kind == Block::note) {
      if (!notes) page << ".SH NOTES\n";
      notes = true;
      page << ".PP\n" << escape(block.text) << "\n";
    }
  for (const Block& block : blocks)
    if (block.kind == Block::exit_status) page << ".SH \"EXIT STATUS\"\n" << escape(block.text) << "\n";
  page << ".SH \"SEE ALSO\"\n\\fBgimp\\fR(1), \\fBgegl\\fR(1)\n";
  return page.str();
}

}  // namespace edgewise_cli
