#include "options.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace edgewise_cli {

namespace {

int parse_int(const std::string& flag, const std::string& text, int min_value) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < min_value || value > 1 << 20)
    throw std::invalid_argument("invalid " + flag + " '" + text + "': expected an integer >= " +
                                std::to_string(min_value));
  return int(value);
}

}  // namespace

CliOptions parse_options(int argc, char** argv) {
  CliOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      continue;
    }
    if (arg == "--version") {
      options.version = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      options.inputs.push_back(arg);
      continue;
    }
    // --flag=value or --flag value
    std::string value;
    bool has_value = false;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw std::invalid_argument("option " + arg + " needs a value");
      return argv[++i];
    };
    const std::string flag = arg.rfind("--", 0) == 0 ? arg.substr(2) : arg.substr(1);
    if (arg == "-o" || arg == "--output") {
      options.output = take_value();
    } else if (flag == "backend") {
      std::string error;
      options.run.backend = edgewise::parse_backend(take_value(), error);
      if (!error.empty()) throw std::invalid_argument(error);
    } else if (flag == "threads") {
      options.run.backend_options.threads = parse_int("threads", take_value(), 0);
    } else if (flag == "gpu-memory") {
      options.run.backend_options.gpu_memory_budget = size_t(parse_int("gpu-memory", take_value(), 16)) << 20;
    } else if (flag == "band-rows") {
      options.run.plan_options.band_rows = parse_int("band-rows", take_value(), 0);
    } else if (arg.rfind("--", 0) == 0 && edgewise::find_param(flag)) {
      const std::string error = edgewise::set_param(options.spec, flag, take_value());
      if (!error.empty()) throw std::invalid_argument(error);
    } else {
      throw std::invalid_argument("unknown option " + arg + " (see edgewise --help)");
    }
  }
  return options;
}

std::string help_text() {
  std::ostringstream out;
  out << "Usage: edgewise [OPTIONS] INPUT... -o OUTPUT\n"
         "Edge-preserving denoising with the exact bilateral filter.\n"
         "PNG, JPEG and TIFF, 8 or 16 bits, grey or RGB, with or without alpha;\n"
         "the output keeps the input's bit depth and channels. With several inputs\n"
         "OUTPUT is a directory and each result keeps its input's file name.\n\n"
         "Filter options:\n";
  for (const auto& info : edgewise::param_table()) {
    std::string left = std::string("  --") + info.cli_flag + " ";
    if (info.is_enum) {
      for (size_t i = 0; i < info.tokens.size(); ++i) left += (i ? "|" : "") + std::string(info.tokens[i]);
    } else {
      left += info.is_integer ? "N" : "F";
    }
    out << left << "\n      " << info.help;
    if (info.unit[0]) out << " [" << info.unit << "]";
    out << "\n      default ";
    if (info.is_enum) {
      out << info.default_token;
    } else {
      out << info.default_value << ", range " << info.hard_min << " to " << info.hard_max;
    }
    out << "\n";
  }
  out << "\nRun options:\n"
         "  --backend auto|cpu|cuda\n"
         "      auto uses a CUDA GPU when one is usable and the CPU otherwise (or when\n"
         "      the GPU fails); cuda fails when no GPU is usable. default auto\n"
         "  --threads N\n      CPU threads, 0 = all cores. default 0\n"
         "  --gpu-memory MB\n      GPU memory a job may use; larger images stream in bands. default 1024\n"
         "  --band-rows N\n      rows per CPU band (0 = automatic); results do not depend on it. default 0\n"
         "  -o, --output PATH\n      output file (format from its extension), or a directory for several inputs\n"
         "  -h, --help       this text\n"
         "  --version        print the version\n\n"
         "Exit status: 0 success, 1 a file or filter error, 2 a usage error.\n"
         "Nothing is written unless every input was read and filtered; results are\n"
         "written to a temporary file and renamed into place.\n";
  return out.str();
}

}  // namespace edgewise_cli
