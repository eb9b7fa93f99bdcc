// Expansions of a filter's .def list. A list is a sequence of
//
//   EW_GROUP(name, cli_heading, cli_intro, dialog_frame)   once, first
//   EW_CHOICE(EnumType, field, "flag", "_Label", default_enumerator, enumerators...)
//   EW_INT(field, "flag", "_Label", default)
//   EW_REAL(field, "flag", "_Label", default)                (a float member)
//
// each parameter followed by its attributes, as GEGL chains property
// attributes: EW_RANGE(hard_min, hard_max) (what the validator accepts),
// EW_SLIDER(min, max) (what a slider offers), EW_UNIT("words", "short")
// (the words follow a number: "0.1 to 100 px"), EW_UNIT_NOTE("text") (what
// the unit means, in parentheses after it), EW_LAB_UNIT("short in lab
// mode"), EW_AUTO("what 0 chooses"), EW_NOISE_AUTO("what auto chooses")
// (the parameter takes auto, kNoiseAuto, set from the image's noise, and
// defaults to it; the declared default stays the typed struct's and the
// value a dialog offers when Auto is unticked), EW_PREVIEW_SCALES (a length in
// pixels), EW_NOT_PDB, EW_PDB_SINCE(version) (an argument only of the
// filter's procedure of that version and later, appended to the arguments
// the earlier versions take: published procedures keep their arguments),
// EW_HELP("text"), and when it acts (front ends grey it out otherwise, with
// the reason): EW_ACTS_IF("choice-flag", "token") (only then),
// EW_IDLE_ON_COLOUR_IF("choice-flag", "token") (no effect then on a colour
// image), EW_ACTS_IF_ON("number-flag") (while that number is not at its
// off value), EW_COLOUR_ONLY; EW_OFF_AT(value, "what off does") (the value
// that turns off what it controls, offered as a toggle).
// A choice's enumerators are C++ identifiers; its spellings are them with
// '_' written '-' (per_channel -> "per-channel"), in the enum's order.
//
// A filter header generates its enums and typed struct, and a .cpp its
// table and its spec conversions:
//
//   #define EW_DEF_ENUMS          #include "x.def"   -> enum class EnumType {...};
//   #define EW_DEF_FIELDS         #include "x.def"   -> struct members with defaults
//   #define EW_DEF_TABLE          #include "x.def"   -> a ParamGroupBuilder chain
//   #define EW_DEF_READ           #include "x.def"   -> p.field = ... spec.get("flag")
//   #define EW_DEF_WRITE          #include "x.def"   -> set(spec, "flag", p.field)
//
// Each expansion defines the macros the list uses and the list undefines
// them at its end (param_def_end.h), so a list can be included many times.

#if defined(EW_DEF_ENUMS)
#define EW_GROUP(name, heading, intro, frame)
#define EW_CHOICE(type, field, flag, label, def, ...) enum class type { __VA_ARGS__ };
#define EW_INT(field, flag, label, def)
#define EW_REAL(field, flag, label, def)
#elif defined(EW_DEF_FIELDS)
#define EW_GROUP(name, heading, intro, frame)
#define EW_CHOICE(type, field, flag, label, def, ...) type field = type::def;
#define EW_INT(field, flag, label, def) int field = def;
#define EW_REAL(field, flag, label, def) float field = static_cast<float>(def);
#elif defined(EW_DEF_TABLE)
#define EW_GROUP(name, heading, intro, frame) .group(#name, heading, intro, frame)
#define EW_CHOICE(type, field, flag, label, def, ...) \
  .choice(#field, flag, label, static_cast<int>(type::def), #__VA_ARGS__)
#define EW_INT(field, flag, label, def) .integer(#field, flag, label, def)
#define EW_REAL(field, flag, label, def) .real(#field, flag, label, def)
#elif defined(EW_DEF_READ)
#define EW_GROUP(name, heading, intro, frame)
#define EW_CHOICE(type, field, flag, label, def, ...) \
  EW_DEF_TARGET.field = static_cast<type>(static_cast<int>(EW_DEF_SOURCE.get(flag)));
#define EW_INT(field, flag, label, def) EW_DEF_TARGET.field = static_cast<int>(EW_DEF_SOURCE.get(flag));
#define EW_REAL(field, flag, label, def) EW_DEF_TARGET.field = static_cast<float>(EW_DEF_SOURCE.get(flag));
#elif defined(EW_DEF_WRITE)
#define EW_GROUP(name, heading, intro, frame)
#define EW_CHOICE(type, field, flag, label, def, ...) EW_DEF_WRITE_ONE(flag, static_cast<int>(EW_DEF_SOURCE.field));
#define EW_INT(field, flag, label, def) EW_DEF_WRITE_ONE(flag, EW_DEF_SOURCE.field);
#define EW_REAL(field, flag, label, def) EW_DEF_WRITE_ONE(flag, EW_DEF_SOURCE.field);
#else
#error "include param_def.h with one of EW_DEF_ENUMS, EW_DEF_FIELDS, EW_DEF_TABLE, EW_DEF_READ, EW_DEF_WRITE defined"
#endif

#if defined(EW_DEF_TABLE)
#define EW_RANGE(hmin, hmax) .range(hmin, hmax)
#define EW_SLIDER(smin, smax) .slider(smin, smax)
#define EW_UNIT(words, short_form) .unit(words, short_form)
#define EW_UNIT_NOTE(text) .unit_note(text)
#define EW_LAB_UNIT(short_form) .lab_unit(short_form)
#define EW_AUTO(meaning) .automatic(meaning)
#define EW_NOISE_AUTO(meaning) .noise_automatic(meaning)
#define EW_PREVIEW_SCALES .scales_with_preview()
#define EW_NOT_PDB .not_pdb()
#define EW_PDB_SINCE(version) .pdb_since(version)
#define EW_HELP(text) .help(text)
#define EW_ACTS_IF(flag, token) .acts_if(flag, token)
#define EW_IDLE_ON_COLOUR_IF(flag, token) .idle_on_colour_if(flag, token)
#define EW_ACTS_IF_ON(flag) .acts_if_on(flag)
#define EW_COLOUR_ONLY .colour_only()
#define EW_OFF_AT(value, meaning) .off_at(value, meaning)
#else
#define EW_RANGE(hmin, hmax)
#define EW_SLIDER(smin, smax)
#define EW_UNIT(words, short_form)
#define EW_UNIT_NOTE(text)
#define EW_LAB_UNIT(short_form)
#define EW_AUTO(meaning)
#define EW_NOISE_AUTO(meaning)
#define EW_PREVIEW_SCALES
#define EW_NOT_PDB
#define EW_PDB_SINCE(version)
#define EW_HELP(text)
#define EW_ACTS_IF(flag, token)
#define EW_IDLE_ON_COLOUR_IF(flag, token)
#define EW_ACTS_IF_ON(flag)
#define EW_COLOUR_ONLY
#define EW_OFF_AT(value, meaning)
#endif
