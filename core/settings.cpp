#include "settings.h"

#include <set>
#include <sstream>

namespace edgewise {

namespace {

// Checks a value for a parameter the chosen filter does not have, against
// a filter that has it; returns its canonical text through `text`.
std::string check_other(const Registry& registry, const std::string& flag, const std::string& value,
                        std::string& text) {
  for (const FilterInfo* filter : registry.filters())
    if (const ParamInfo* info = filter->find_param(flag)) {
      FilterSpec probe(*filter);
      const std::string error = set_param(probe, flag, value);
      if (error.empty()) text = value_text(*info, probe.get(flag));
      return error;
    }
  return "unknown option --" + flag;
}

std::vector<std::pair<std::string, std::string>> split(const std::string& text, std::string& error) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::istringstream words(text);
  std::string flag, value;
  while (words >> flag) {
    if (flag.rfind("--", 0) != 0) {
      error = "expected an option, got '" + flag + "'";
      return pairs;
    }
    if (!(words >> value)) {
      error = "option " + flag + " needs a value";
      return pairs;
    }
    pairs.emplace_back(flag.substr(2), value);
  }
  return pairs;
}

}  // namespace

Settings default_settings(const FilterInfo& filter) {
  Settings settings;
  settings.spec = FilterSpec(filter);
  return settings;
}

Settings choose_filter(const Settings& settings, const FilterInfo& filter) {
  Settings chosen = settings;
  chosen.spec = with_filter(settings.spec, filter);
  for (const ParamInfo* info : filter.params()) {
    auto kept = chosen.others.find(info->cli_flag);
    if (kept == chosen.others.end()) continue;
    if (!settings.spec.has(info->cli_flag)) set_param(chosen.spec, info->cli_flag, kept->second);
    chosen.others.erase(kept);
  }
  for (const ParamInfo* info : settings.spec.filter().params())
    if (!filter.find_param(info->cli_flag))
      chosen.others[info->cli_flag] = value_text(*info, settings.spec.get(info->cli_flag));
  return chosen;
}

std::vector<std::pair<std::string, std::string>> to_arguments(const Settings& settings, const Registry& registry) {
  std::vector<std::pair<std::string, std::string>> arguments;
  arguments.emplace_back("filter", settings.spec.filter().name);
  std::set<std::string> written;  // a flag two groups declare (nlm's sigma-s) is written once
  for (const ParamGroup* group : registry.groups())
    for (const ParamInfo& info : group->params) {
      if (!written.insert(info.cli_flag).second) continue;
      std::string text = value_text(info, info.default_value);
      if (settings.spec.has(info.cli_flag)) {
        text = value_text(info, settings.spec.get(info.cli_flag));
      } else if (auto kept = settings.others.find(info.cli_flag); kept != settings.others.end()) {
        text = kept->second;
      }
      arguments.emplace_back(info.cli_flag, text);
    }
  arguments.emplace_back("backend", settings.backend);
  for (const auto& [name, value] : settings.dialog) arguments.emplace_back(kDialogPrefix + name, value);
  return arguments;
}

std::string format_arguments(const Settings& settings, const Registry& registry) {
  std::string text;
  for (const auto& [flag, value] : to_arguments(settings, registry))
    text += (text.empty() ? "--" : " --") + flag + " " + value;
  return text;
}

std::string apply_argument(Settings& settings, const std::string& flag, const std::string& value,
                           const Registry& registry, const BackendList& backends) {
  if (flag == "filter") {
    const FilterInfo* filter = registry.find(value);
    if (!filter) {
      std::string names;
      const auto& filters = registry.filters();
      for (size_t i = 0; i < filters.size(); ++i)
        names += (i == 0 ? "" : i + 1 == filters.size() ? " or " : ", ") + std::string(filters[i]->name);
      return "invalid filter '" + value + "': expected " + names;
    }
    settings = choose_filter(settings, *filter);
    return "";
  }
  if (flag == "backend") {
    const std::string error = check_backend_choice(backends, value);
    if (error.empty()) settings.backend = value;
    return error;
  }
  if (flag.rfind(kDialogPrefix, 0) == 0 && flag.size() > std::string(kDialogPrefix).size()) {
    settings.dialog[flag.substr(std::string(kDialogPrefix).size())] = value;  // one word: split() saw to it
    return "";
  }
  if (settings.spec.has(flag)) return set_param(settings.spec, flag, value);
  std::string text;
  const std::string error = check_other(registry, flag, value, text);
  if (error.empty()) settings.others[flag] = text;
  return error;
}

std::string parse_arguments(const std::string& text, Settings& settings, const Registry& registry,
                            const BackendList& backends) {
  std::string error;
  const auto pairs = split(text, error);
  if (!error.empty()) return error;
  Settings parsed = settings;
  // The filter first, wherever it is written, so its parameters are its own.
  for (const auto& [flag, value] : pairs)
    if (flag == "filter" && !(error = apply_argument(parsed, flag, value, registry, backends)).empty()) return error;
  for (const auto& [flag, value] : pairs)
    if (flag != "filter" && !(error = apply_argument(parsed, flag, value, registry, backends)).empty()) return error;
  error = validate(parsed.spec);
  if (!error.empty()) return error;
  settings = parsed;
  return "";
}

std::vector<std::string> read_arguments(const std::string& text, Settings& settings, const Registry& registry,
                                        const BackendList& backends) {
  std::vector<std::string> problems;
  std::string error;
  const auto pairs = split(text, error);
  if (!error.empty()) problems.push_back(error);
  for (const auto& [flag, value] : pairs)
    if (flag == "filter" && !(error = apply_argument(settings, flag, value, registry, backends)).empty())
      problems.push_back(error);
  for (const auto& [flag, value] : pairs)
    if (flag != "filter" && !(error = apply_argument(settings, flag, value, registry, backends)).empty())
      problems.push_back(error);
  // Values fine alone but not together (adapt-min above adapt-max): the
  // filter's defaults for the values involved are not known, so all of its
  // parameters go back to theirs.
  error = validate(settings.spec);
  if (!error.empty()) {
    problems.push_back(error + "; using the defaults");
    settings.spec = FilterSpec(settings.spec.filter());
  }
  return problems;
}

}  // namespace edgewise
