#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace edgewise_cli {

namespace {

const char* const kWritePrefix = "write-";

long parse_integer(const std::string& flag, const std::string& text, long min_value, long max_value) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < min_value || value > max_value)
    throw std::invalid_argument("invalid " + flag + " '" + text + "': expected an integer from " +
                                std::to_string(min_value) + " to " + std::to_string(max_value));
  return value;
}

std::string words(const std::vector<std::string>& items, const char* last_joint) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? last_joint : ", ") + items[i];
  return text;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : separator) + items[i];
  return text;
}

std::vector<std::string> filter_names(const std::vector<const edgewise::FilterInfo*>& filters) {
  std::vector<std::string> names;
  for (const edgewise::FilterInfo* filter : filters) names.push_back(filter->name);
  return names;
}

// --filter's word for the Denoise front end's choice (core/denoise.h).
const char* const kAutoFilter = "auto";

const edgewise::ParamInfo* denoise_control(const std::string& flag) {
  for (const edgewise::ParamInfo& info : edgewise::denoise_group().params)
    if (flag == info.cli_flag) return &info;
  return nullptr;
}

// With --filter auto: a Denoise control, checked as a filter's value is
// (the same messages); a filter's own parameter is refused, since the
// method is not known before the image is read.
void apply_auto_option(CliOptions& options, const std::string& flag, const std::string& value,
                       const edgewise::Registry& registry) {
  if (denoise_control(flag)) {
    edgewise::FilterSpec controls(edgewise::denoise_controls());
    std::string error = edgewise::set_param(controls, flag, value);
    if (error.empty()) error = edgewise::set_denoise_value(options.denoise, flag, controls.get(flag));
    if (!error.empty()) throw std::invalid_argument(error);
    return;
  }
  std::vector<std::string> takers;
  for (const edgewise::FilterInfo* filter : registry.filters())
    if (filter->find_param(flag)) takers.push_back(filter->name);
  throw std::invalid_argument("--" + flag + " is an option of the " + words(takers, " and ") +
                              " filter; --filter auto runs the method it chooses with that method's defaults "
                              "(name the filter to set it)");
}

// Applies one option that takes a value; false when flag is not one.
bool apply_option(CliOptions& options, const std::string& flag, const std::string& value,
                  const edgewise::Registry& registry, const edgewise::BackendList& backends) {
  if (flag == "threads") {
    options.run.backend_options.threads = int(parse_integer("threads", value, 0, 4096));
  } else if (flag == "gpu-memory") {
    options.run.backend_options.gpu_memory_budget = size_t(parse_integer("gpu-memory", value, 16, 1 << 24)) << 20;
  } else if (flag == "band-rows") {
    options.run.band_rows = int(parse_integer("band-rows", value, 0, 1 << 20));
  } else if (flag == "max-pixels") {
    options.files.limits.max_pixels = uint64_t(parse_integer("max-pixels", value, 1, 1L << 40));
  } else if (flag == "jpeg-quality") {
    options.files.write.jpeg_quality = int(parse_integer("jpeg-quality", value, 1, 100));
  } else if (flag == "png-compression") {
    options.files.write.png_compression = int(parse_integer("png-compression", value, 0, 9));
  } else if (flag == "tiff-compression") {
    if (value != "none" && value != "deflate" && value != "lzw" && value != "zstd")
      throw std::invalid_argument("invalid tiff-compression '" + value + "': expected none, deflate, lzw or zstd");
    options.files.write.tiff_compression = value;
  } else if (flag.rfind(kWritePrefix, 0) == 0 && !registry.producers(flag.substr(6)).empty()) {
    options.extra_outputs[flag.substr(6)] = value;
  } else if (options.auto_method && flag != "backend" && (denoise_control(flag) || registry.find_param(flag))) {
    apply_auto_option(options, flag, value, registry);
  } else if (flag == "filter" || flag == "backend" || registry.find_param(flag)) {
    const std::string error = edgewise::apply_argument(options.settings, flag, value, registry, backends);
    if (!error.empty()) throw std::invalid_argument(error);
    options.given.emplace_back(flag, value);
  } else if (denoise_control(flag)) {
    throw std::invalid_argument("--" + flag + " is a control of --filter " + kAutoFilter);
  } else {
    return false;
  }
  return true;
}

// Indented, wrapped at 79 columns.
std::string wrap(const std::string& text, size_t indent = 6) {
  std::istringstream input(text);
  std::string out(indent, ' '), word;
  size_t column = indent;
  bool first = true;
  while (input >> word) {
    if (!first && column + 1 + word.size() > 79) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      first = true;
    }
    if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out + "\n";
}

void describe_param(std::ostream& out, const edgewise::ParamInfo& info) {
  std::string usage = std::string("  --") + info.cli_flag + " ";
  if (info.is_enum()) {
    for (size_t i = 0; i < info.tokens.size(); ++i) usage += (i ? "|" : "") + info.tokens[i];
  } else {
    usage += info.is_integer() ? "N" : "F";
    if (info.takes_noise_auto()) usage += "|auto";
  }
  // The valid values in the words of every other message (units, "an
  // integer", what 0 means): ParamInfo::range_text.
  std::string text = std::string(info.help) + ". Default ";
  if (info.is_enum())
    text += info.default_token;
  else
    text += edgewise::value_text(info, info.default_value) + ", range " + info.range_text();
  out << usage << "\n" << wrap(text + ".");
}

// --filter auto and the Denoise controls, as GIMP's Denoise entry offers
// them (core/denoise.h): the methods and what they suit from the registry.
void describe_auto(std::ostream& out, const edgewise::Registry& registry) {
  const std::vector<const edgewise::FilterInfo*> methods = edgewise::denoise_methods(registry);
  if (methods.empty()) return;
  std::string list;
  for (size_t i = 0; i < methods.size(); ++i)
    list += std::string(i ? ". " : "") + methods[i]->denoise.method + " (--filter " + methods[i]->name +
            "): " + methods[i]->denoise.good_for;
  std::string apart;
  for (const edgewise::FilterInfo* method : methods)
    if (method->denoise.separates) apart += std::string(apart.empty() ? "" : ", ") + method->denoise.method;
  list += ". --luminance and --colour act apart for the methods that set them apart (" +
          (apart.empty() ? std::string("none here") : apart) + ") on colour images; the others take --strength alone";
  const edgewise::ParamGroup& group = edgewise::denoise_group();
  out << "\n"
      << group.cli_heading << " (--filter " << kAutoFilter << "):\n"
      << wrap(std::string("--filter ") + kAutoFilter +
                  " chooses the method for each input as GIMP's Denoise entry (Filters > Enhance > Denoise) "
                  "does: it measures the image's noise, tells fine grain from noise correlated over pixels "
                  "and from colour noise, and runs the method recommended for that (--verbose says which "
                  "and why) with its default values, which follow the noise measured times the controls "
                  "below. The methods: " +
                  list + ".",
              0);
  for (const edgewise::ParamInfo& info : group.params) describe_param(out, info);
}

// --filter, then each parameter group under its heading; a group only some
// filters take says which.
void describe_filters(std::ostream& out, const edgewise::Registry& registry) {
  const auto& filters = registry.filters();
  out << "\nFilter options:\n";
  if (filters.size() > 1) {
    std::string text = "the filter:";
    for (size_t i = 0; i < filters.size(); ++i)
      text += std::string(i ? ";" : "") + " " + filters[i]->name + ", " + filters[i]->summary;
    if (!edgewise::denoise_methods(registry).empty())
      text += std::string("; or ") + kAutoFilter + ", the method chosen for each image's noise (Denoise options below)";
    out << "  --filter " << join(filter_names(filters), "|") << "\n"
        << wrap(text + ". Default " + registry.default_filter().name + ".");
  }
  for (const edgewise::ParamGroup* group : registry.groups()) {
    const std::vector<const edgewise::FilterInfo*> users = registry.users(*group);
    if (users.size() != filters.size()) {
      out << "\n" << group->cli_heading << " (--filter " << words(filter_names(users), " or ") << "):\n";
      if (group->cli_intro[0]) out << wrap(group->cli_intro, 0);
    } else if (group->cli_intro[0]) {
      out << wrap(group->cli_intro, 0);
    }
    for (const edgewise::ParamInfo& info : group->params) describe_param(out, info);
  }
  describe_auto(out, registry);
}

}  // namespace

CliOptions parse_options(int argc, char** argv, const edgewise::Registry& registry,
                         const edgewise::BackendList& backends) {
  CliOptions options;
  options.settings = edgewise::default_settings(registry.default_filter());
  bool options_ended = false;  // after "--" everything is an input
  bool output_given = false;
  std::vector<std::pair<std::string, std::string>> valued;  // --flag value, in order
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      options.inputs.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
    } else if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--version") {
      options.version = true;
    } else if (arg == "--gui") {
      options.gui = true;
    } else if (arg == "--estimate-noise") {
      options.estimate_noise = true;
    } else if (arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "--overwrite") {
      options.files.overwrite = true;
    } else if (arg == "--fail-fast") {
      options.files.fail_fast = true;
    } else if (arg == "--strip-metadata") {
      options.files.write.strip_metadata = true;
    } else {
      // --flag=value or --flag value
      std::string value;
      bool has_value = false;
      const size_t eq = arg.find('=');
      if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
      if (!has_value) {
        if (i + 1 >= argc) throw std::invalid_argument("option " + arg + " needs a value");
        value = argv[++i];
      }
      if (arg == "-o" || arg == "--output") {
        if (output_given) throw std::invalid_argument("-o/--output given twice");
        options.output = value;
        output_given = true;
      } else if (arg.rfind("--", 0) != 0) {
        throw std::invalid_argument("unknown option " + arg + " (see edgewise --help)");
      } else {
        valued.emplace_back(arg, value);
      }
    }
  }
  // The filter first, wherever it was given, so the other options are its own.
  for (const auto& [arg, value] : valued) {
    if (arg != "--filter") continue;
    options.auto_method = value == kAutoFilter && !edgewise::denoise_methods(registry).empty();
    if (options.auto_method) {
      options.settings = edgewise::default_settings(registry.default_filter());
      options.denoise = edgewise::default_denoise(registry);
      options.given.emplace_back("filter", value);
    } else {
      apply_option(options, "filter", value, registry, backends);
    }
  }
  for (const auto& [arg, value] : valued)
    if (arg != "--filter" && !apply_option(options, arg.substr(2), value, registry, backends))
      throw std::invalid_argument("unknown option " + arg + " (see edgewise --help)");
  if (options.help || options.version) return options;
  if (options.inputs.empty()) throw std::invalid_argument("no input file given (see edgewise --help)");
  options.files.verbose = options.verbose;
  if (options.estimate_noise) {
    // A mode of the tool, not a filter: it reads the inputs and writes nothing.
    if (output_given) throw std::invalid_argument("--estimate-noise writes no file: -o/--output does not go with it");
    if (options.gui) throw std::invalid_argument("--estimate-noise cannot be combined with --gui");
    if (!options.extra_outputs.empty())
      throw std::invalid_argument("--" + std::string(kWritePrefix) + options.extra_outputs.begin()->first +
                                  " cannot be combined with --estimate-noise");
    return options;
  }
  if (options.output.empty()) throw std::invalid_argument("no output given: use -o OUTPUT");
  // apply_argument checks each value alone; this checks them together.
  const std::string error = edgewise::validate(options.settings.spec);
  if (!error.empty()) throw std::invalid_argument(error);
  options.run.backend = options.settings.backend;
  if (options.auto_method && options.gui)
    throw std::invalid_argument("--filter auto cannot be combined with --gui (its dialog shows one filter)");
  if (options.auto_method && !options.extra_outputs.empty())
    throw std::invalid_argument("--" + std::string(kWritePrefix) + options.extra_outputs.begin()->first +
                                " cannot be combined with --filter auto");
  if (options.gui) {
    if (options.inputs.size() != 1) throw std::invalid_argument("--gui takes exactly one input");
    if (!options.extra_outputs.empty())
      throw std::invalid_argument("--" + std::string(kWritePrefix) + options.extra_outputs.begin()->first +
                                  " cannot be combined with --gui");
  }
  for (const auto& [name, path] : options.extra_outputs) {
    if (!options.settings.spec.filter().find_output(name))
      throw std::invalid_argument("--" + std::string(kWritePrefix) + name + " needs --filter " +
                                  words(filter_names(registry.producers(name)), " or "));
    if (options.inputs.size() != 1)
      throw std::invalid_argument("--" + std::string(kWritePrefix) + name + " takes exactly one input");
  }
  return options;
}

std::vector<std::string> unused_options(const CliOptions& options, const edgewise::Registry& registry) {
  std::vector<std::string> notices;
  const edgewise::FilterInfo& chosen = options.settings.spec.filter();
  for (const auto& [flag, value] : options.given) {
    if (flag == "filter" || flag == "backend" || chosen.find_param(flag)) continue;
    std::vector<const edgewise::FilterInfo*> takers;
    for (const edgewise::FilterInfo* filter : registry.filters())
      if (filter->find_param(flag)) takers.push_back(filter);
    notices.push_back("--" + flag + " is an option of the " + words(filter_names(takers), " and ") +
                      " filter; ignored with --filter " + chosen.name);
  }
  return notices;
}

std::string help_text(const edgewise::Registry& registry, const edgewise::BackendList& backends) {
  const edgewise::BackendOptions backend_defaults;
  std::ostringstream out;
  out << "Usage: edgewise [OPTIONS] INPUT... -o OUTPUT\n"
         "       edgewise --gui [OPTIONS] INPUT -o OUTPUT\n"
         "       edgewise --estimate-noise [--verbose] INPUT...\n"
      << wrap("Edge-preserving denoising (filters: " + words(filter_names(registry.filters()), ", ") + ").", 0) << "\n"
      << wrap(
             "Reads PNG, JPEG and TIFF: 8 or 16 bits per sample, grey or RGB, with or without alpha. "
             "The output keeps the input's bit depth and channels; its format follows OUTPUT's extension "
             "(.png, .jpg/.jpeg, .tif/.tiff). JPEG holds only 8-bit grey or RGB, so 16-bit or alpha "
             "images are refused rather than reduced. With several inputs, or when OUTPUT is an existing "
             "directory, each result is written there under its input's file name and format.",
             0);
  describe_filters(out, registry);
  out << "\nRun options:\n"
      << "  --backend " << join(edgewise::backend_choices(backends), "|") << "\n"
      << wrap(
             "auto uses a usable GPU and the CPU otherwise, and reruns on the CPU when the GPU fails; naming "
             "a backend fails when it is not usable. Default auto.")
      << "  --threads N\n"
      << wrap("CPU threads, 0 = all cores. Default " + std::to_string(backend_defaults.threads) + ".")
      << "  --gpu-memory MB\n"
      << wrap("GPU memory one job may use, in MiB; larger images are streamed in bands. Default " +
              std::to_string(backend_defaults.gpu_memory_budget >> 20) + ".");
  for (const edgewise::FilterOutputInfo* output : registry.outputs())
    out << "  --" << kWritePrefix << output->name << " FILE\n"
        << wrap(std::string("With --filter ") + words(filter_names(registry.producers(output->name)), " or ") +
                " and one input: also write " + output->help + ", 16 bits per sample. PNG or TIFF.");
  out << "\nFile options:\n"
      << "  --max-pixels N\n"
      << wrap(
             "Refuse an input whose header declares more pixels than this, before any memory is taken for it. "
             "Default " +
             std::to_string(ReadLimits{}.max_pixels) + ".")
      << "  --overwrite\n"
      << wrap(
             "Allow an output to replace one of the inputs (the results go where the originals were). "
             "Without it such a job is refused before anything is read.")
      << "  --fail-fast\n"
      << wrap(
             "Stop the batch at the first file that fails. Without it the other files are still done, and "
             "a summary names the files that failed.")
      << "  --strip-metadata\n"
      << wrap(
             "Write the results without the inputs' metadata (EXIF, XMP, IPTC, ICC profile, resolution, "
             "PNG text), which are otherwise kept.")
      << "  --jpeg-quality N\n"
      << wrap("JPEG quality 1 to 100. Default: the input's estimated quality for JPEG to JPEG, else 95.")
      << "  --png-compression N\n"
      << wrap("PNG compression level 0 (none, fastest) to 9 (smallest). Default " +
              std::to_string(kDefaultPngCompression) + ".")
      << "  --tiff-compression none|deflate|lzw|zstd\n"
      << wrap("TIFF compression, with a predictor (floating-point for float samples). Default deflate.")
      << "\nNoise estimation:\n"
      << "  --estimate-noise\n"
      << wrap(
             "Filter nothing and write nothing: print each input's noise level, one line a file, separated by "
             "tabs: the path, then the noise sigma of each colour channel in code values of the 8-bit scale "
             "(whatever the file's bit depth), then their median: PATH R=5.12 G=4.98 B=5.30 median=5.12 "
             "(grey=... for a grey image; - for a channel without an area flat enough to measure). Alpha is "
             "not measured and transparent pixels are ignored. Texture and edges are told from noise by "
             "weak-texture blocks (Liu, Tanaka & Okutomi 2013) measured with Immerkaer's kernel; a photo of "
             "texture only cannot be measured and fails. --threads, --max-pixels and --fail-fast apply.")
      << "  --verbose\n"
      << wrap(
             "With --estimate-noise: after each file's line, one line per channel holding its noise level "
             "function, since camera noise grows with brightness: the noise sigma in intensity bins, each as "
             "intensity:sigma in code values (- where a bin has too little flat area). When filtering, on "
             "standard error: for each file, the seconds it took to read, filter (and on which backend) and "
             "write, and the noise the auto values started from and the values they took.")
      << "\nOther options:\n";
  out << "  --gui\n"
      << wrap(
             "Open the filter dialog with a live preview of INPUT; OK filters and writes OUTPUT, Cancel "
             "writes nothing. It starts from the dialog's last values, with the filter options given here "
             "applied over them; the values chosen are kept for next time in "
             "$XDG_CONFIG_HOME/edgewise/dialog.args (~/.config/edgewise/dialog.args). Needs a display.")
      << "  --band-rows N\n"
      << wrap(
             "Debugging: output rows per band, 0 = from the backend's memory budget. Results do not depend "
             "on it. Default 0.")
      << "  -o, --output PATH\n"
      << wrap("Output file, or directory (required for several inputs).") << "  -h, --help\n"
      << wrap("Print this text and exit.") << "  --version\n"
      << wrap("Print the version and, for each backend (CPU, CUDA), whether this build has it and whether it can run "
              "here, and exit.") << "  --\n"
      << wrap("Everything after it is an input, even when it starts with '-'.")
      << "\nOptions take their value as --flag VALUE or --flag=VALUE.\n\n"
      << wrap(
             "Before anything is read, every input is checked to be a PNG, JPEG or TIFF file, and every "
             "output name, directory and collision with an input or another output. Then each file "
             "is read, filtered and written in turn (the next file read and the last one written "
             "while one is filtered); a file that fails is reported and the others are still done "
             "(unless --fail-fast), and a summary names the files that failed. Each output is "
             "complete or absent: it is written to an unnamed file (or a hidden temporary one that "
             "SIGINT, SIGTERM and SIGHUP remove) and renamed into place. Metadata (EXIF, XMP, IPTC, "
             "ICC profile, resolution, PNG text) is carried over unless --strip-metadata. A "
             "progress line appears on stderr for jobs longer than half a second (a terminal) or "
             "ten seconds (a log).",
             0)
      << "\nExit status: 0 success; 1 a file, image or backend error (in a batch: any file\n"
         "failed); 2 a usage error\n"
         "(unknown option, bad parameter value, missing input or output); 3 the dialog\n"
         "(--gui) was cancelled and nothing was written.\n";
  return out.str();
}

}  // namespace edgewise_cli
