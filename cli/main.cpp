// edgewise: the command line. Arguments and files here; filtering in core/.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "atomic_file.h"
#include "engine.h"
#include "gui.h"
#include "jobs.h"
#include "noise_report.h"
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
    // Each backend: whether this build has it, and whether it runs here.
    std::printf("edgewise %s\n", EDGEWISE_VERSION);
    for (const auto& backend : edgewise::installed_backends()) {
      std::string description;
      const bool usable = backend->usable(description);
      if (!backend->built())
        std::printf("%s: not built in (%s)\n", backend->name().c_str(), description.c_str());
      else
        std::printf("%s: built in, %s: %s\n", backend->name().c_str(), usable ? "usable" : "not usable here",
                    description.c_str());
    }
    return kExitOk;
  }
  // A mode of the tool: it reads the inputs and writes nothing.
  if (options.estimate_noise) {
    try {
      if (!options.given.empty())
        std::fprintf(stderr, "edgewise: filter and backend options (--%s) are not used by --estimate-noise\n",
                     options.given.front().first.c_str());
      const BatchReport report =
          estimate_noise_of_files(options.inputs, options.files, options.verbose, options.run.backend_options.threads);
      if (options.inputs.size() > 1 && !report.failed.empty())
        std::fprintf(stderr, "edgewise: %s\n", summary(report, options.inputs.size()).c_str());
      return report.failed.empty() ? kExitOk : kExitFailure;
    } catch (const std::exception& error) {
      return fail(error.what(), kExitFailure);
    }
  }
  // The test hook: EDGEWISE_INJECT_GPU_FAILURE=oom|launch makes the GPU
  // fail part-way through each job (a simulated device where there is none).
  const edgewise::InjectedFailure failure = edgewise::parse_injected_failure(
      std::getenv("EDGEWISE_INJECT_GPU_FAILURE") ? std::getenv("EDGEWISE_INJECT_GPU_FAILURE") : "");
  const edgewise::BackendList failing = edgewise::with_injected_failure(edgewise::installed_backends(), failure);
  if (failure != edgewise::InjectedFailure::none) options.run.backends = &failing;
  install_cleanup_on_signals();
  try {
    // A backend named on the command line that cannot run fails the run
    // once, rather than once for each file (run_jobs checks it while the
    // first file decodes).
    if (options.gui && options.run.backend != "auto") {
      const edgewise::BackendList& list = options.run.backends ? *options.run.backends : edgewise::installed_backends();
      const edgewise::BackendProvider* provider = edgewise::find_backend(list, options.run.backend);
      std::string why_not;
      if (provider && !provider->usable(why_not))
        throw std::runtime_error(provider->name() + " backend requested but unavailable: " + why_not);
    }
    std::vector<Job> jobs = plan_jobs(options.inputs, options.output, options.files, options.extra_outputs);
    if (options.gui) return run_gui(jobs, options);
    for (const std::string& notice : unused_options(options)) std::fprintf(stderr, "edgewise: %s\n", notice.c_str());
    const BatchReport report = run_jobs(jobs, options.settings.spec, options.run, options.extra_outputs, options.files,
                                        options.auto_method ? &options.denoise : nullptr);
    // One input: its error line was the whole story. Several: say which failed.
    if (jobs.size() > 1 && !report.failed.empty())
      std::fprintf(stderr, "edgewise: %s\n", summary(report, jobs.size()).c_str());
    return report.failed.empty() ? kExitOk : kExitFailure;
  } catch (const std::exception& error) {  // std::runtime_error, edgewise::BackendError, ...
    return fail(error.what(), kExitFailure);
  }
}
