// A filter's parameters as data: each one declared once in a .def list (see
// param_def.h for the format), from which its typed struct, its enums and
// this table are generated. Front ends build options, help, PDB arguments
// and dialog rows from the table, so no front end names a parameter.
#pragma once

#include <string>
#include <vector>

namespace edgewise {

enum class ParamType { choice, integer, real };

// The value a noise-dependent parameter holds when it is "auto" (the CLI's
// `auto`, the PDB's -1, the dialog's Auto check): the filter derives it from
// the image's noise estimate when it runs (FilterInfo::noise_value). Outside
// every such parameter's valid range, so it cannot be mistaken for a value.
constexpr double kNoiseAuto = -1.0;

// How a parameter follows the preview's zoom below 100 %, where the dialog
// filters a reduced copy of the image.
enum class PreviewScaling {
  none,    // the same value at every zoom (range sigmas, counts)
  length,  // a distance in pixels: scaled with the image (never below its minimum; 0 = auto stays auto)
};

struct ParamInfo {
  const char* field = "";      // the typed struct's member: "sigma_s"
  const char* cli_flag = "";   // "sigma-s": the CLI option, the PDB argument's name, the settings text
  std::string mnemonic_label;  // "_Spatial sigma": '_' marks the dialog's access key
  std::string label;           // "Spatial sigma": help texts and messages
  const char* help = "";
  ParamType type = ParamType::real;
  double default_value = 0;
  double hard_min = 0, hard_max = 0;      // what the validator accepts
  double slider_min = 0, slider_max = 0;  // what a slider offers; the spin button takes the hard range
  // Units: the words that follow a number in help texts and messages ("px",
  // "code values"), what they mean when that needs saying (written in
  // parentheses after them), and the short forms beside a dialog's spin
  // button, which may differ in lab mode (sigma-r: "/ 255" or "ΔE"). Empty
  // when there is none.
  const char* unit = "";
  const char* unit_note = "";
  const char* short_unit = "";
  const char* short_unit_lab = "";
  // Non-empty when 0 means "choose automatically": what is chosen then.
  const char* auto_meaning = "";
  // Non-empty when the parameter takes kNoiseAuto, set from the image's
  // noise: what is chosen then ("2.2 x the noise sigma"). Such a parameter's
  // default is auto; manual_default is the value its typed struct starts
  // with and a dialog offers when Auto is unticked.
  const char* noise_auto = "";
  double manual_default = 0;
  PreviewScaling preview = PreviewScaling::none;
  bool pdb = true;  // an argument of the filter's PDB procedures
  // The version of the filter's PDB procedure that first takes it (see
  // EW_PDB_SINCE): 1 for the published arguments.
  int pdb_version = 1;
  // When it acts, for front ends that grey out what cannot change the
  // result (the dialog, with the reason): only while the choice `acts_flag`
  // is `acts_token`; not while the choice `idle_flag` is `idle_token` on a
  // colour image (lab mode converts to Lab itself, whatever the working
  // space; a grey image is not converted); only while the number
  // `acts_if_on` is not at its off value; only on colour images
  // (colour_only). Empty: always.
  const char* acts_flag = "";
  const char* acts_token = "";
  const char* idle_flag = "";
  const char* idle_token = "";
  const char* acts_if_on = "";
  bool colour_only = false;
  // A value that turns off what the parameter controls (nlm's sigma-r at its
  // maximum: no range term), which front ends offer as a toggle rather than
  // a number; off_meaning says what off does.
  bool has_off = false;
  double off_value = 0;
  const char* off_meaning = "";
  // Choices: the spellings in the enum's order (the index is the PDB value).
  std::vector<std::string> tokens;
  std::string default_token;

  bool is_enum() const { return type == ParamType::choice; }
  bool is_integer() const { return type != ParamType::real; }
  bool takes_noise_auto() const { return noise_auto[0] != '\0'; }
  bool is_off(double value) const { return has_off && value == off_value; }
  // The unit as help texts give it after "in": "px (0 = auto: ceil(2
  // sigma-s))", "code values (0-255 scale ...)"; "" when there is none.
  std::string unit_text() const;
  // The valid values as messages and help texts give them, units placed
  // after the numbers: "0.1 to 100 px", "0 to 128 px (an integer; 0 = auto:
  // ceil(2 sigma-s))", "per-channel, rgb or lab (0 to 2)".
  std::string range_text() const;
  // The short unit for the current colour mode.
  const char* short_unit_for(bool lab) const { return lab && short_unit_lab[0] ? short_unit_lab : short_unit; }
};

// One .def list: parameters that belong together and the words that
// introduce them where a front end shows them as a block (the CLI's help
// section, the dialog's frame).
struct ParamGroup {
  const char* name = "";          // "bilateral"
  const char* cli_heading = "";   // "Adaptive filter options"
  const char* cli_intro = "";     // a paragraph under the heading, or ""
  const char* dialog_frame = "";  // the dialog frame's title, or "" for the main rows
  std::vector<ParamInfo> params;
};

// "invalid sigma-s -1: allowed range is 0.1 to 100 px": the one message for
// a value outside a parameter's range, whichever front end it came from.
std::string range_message(const ParamInfo& info, double value);
// A number as messages and help texts write it: "0.001", "100000", "2.5".
std::string number_text(double value);

// Builds a group from a .def list; the list expands to one chain of calls,
// each attribute applying to the parameter declared last.
class ParamGroupBuilder {
 public:
  ParamGroupBuilder& group(const char* name, const char* cli_heading, const char* cli_intro, const char* dialog_frame);
  ParamGroupBuilder& choice(const char* field, const char* flag, const char* label, int default_index,
                            const char* enumerators);
  ParamGroupBuilder& integer(const char* field, const char* flag, const char* label, double default_value);
  ParamGroupBuilder& real(const char* field, const char* flag, const char* label, double default_value);
  ParamGroupBuilder& range(double hard_min, double hard_max);
  ParamGroupBuilder& slider(double slider_min, double slider_max);
  ParamGroupBuilder& unit(const char* words, const char* short_form);
  ParamGroupBuilder& unit_note(const char* text);
  ParamGroupBuilder& lab_unit(const char* short_form);
  ParamGroupBuilder& automatic(const char* meaning);
  ParamGroupBuilder& noise_automatic(const char* meaning);
  ParamGroupBuilder& scales_with_preview();
  ParamGroupBuilder& not_pdb();
  ParamGroupBuilder& pdb_since(int version);
  ParamGroupBuilder& help(const char* text);
  ParamGroupBuilder& acts_if(const char* flag, const char* token);
  ParamGroupBuilder& idle_on_colour_if(const char* flag, const char* token);
  ParamGroupBuilder& acts_if_on(const char* flag);
  ParamGroupBuilder& colour_only();
  ParamGroupBuilder& off_at(double value, const char* meaning);
  // Fills the derived fields (labels, choice ranges) and checks the list.
  ParamGroup build();

 private:
  ParamGroupBuilder& start(const char* field, const char* flag, const char* label, ParamType type,
                           double default_value);
  ParamInfo& last();
  ParamGroup group_;
};

}  // namespace edgewise
