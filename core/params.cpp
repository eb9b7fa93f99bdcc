#include "params.h"

#include <sstream>
#include <stdexcept>

namespace edgewise {

namespace {

std::string strip_mnemonic(const std::string& label) {
  std::string plain;
  for (char c : label)
    if (c != '_') plain += c;
  return plain;
}

// "per_channel, rgb, lab" (the stringified enumerators) -> "per-channel", "rgb", "lab".
std::vector<std::string> spellings(const char* enumerators) {
  std::vector<std::string> tokens(1);
  for (const char* c = enumerators; *c; ++c) {
    if (*c == ',') {
      tokens.emplace_back();
    } else if (*c != ' ') {
      tokens.back() += *c == '_' ? '-' : *c;
    }
  }
  return tokens;
}

// "a, b or c".
std::string listed(const std::vector<std::string>& items) {
  std::string list;
  for (size_t i = 0; i < items.size(); ++i) list += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return list;
}

// The unit's words with what qualifies them, in parentheses: "px (0 = auto:
// ceil(2 sigma-s))". `integer` adds "an integer" first.
std::string with_notes(std::string text, const ParamInfo& info, bool integer) {
  std::vector<std::string> notes;
  if (integer) notes.emplace_back("an integer");
  if (info.unit_note[0]) notes.emplace_back(info.unit_note);
  if (info.auto_meaning[0]) notes.push_back(std::string("0 = auto: ") + info.auto_meaning);
  if (info.takes_noise_auto()) notes.push_back(std::string("or auto, -1 in the PDB: ") + info.noise_auto);
  std::string joined;
  for (const std::string& note : notes) joined += (joined.empty() ? "" : "; ") + note;
  if (joined.empty()) return text;
  return text + (text.empty() ? "(" : " (") + joined + ")";
}

}  // namespace

std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string ParamInfo::unit_text() const { return with_notes(unit, *this, false); }

std::string ParamInfo::range_text() const {
  if (is_enum()) return listed(tokens) + " (0 to " + std::to_string(tokens.size() - 1) + ")";
  std::string text = number_text(hard_min) + " to " + number_text(hard_max);
  if (unit[0]) text += std::string(" ") + unit;
  return with_notes(text, *this, is_integer());
}

std::string range_message(const ParamInfo& info, double value) {
  const std::string shown = number_text(value);
  if (info.is_enum()) return "invalid " + std::string(info.cli_flag) + " " + shown + ": expected " + info.range_text();
  return "invalid " + std::string(info.cli_flag) + " " + shown + ": allowed range is " + info.range_text();
}

ParamGroupBuilder& ParamGroupBuilder::group(const char* name, const char* cli_heading, const char* cli_intro,
                                            const char* dialog_frame) {
  group_.name = name;
  group_.cli_heading = cli_heading;
  group_.cli_intro = cli_intro;
  group_.dialog_frame = dialog_frame;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::start(const char* field, const char* flag, const char* label, ParamType type,
                                            double default_value) {
  ParamInfo info;
  info.field = field;
  info.cli_flag = flag;
  info.mnemonic_label = label;
  info.type = type;
  info.default_value = default_value;
  group_.params.push_back(std::move(info));
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::choice(const char* field, const char* flag, const char* label, int default_index,
                                             const char* enumerators) {
  start(field, flag, label, ParamType::choice, default_index);
  last().tokens = spellings(enumerators);
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::integer(const char* field, const char* flag, const char* label,
                                              double default_value) {
  return start(field, flag, label, ParamType::integer, default_value);
}

ParamGroupBuilder& ParamGroupBuilder::real(const char* field, const char* flag, const char* label,
                                           double default_value) {
  return start(field, flag, label, ParamType::real, default_value);
}

ParamInfo& ParamGroupBuilder::last() {
  if (group_.params.empty()) throw std::logic_error("a parameter attribute before any parameter");
  return group_.params.back();
}

ParamGroupBuilder& ParamGroupBuilder::range(double hard_min, double hard_max) {
  last().hard_min = hard_min;
  last().hard_max = hard_max;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::slider(double slider_min, double slider_max) {
  last().slider_min = slider_min;
  last().slider_max = slider_max;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::unit(const char* words, const char* short_form) {
  last().unit = words;
  last().short_unit = short_form;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::unit_note(const char* text) {
  last().unit_note = text;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::lab_unit(const char* short_form) {
  last().short_unit_lab = short_form;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::automatic(const char* meaning) {
  last().auto_meaning = meaning;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::noise_automatic(const char* meaning) {
  last().noise_auto = meaning;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::scales_with_preview() {
  last().preview = PreviewScaling::length;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::not_pdb() {
  last().pdb = false;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::pdb_since(int version) {
  last().pdb_version = version;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::help(const char* text) {
  last().help = text;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::acts_if(const char* flag, const char* token) {
  last().acts_flag = flag;
  last().acts_token = token;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::idle_on_colour_if(const char* flag, const char* token) {
  last().idle_flag = flag;
  last().idle_token = token;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::acts_if_on(const char* flag) {
  last().acts_if_on = flag;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::colour_only() {
  last().colour_only = true;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::off_at(double value, const char* meaning) {
  last().has_off = true;
  last().off_value = value;
  last().off_meaning = meaning;
  return *this;
}

ParamGroup ParamGroupBuilder::build() {
  for (ParamInfo& info : group_.params) {
    info.label = strip_mnemonic(info.mnemonic_label);
    if (info.is_enum()) {
      // A choice's range is its list of spellings.
      info.hard_min = info.slider_min = 0;
      info.hard_max = info.slider_max = double(info.tokens.size() - 1);
      info.default_token = info.tokens.at(size_t(info.default_value));
    }
    const bool ordered = info.hard_min <= info.slider_min && info.slider_min <= info.slider_max &&
                         info.slider_max <= info.hard_max && info.hard_min <= info.default_value &&
                         info.default_value <= info.hard_max;
    const bool auto_fits = !info.takes_noise_auto() || (info.type == ParamType::real && info.hard_min > kNoiseAuto);
    const bool off_fits = !info.has_off || (!info.is_enum() && info.hard_min <= info.off_value &&
                                            info.off_value <= info.hard_max && info.off_meaning[0]);
    if (!ordered || !auto_fits || !off_fits || !info.help[0] || info.mnemonic_label.find('_') == std::string::npos ||
        info.pdb_version < 1)
      throw std::logic_error(std::string("parameter ") + info.cli_flag +
                             ": ranges out of order, auto on a choice or within the range, an off value outside "
                             "it or unexplained, no help, no access key or a PDB version below 1 in its .def entry");
    info.manual_default = info.default_value;
    if (info.takes_noise_auto()) info.default_value = kNoiseAuto;
  }
  return std::move(group_);
}

}  // namespace edgewise
