// edgewise: the command line. Arguments and files here; filtering in core/.
#include <cstdio>
#include <cstdlib>
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
    std::printf("edgewise %s\n", EDGEWISE_VERSION);
    for (const auto& backend : edgewise::installed_backends()) {
      std::string description;
      backend->usable(description);
      std::printf("%s: %s\n", backend->name().c_str(), description.c_str());
    }
    return kExitOk;
  }
  // The test hook: EDGEWISE_INJECT_GPU_FAILURE=oom|launch makes the GPU
  // fail part-way through each job (a simulated device where there is none).
  const edgewise::InjectedFailure failure = edgewise::parse_injected_failure(
      std::getenv("EDGEWISE_INJECT_GPU_FAILURE") ? std::getenv("EDGEWISE_INJECT_GPU_FAILURE") : "");
  const edgewise::BackendList failing = edgewise::with_injected_failure(edgewise::installed_backends(), failure);
  if (failure != edgewise::InjectedFailure::none) options.run.backends = &failing;
  try {
    std::vector<Job> jobs = plan_jobs(options.inputs, options.output, options.files);
    if (options.gui) return run_gui(jobs, options);
    for (const std::string& notice : unused_options(options)) std::fprintf(stderr, "edgewise: %s\n", notice.c_str());
    for (const auto& [name, path] : options.extra_outputs)  // checked before anything is filtered or written
      if (format_for_output(path) == FileFormat::jpeg)
        throw std::runtime_error(path + ": the " + name + " image is 16-bit; write PNG or TIFF");
    run_jobs(jobs, options.settings.spec, options.run, options.extra_outputs, options.files);
    return kExitOk;
  } catch (const std::exception& error) {  // std::runtime_error, edgewise::BackendError, ...
    return fail(error.what(), kExitFailure);
  }
}
