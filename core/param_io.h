// The typed reader and writer of one .def list (param_def.h), defined in
// its filter's .cpp so that no filter writes them out again:
//
//   #define EW_IO_LIST "nlm_params.def"  // the list
//   #define EW_IO_TYPE NlmParameters     // its typed struct
//   #define EW_IO_READER nlm_parameters  // NlmParameters nlm_parameters(const FilterSpec&)
//   #define EW_IO_WRITER nlm_spec        // FilterSpec nlm_spec(const NlmParameters&), validated
//   #define EW_IO_FILTER nlm_filter()    // the row whose spec the writer makes
//   #include "param_io.h"
//
// Without EW_IO_WRITER only the reader is defined (a list that is one of
// several groups of a filter). The reader refuses a spec of a filter that
// lacks one of the list's flags (RequiredParams); the writer throws
// std::invalid_argument with the validator's message.
#if !defined(EW_IO_LIST) || !defined(EW_IO_TYPE) || !defined(EW_IO_READER)
#error "define EW_IO_LIST, EW_IO_TYPE and EW_IO_READER (and EW_IO_WRITER, EW_IO_FILTER) before param_io.h"
#endif

EW_IO_TYPE EW_IO_READER(const FilterSpec& spec) {
  EW_IO_TYPE p;
  const RequiredParams source{spec};
#define EW_DEF_TARGET p
#define EW_DEF_SOURCE source
#define EW_DEF_READ
#include EW_IO_LIST
#undef EW_DEF_TARGET
#undef EW_DEF_SOURCE
  return p;
}

#if defined(EW_IO_WRITER)
#define EW_DEF_WRITE_ONE(flag, value) throw_if_error(set_param(spec, flag, double(value)))
FilterSpec EW_IO_WRITER(const EW_IO_TYPE& parameters) {
  FilterSpec spec(EW_IO_FILTER);
#define EW_DEF_SOURCE parameters
#define EW_DEF_WRITE
#include EW_IO_LIST
#undef EW_DEF_SOURCE
  throw_if_error(validate(spec));
  return spec;
}
#undef EW_DEF_WRITE_ONE
#undef EW_IO_WRITER
#undef EW_IO_FILTER
#endif

#undef EW_IO_LIST
#undef EW_IO_TYPE
#undef EW_IO_READER
