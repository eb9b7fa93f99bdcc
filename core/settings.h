// What a front end keeps between runs: the chosen filter with its values,
// the backend, and the values of parameters the chosen filter does not
// have (so that choosing another filter brings them back). Its text form,
// "--filter bilateral --mode rgb --sigma-s 3 ... --backend auto", is the
// CLI's dialog memory, GIMP's last values and the dialog's test trace: a
// setting reads the same everywhere, and old or reordered text is read by
// name.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "filter_registry.h"
#include "filter_spec.h"

namespace edgewise {

struct Settings {
  FilterSpec spec;
  std::string backend = "auto";
  std::map<std::string, std::string> others;  // flag -> text, parameters of other filters
  // The dialog's own state, kept with the values it chose: name -> one
  // word, written "--dialog-NAME WORD" after the backend ("--dialog-view
  // split --dialog-zoom 200"). The dialog reads and checks it; here it is
  // only carried.
  std::map<std::string, std::string> dialog;
};

// The prefix of the dialog state's options in the settings text.
constexpr const char* kDialogPrefix = "dialog-";

// Defaults for `filter`.
Settings default_settings(const FilterInfo& filter);

// The same settings with another filter: shared parameters keep their
// value (as with_filter keeps it), the new filter's other parameters come from `others` when set
// there, and the old filter's own move to `others`.
Settings choose_filter(const Settings& settings, const FilterInfo& filter);

// (flag, value) for the filter, every parameter of the registry, the
// backend, then the dialog state; values in their text form (value_text).
std::vector<std::pair<std::string, std::string>> to_arguments(const Settings& settings, const Registry& registry);
std::string format_arguments(const Settings& settings, const Registry& registry = builtin_registry());

// Sets one option ("filter", a parameter of any filter of the registry,
// "backend", or "dialog-NAME") checking that value alone. Returns "" or one
// message; on error the settings are unchanged.
std::string apply_argument(Settings& settings, const std::string& flag, const std::string& value,
                           const Registry& registry = builtin_registry(),
                           const BackendList& backends = installed_backends());

// Reads text written by format_arguments (or typed by hand), strictly:
// returns "" or the first problem, and on error leaves `settings` unchanged.
std::string parse_arguments(const std::string& text, Settings& settings, const Registry& registry = builtin_registry(),
                            const BackendList& backends = installed_backends());
// Reads stored text leniently, as last values are read: a value that is
// bad alone or together with the others keeps its default, an option no
// longer known is skipped; returns one message per problem.
std::vector<std::string> read_arguments(const std::string& text, Settings& settings,
                                        const Registry& registry = builtin_registry(),
                                        const BackendList& backends = installed_backends());

}  // namespace edgewise
