#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace edgewise_cli {

namespace {

long parse_integer(const std::string& flag, const std::string& text, long min_value, long max_value) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < min_value || value > max_value)
    throw std::invalid_argument("invalid " + flag + " '" + text + "': expected an integer from " +
                                std::to_string(min_value) + " to " + std::to_string(max_value));
  return value;
}

// Applies one option that takes a value; false when flag is not one.
bool apply_option(CliOptions& options, const std::string& flag, const std::string& value) {
  if (flag == "backend") {
    std::string error;
    options.run.backend = edgewise::parse_backend(value, error);
    if (!error.empty()) throw std::invalid_argument(error);
    options.given.emplace_back(flag, value);
  } else if (flag == "threads") {
    options.run.backend_options.threads = int(parse_integer("threads", value, 0, 4096));
  } else if (flag == "gpu-memory") {
    options.run.backend_options.gpu_memory_budget = size_t(parse_integer("gpu-memory", value, 16, 1 << 24)) << 20;
  } else if (flag == "write-sigma") {
    options.sigma_map = value;
  } else if (flag == "band-rows") {
    options.run.plan_options.band_rows = int(parse_integer("band-rows", value, 0, 1 << 20));
  } else if (edgewise::find_param(flag)) {
    const std::string error = edgewise::set_param(options.spec, flag, value);
    if (!error.empty()) throw std::invalid_argument(error);
    options.given.emplace_back(flag, value);
  } else {
    return false;
  }
  return true;
}

// Indented, wrapped at 79 columns.
std::string wrap(const std::string& text, size_t indent = 6) {
  std::istringstream words(text);
  std::string out(indent, ' '), word;
  size_t column = indent;
  bool first = true;
  while (words >> word) {
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

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

void describe_param(std::ostream& out, const edgewise::ParamInfo& info) {
  std::string usage = std::string("  --") + info.cli_flag + " ";
  if (info.is_enum) {
    for (size_t i = 0; i < info.tokens.size(); ++i) usage += (i ? "|" : "") + std::string(info.tokens[i]);
  } else {
    usage += info.is_integer ? "N" : "F";
  }
  std::string text = info.help;
  if (info.unit[0]) text += std::string(", in ") + info.unit;
  text += ". Default ";
  if (info.is_enum) {
    text += info.default_token;
  } else {
    text += number(info.default_value) + ", range " + number(info.hard_min) + " to " + number(info.hard_max);
    if (info.is_integer) text += " (integer)";
  }
  out << usage << "\n" << wrap(text + ".");
}

}  // namespace

CliOptions parse_options(int argc, char** argv) {
  CliOptions options;
  bool options_ended = false;  // after "--" everything is an input
  bool output_given = false;
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
      } else if (arg.rfind("--", 0) != 0 || !apply_option(options, arg.substr(2), value)) {
        throw std::invalid_argument("unknown option " + arg + " (see edgewise --help)");
      }
    }
  }
  if (options.help || options.version) return options;
  if (options.inputs.empty()) throw std::invalid_argument("no input file given (see edgewise --help)");
  if (options.output.empty()) throw std::invalid_argument("no output given: use -o OUTPUT");
  // set_param checks each value alone; this checks them together.
  const std::string error = edgewise::validate(options.spec);
  if (!error.empty()) throw std::invalid_argument(error);
  if (options.gui) {
    if (options.inputs.size() != 1) throw std::invalid_argument("--gui takes exactly one input");
    if (!options.sigma_map.empty()) throw std::invalid_argument("--write-sigma cannot be combined with --gui");
  }
  if (!options.sigma_map.empty()) {
    if (options.spec.filter != edgewise::FilterKind::adaptive)
      throw std::invalid_argument("--write-sigma needs --filter adaptive");
    if (options.inputs.size() != 1) throw std::invalid_argument("--write-sigma takes exactly one input");
  }
  return options;
}

std::string help_text() {
  const edgewise::BackendOptions backend_defaults;
  std::ostringstream out;
  out << "Usage: edgewise [OPTIONS] INPUT... -o OUTPUT\n"
         "       edgewise --gui [OPTIONS] INPUT -o OUTPUT\n"
         "Edge-preserving denoising with the bilateral filter.\n\n"
      << wrap(
             "Reads PNG, JPEG and TIFF: 8 or 16 bits per sample, grey or RGB, with or without alpha. "
             "The output keeps the input's bit depth and channels; its format follows OUTPUT's extension "
             "(.png, .jpg/.jpeg, .tif/.tiff). JPEG holds only 8-bit grey or RGB, so 16-bit or alpha "
             "images are refused rather than reduced. With several inputs, or when OUTPUT is an existing "
             "directory, each result is written there under its input's file name and format.",
             0)
      << "\nFilter options:\n";
  for (const auto& info : edgewise::param_table()) describe_param(out, info);
  out << "\nAdaptive filter options (--filter adaptive):\n"
      << wrap("Per pixel, sigma-r' = clamp(k (sqrt(v) + eps), min, max) replaces sigma-r, v being the "
              "bilateral-weighted local variance. Normalized units: code values / 255, or Delta E / 100 "
              "in lab mode.",
              0);
  for (const auto& info : edgewise::adaptive_param_table()) describe_param(out, info);
  out << "\nRun options:\n"
         "  --backend auto|cpu|cuda\n"
      << wrap(
             "auto uses a CUDA GPU when one is usable and the CPU otherwise, and reruns on the CPU when "
             "the GPU fails; cuda fails when no GPU is usable. Default auto.")
      << "  --threads N\n"
      << wrap("CPU threads, 0 = all cores. Default " + std::to_string(backend_defaults.threads) + ".")
      << "  --gpu-memory MB\n"
      << wrap("GPU memory one job may use, in MiB; larger images are streamed in bands. Default " +
              std::to_string(backend_defaults.gpu_memory_budget >> 20) + ".")
      << "  --write-sigma FILE\n"
      << wrap("With --filter adaptive and one input: also write each pixel's sigma-r' as a 16-bit grey "
              "image (RGB in per-channel mode), scaled so that adapt-max is white. PNG or TIFF.")
      << "  --gui\n"
      << wrap("Open the filter dialog with a live preview of INPUT; OK filters and writes OUTPUT, Cancel "
              "writes nothing. It starts from the dialog's last values, with the filter options given here "
              "applied over them; the values chosen are kept for next time in "
              "$XDG_CONFIG_HOME/edgewise/dialog.args (~/.config/edgewise/dialog.args). Needs a display.")
      << "  --band-rows N\n"
      << wrap("Debugging: rows per CPU band, 0 = automatic. Results do not depend on it. Default 0.")
      << "  -o, --output PATH\n"
      << wrap("Output file, or directory (required for several inputs).") << "  -h, --help\n"
      << wrap("Print this text and exit.") << "  --version\n"
      << wrap("Print the version and exit.") << "  --\n"
      << wrap("Everything after it is an input, even when it starts with '-'.")
      << "\nOptions take their value as --flag VALUE or --flag=VALUE.\n\n"
      << wrap(
             "Every input is read and checked, and every output directory tested, before anything is "
             "written. Each result is written to a temporary file beside it and renamed into place, "
             "so an output file is either complete or untouched. A progress line appears on stderr "
             "for jobs longer than half a second (a terminal) or ten seconds (a log).",
             0)
      << "\nExit status: 0 success; 1 a file, image or backend error; 2 a usage error\n"
         "(unknown option, bad parameter value, missing input or output); 3 the dialog\n"
         "(--gui) was cancelled and nothing was written.\n";
  return out.str();
}

}  // namespace edgewise_cli
