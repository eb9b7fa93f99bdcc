#include "denoise_procedure.h"

namespace edgewise_plugin {

std::vector<PdbArgument> denoise_arguments(const edgewise::Registry& registry) {
  std::vector<PdbArgument> arguments = {
      {PdbType::int32, "run-mode",
       "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }", nullptr, false},
      {PdbType::image, "image", "Input image", nullptr, false},
      {PdbType::drawable, "drawable", "Input drawable", nullptr, false},
      {PdbType::int32, "method", "Method: " + edgewise::method_numbers_text(registry), nullptr, false}};
  for (const edgewise::ParamInfo& info : edgewise::denoise_group().params)
    arguments.push_back({PdbType::real, info.cli_flag,
                         info.label + ": " + info.help + "; " + info.range_text() + ", default " +
                             edgewise::number_text(info.default_value),
                         &info, false});
  return arguments;
}

std::string denoise_help(const edgewise::Registry& registry) {
  std::string methods, apart;
  for (const edgewise::FilterInfo* method : edgewise::denoise_methods(registry)) {
    methods += std::string("\n  ") + std::to_string(edgewise::method_number(method, registry)) + " " +
               method->denoise.method + ": " + method->denoise.good_for + " (the " + method->name + " filter, " +
               method->pdb_procedure + ").";
    if (method->denoise.separates) apart += std::string(apart.empty() ? "" : ", ") + method->denoise.method;
  }
  std::string help =
      "Removes noise from the selection (or the whole drawable). The noise is measured on the whole drawable; "
      "with method -1 it chooses the method (colour noise and grain correlated over pixels, as phone and camera "
      "JPEGs have: one suited to it; fine, even grain: another), and every setting of the method follows the noise "
      "measured, multiplied by strength. The methods:" +
      methods +
      "\nLuminance and colour multiply the noise in brightness and in colour apart, for the methods that set them "
      "apart (" +
      (apart.empty() ? "none here" : apart) +
      ") on colour images; the others take the strength alone. Each method's own procedure, under Filters > "
      "Enhance > Edgewise methods, offers all of its parameters. Arguments:\n";
  const std::vector<PdbArgument> arguments = denoise_arguments(registry);
  for (size_t i = kFixedArgs; i < arguments.size(); ++i) help += arguments[i].description + ".\n";
  return help;
}

std::string read_denoise_call(const edgewise::Registry& registry, const std::vector<double>& values,
                              edgewise::DenoiseSettings& denoise) {
  const std::vector<PdbArgument> arguments = denoise_arguments(registry);
  if (values.size() + kFixedArgs != arguments.size())
    return "expected " + std::to_string(arguments.size()) + " arguments, got " +
           std::to_string(values.size() + kFixedArgs);
  edgewise::DenoiseSettings read = denoise;
  std::string error = edgewise::method_for_number(values[0], registry, read.method);
  for (size_t i = 1; i < values.size() && error.empty(); ++i)
    error = edgewise::set_denoise_value(read, arguments[i + kFixedArgs].name, values[i]);
  if (!error.empty()) return error;
  denoise = read;
  return "";
}

std::string denoise_progress_text(const edgewise::FilterInfo& method) {
  std::string label = kDenoiseMenuLabel;
  std::string plain;
  for (char c : label.substr(0, label.size() - 3))
    if (c != '_') plain += c;
  return plain + ": " + method.denoise.method;
}

}  // namespace edgewise_plugin
