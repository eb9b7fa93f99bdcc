// Ends one expansion of a .def list (see param_def.h): every .def list
// includes this last, so the next expansion starts clean.
#undef EW_GROUP
#undef EW_CHOICE
#undef EW_INT
#undef EW_REAL
#undef EW_RANGE
#undef EW_SLIDER
#undef EW_UNIT
#undef EW_UNIT_NOTE
#undef EW_LAB_UNIT
#undef EW_AUTO
#undef EW_NOISE_AUTO
#undef EW_PREVIEW_SCALES
#undef EW_NOT_PDB
#undef EW_PDB_SINCE
#undef EW_HELP
#undef EW_ACTS_IF
#undef EW_IDLE_ON_COLOUR_IF
#undef EW_ACTS_IF_ON
#undef EW_COLOUR_ONLY
#undef EW_OFF_AT
#undef EW_DEF_ENUMS
#undef EW_DEF_FIELDS
#undef EW_DEF_TABLE
#undef EW_DEF_READ
#undef EW_DEF_WRITE
