#include "params.h"

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

}  // namespace

std::string ParamInfo::unit_text() const {
  std::string text = unit;
  if (auto_meaning[0]) text += std::string(text.empty() ? "" : ", ") + "0 = auto " + auto_meaning;
  return text;
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

ParamGroupBuilder& ParamGroupBuilder::lab_unit(const char* short_form) {
  last().short_unit_lab = short_form;
  return *this;
}

ParamGroupBuilder& ParamGroupBuilder::automatic(const char* meaning) {
  last().auto_meaning = meaning;
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

ParamGroupBuilder& ParamGroupBuilder::help(const char* text) {
  last().help = text;
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
    if (!ordered || !info.help[0] || info.mnemonic_label.find('_') == std::string::npos)
      throw std::logic_error(std::string("parameter ") + info.cli_flag +
                             ": ranges out of order, no help or no access key in its .def entry");
  }
  return std::move(group_);
}

}  // namespace edgewise
