#include "gui.h"

#include <cstdio>
#include <stdexcept>

#include "atomic_file.h"
#include "buffer_port.h"
#include "dialog_memory.h"
#include "dialog_trace.h"
#include "filter_dialog.h"

namespace edgewise_cli {

int run_gui(std::vector<Job>& jobs, const CliOptions& options) {
  std::string why_not;
  if (!edgewise_dialog::open_display(why_not)) throw std::runtime_error("--gui: " + why_not);
  Job& job = jobs.at(0);
  if (job.image.bytes.empty()) job.image = read_image(job.input, options.files.limits);

  // The last values, then what the command line says.
  std::string notice;
  edgewise::Settings settings = load_dialog_memory(notice);
  if (!notice.empty()) std::fprintf(stderr, "edgewise: %s\n", notice.c_str());
  // The filter first, wherever it was given, as parse_options applies them.
  for (bool filter : {true, false})
    for (const auto& [flag, value] : options.given) {
      if ((flag == "filter") != filter) continue;
      const std::string error = edgewise::apply_argument(settings, flag, value);
      if (!error.empty()) throw std::invalid_argument(error);  // parse_options accepted it alone
    }
  if (!edgewise::validate(settings.spec).empty()) settings = options.settings;  // stored and given values clash

  edgewise_dialog::BufferPort port(view(job.image));
  const std::unique_ptr<edgewise_dialog::DialogObserver> trace = edgewise_dialog::trace_from_environment();
  edgewise_dialog::DialogOptions dialog;
  dialog.title = "Edgewise — " + file_name_of(job.input);
  dialog.observer = trace.get();
  if (!edgewise_dialog::run_filter_dialog(port, settings, dialog)) {
    std::fprintf(stderr, "edgewise: cancelled; nothing written\n");
    return kExitCancelled;
  }
  notice = save_dialog_memory(settings);
  if (!notice.empty()) std::fprintf(stderr, "edgewise: %s\n", notice.c_str());
  edgewise::RunOptions run = options.run;
  run.backend = settings.backend;
  const BatchReport report = run_jobs(jobs, settings.spec, run, {}, options.files);
  return report.failed.empty() ? kExitOk : kExitFailure;
}

}  // namespace edgewise_cli
