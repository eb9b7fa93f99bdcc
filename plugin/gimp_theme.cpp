#include "gimp_theme.h"

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace edgewise_plugin {

namespace {

struct Rgb {
  double r = 0, g = 0, b = 0;
  bool set = false;
};

// "#RGB", "#RRGGBB" or "{ r, g, b }" (0..1).
Rgb parse_colour(const std::string& text) {
  Rgb colour;
  std::smatch match;
  static const std::regex hex6("#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})");
  static const std::regex hex3("#([0-9a-fA-F])([0-9a-fA-F])([0-9a-fA-F])");
  static const std::regex triple("\\{\\s*([0-9.]+)\\s*,\\s*([0-9.]+)\\s*,\\s*([0-9.]+)\\s*\\}");
  if (std::regex_search(text, match, hex6)) {
    colour = {std::stoi(match[1], nullptr, 16) / 255.0, std::stoi(match[2], nullptr, 16) / 255.0,
              std::stoi(match[3], nullptr, 16) / 255.0, true};
  } else if (std::regex_search(text, match, hex3)) {
    colour = {std::stoi(match[1], nullptr, 16) / 15.0, std::stoi(match[2], nullptr, 16) / 15.0,
              std::stoi(match[3], nullptr, 16) / 15.0, true};
  } else if (std::regex_search(text, match, triple)) {
    colour = {std::stod(match[1]), std::stod(match[2]), std::stod(match[3]), true};
  }
  return colour;
}

double luma(const Rgb& c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

// The body of `style "name" ... { ... }` (first level of braces).
std::string style_body(const std::string& gtkrc, const std::string& name) {
  const std::string head = "style \"" + name + "\"";
  size_t at = gtkrc.find(head);
  if (at == std::string::npos) return "";
  at = gtkrc.find('{', at);
  if (at == std::string::npos) return "";
  int depth = 0;
  for (size_t i = at; i < gtkrc.size(); ++i) {
    if (gtkrc[i] == '{') ++depth;
    if (gtkrc[i] == '}' && --depth == 0) return gtkrc.substr(at + 1, i - at - 1);
  }
  return "";
}

// state[NORMAL] = value in a style body, named colours resolved.
Rgb state_colour(const std::string& body, const char* state, const std::map<std::string, std::string>& named) {
  const std::regex line(std::string("(^|\\n)\\s*") + state + "\\[NORMAL\\]\\s*=\\s*([^\\n]*)");
  std::smatch match;
  if (!std::regex_search(body, match, line)) return {};
  std::string value = match[2];
  if (!value.empty() && value[0] == '@') {
    const auto known = named.find(value.substr(1, value.find_first_of(" \t\r#") - 1));
    if (known == named.end()) return {};
    value = known->second;
  }
  return parse_colour(value);
}

}  // namespace

ThemeTone theme_tone(const std::string& gtkrc) {
  // The style every widget gets, else the first one.
  std::smatch match;
  std::string style;
  if (std::regex_search(gtkrc, match, std::regex("class\\s+\"GtkWidget\"\\s+style\\s+\"([^\"]+)\""))) {
    style = match[1];
  } else if (std::regex_search(gtkrc, match, std::regex("(^|\\n)\\s*style\\s+\"([^\"]+)\""))) {
    style = match[2];
  }
  const std::string body = style.empty() ? "" : style_body(gtkrc, style);
  std::map<std::string, std::string> named;
  static const std::regex colour_line("color\\[\"([^\"]+)\"\\]\\s*=\\s*\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), colour_line); it != std::sregex_iterator(); ++it)
    named[(*it)[1]] = (*it)[2];
  const Rgb text = state_colour(body, "fg", named), ground = state_colour(body, "bg", named);
  if (!text.set || !ground.set) return ThemeTone::unknown;
  return luma(text) > luma(ground) ? ThemeTone::dark : ThemeTone::light;
}

ThemeTone theme_dir_tone(const std::string& theme_dir) {
  std::ifstream file(theme_dir + "/gtkrc");
  if (!file) return ThemeTone::unknown;
  std::stringstream text;
  text << file.rdbuf();
  return theme_tone(text.str());
}

ThemeTone theme_tone_in_path(const std::string& name, const std::string& search_path) {
  if (name.empty() || name.find('/') != std::string::npos) return ThemeTone::unknown;
  std::istringstream folders(search_path);
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    if (folder.empty() || !std::ifstream(folder + "/" + name + "/gtkrc")) continue;
    return theme_dir_tone(folder + "/" + name);
  }
  return ThemeTone::unknown;
}

}  // namespace edgewise_plugin
