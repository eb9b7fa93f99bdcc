#include "dialog_help.h"

namespace edgewise_dialog {

namespace {

std::string row_text(const ControlRow& row) {
  const edgewise::ParamInfo& info = *row.param;
  std::string text = info.label + " (--" + info.cli_flag + "): " + info.help + ". ";
  if (info.is_enum()) return text + "Default " + info.default_token + ".\n\n";
  text += "Allowed: " + info.range_text() + "; default " + edgewise::value_text(info, info.default_value) + ".";
  if (info.has_off) text += std::string(" Off: ") + info.off_meaning + ".";
  return text + "\n\n";
}

std::string blocks_text(const DialogLayout& layout) {
  std::string text;
  for (const ControlBlock& block : layout.blocks) {
    if (!block.frame.empty()) text += block.frame + ":\n\n";
    for (const ControlRow& row : block.rows) text += row_text(row);
  }
  text += "Backend: ";
  for (size_t i = 0; i < layout.backends.size(); ++i)
    text += std::string(i ? "; " : "") + layout.backends[i].label + ", " + layout.backends[i].description;
  return text + ".";
}

}  // namespace

std::string dialog_help_text(const DialogLayout& layout) {
  std::string text = "The controls\n\n";
  if (!layout.filters.empty()) {
    text += "Filter: ";
    for (size_t i = 0; i < layout.filters.size(); ++i)
      text += std::string(i ? "; " : "") + layout.filters[i]->name + ", " + layout.filters[i]->summary;
    text += ".\n\n";
  }
  return text + blocks_text(layout);
}

std::string denoise_help_text(const edgewise::Registry& registry, const DialogLayout& advanced) {
  std::string text =
      "The controls\n\nMethod: Recommended (the one the noise measured in this image suits; the line "
      "below says why)";
  for (const edgewise::FilterInfo* method : edgewise::denoise_methods(registry))
    text += std::string("; ") + method->denoise.method + ", " + method->denoise.good_for;
  text += ".\n\n";
  for (const edgewise::ParamInfo& info : edgewise::denoise_group().params)
    text += info.label + ": " + info.help + ". Allowed: " + info.range_text() + "; default " +
            edgewise::number_text(info.default_value) + ".\n\n";
  for (const edgewise::FilterInfo* method : edgewise::denoise_methods(registry))
    for (const edgewise::DenoiseControl& control : method->denoise.controls) {
      const ControlRow row = denoise_control_row(*method, control);
      std::string label;
      for (char c : row.label)
        if (c != '_') label += c;
      text += label + " (" + method->denoise.method + "): " + control.help + ". Allowed: " + row.param->range_text() +
              ".\n\n";
    }
  return text + "Advanced (each method's parameters, as its own dialog under Edgewise methods offers them):\n\n" +
         blocks_text(advanced);
}

}  // namespace edgewise_dialog
