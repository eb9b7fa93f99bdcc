// edgewise: the command line. Arguments and files here; filtering in core/.
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "engine.h"
#include "gui.h"
#include "jobs.h"
#include "options.h"

#ifndef EDGEWISE_VERSION
#define EDGEWISE_VERSION "unknown"
#endif

namespace {

using namespace edgewise_cli;

int fail(const char* message, int status) {
  std::fprintf(stderr, "edgewise: %s\n", message);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CliOptions options;
  try {
    options = parse_options(argc, argv);
  } catch (const std::invalid_argument& error) {
    return fail(error.what(), kExitUsage);
  }
  if (options.help) {
    std::fputs(help_text().c_str(), stdout);
    return kExitOk;
  }
  if (options.version) {
    std::printf("edgewise %s\nCUDA: %s\n", EDGEWISE_VERSION, edgewise::describe_cuda_device().c_str());
    return kExitOk;
  }
  try {
    std::vector<Job> jobs = plan_jobs(options.inputs, options.output);
    if (options.gui) return run_gui(jobs, options);
    if (!options.sigma_map.empty()) {  // checked before anything is filtered or written
      const FileFormat format = format_for_output(options.sigma_map);
      if (format == FileFormat::jpeg) throw std::runtime_error(options.sigma_map + ": the sigma map is 16-bit; write PNG or TIFF");
    }
    run_jobs(jobs, options.spec, options.run, options.sigma_map);
    return kExitOk;
  } catch (const std::exception& error) {  // std::runtime_error, edgewise::BackendError, ...
    return fail(error.what(), kExitFailure);
  }
}
