// edgewise: the GIMP 2.10 plug-in. The Denoise procedure, a photographer's
// one entry (Filters > Enhance > Denoise (Edgewise)..., denoise_procedure.h),
// and the PDB procedures of each filter of the registry in a submenu
// (Filters > Enhance > Edgewise methods), registered in a loop from its row
// (pdb_layout.h: the published procedure and one per later version of its
// arguments); run modes here, the refusals in drawable_checks, pixel I/O in
// drawable_io, the dialogs in dialogs/, the filters in core/. Linked against
// libgimp only (not libgimpui): the dialog is GTK 3, which cannot share a
// process with libgimpui's GTK 2.
#include <libgimp/gimp.h>

#include <string>

#include "denoise_procedure.h"
#include "drawable_checks.h"
#include "filter_drawable.h"
#include "filter_registry.h"
#include "interactive.h"
#include "pdb_params.h"
#include "progress.h"

namespace {

using namespace edgewise_plugin;

void query() {
  const edgewise::Registry& registry = edgewise::builtin_registry();
  const PdbParams denoise(denoise_arguments(registry), denoise_help(registry));
  gimp_install_procedure(kDenoiseProcedure, kDenoiseBlurb, denoise.help().c_str(), "Edgewise authors",
                         "Edgewise authors", "2026", kDenoiseMenuLabel, "RGB*, GRAY*", GIMP_PLUGIN, denoise.count(), 0,
                         denoise.defs(), nullptr);
  gimp_plugin_menu_register(kDenoiseProcedure, kEnhanceMenu);
  for (const edgewise::FilterInfo* filter : registry.filters()) {
    // The menu entry runs the newest version (the dialog, Repeat and Re-Show
    // then use every parameter); the older ones stay for scripts.
    const int newest = pdb_versions(*filter);
    for (int version = 1; version <= newest; ++version) {
      const PdbParams params(*filter, edgewise::installed_backends(), version);
      const std::string name = procedure_name(*filter, version);
      gimp_install_procedure(name.c_str(), filter->pdb_blurb, params.help().c_str(), "Edgewise authors",
                             "Edgewise authors", "2026", version == newest ? filter->menu_label : nullptr,
                             "RGB*, GRAY*", GIMP_PLUGIN, params.count(), 0, params.defs(), nullptr);
      if (version == newest) gimp_plugin_menu_register(name.c_str(), kMethodsMenu);
    }
  }
}

// How a run ends: the status, and the message a failure gives the caller
// (GIMP turns a STRING after a failed status into the call's error message)
// and, when a user chose it from a menu, a message box.
struct Outcome {
  GimpPDBStatusType status = GIMP_PDB_SUCCESS;
  std::string message;
};

Outcome failed(GimpPDBStatusType status, const std::string& message) { return {status, message}; }

// The last dialog state (view, zoom, size) survives runs without the dialog.
void keep_dialog_state(const edgewise::FilterInfo& filter, edgewise::Settings& settings) {
  std::vector<std::string> ignored;
  if (settings.dialog.empty()) settings.dialog = load_last_values(filter, ignored).dialog;
}

// The image was changed from a menu: GIMP redraws it.
Outcome redraw(GimpRunMode run_mode) {
  if (run_mode != GIMP_RUN_NONINTERACTIVE && !gimp_displays_flush())
    return failed(GIMP_PDB_EXECUTION_ERROR,
                  std::string("the image was filtered, but GIMP did not redraw it: ") + gimp_get_pdb_error());
  return {};
}

// A filter's own procedure (any version).
Outcome run_filter_procedure(const edgewise::FilterInfo& filter, int version, GimpRunMode run_mode, gint32 drawable,
                             gint nparams, const GimpParam* param) {
  edgewise::Settings settings = edgewise::default_settings(filter);
  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    const std::string message = parse_args(filter, edgewise::installed_backends(), version, nparams, param, settings);
    if (!message.empty()) return failed(GIMP_PDB_CALLING_ERROR, message);
  }
  // Before any work and before the dialog.
  if (const Refusal refusal = check_drawable(drawable)) return failed(refusal.status, refusal.message);
  gegl_init(nullptr, nullptr);
  gimp_plugin_enable_precision();

  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    keep_dialog_state(filter, settings);
  } else {
    std::vector<std::string> problems;
    settings = load_last_values(filter, problems);
    for (const std::string& problem : problems) g_message("Edgewise: last values: %s", problem.c_str());
    keep_to_version(settings, version);  // an older procedure runs as it was published
    if (run_mode == GIMP_RUN_INTERACTIVE) {
      std::string message;
      switch (ask_user(drawable, settings, version, message)) {
        case DialogOutcome::cancelled:
          return {GIMP_PDB_CANCEL, ""};
        case DialogOutcome::failed:
          return failed(GIMP_PDB_EXECUTION_ERROR, message);
        case DialogOutcome::ok:
          break;
      }
    }
  }
  const std::string message = filter_drawable(drawable, settings);
  if (!message.empty()) return failed(GIMP_PDB_EXECUTION_ERROR, message);
  store_last_values(filter, settings);
  return redraw(run_mode);
}

// plug-in-edgewise-denoise: the method (or the recommended one) with its
// settings following the whole drawable's noise, scaled as asked.
Outcome run_denoise_procedure(GimpRunMode run_mode, gint32 drawable, gint nparams, const GimpParam* param) {
  std::vector<std::string> problems;
  edgewise::DenoiseSettings denoise = load_denoise_values(problems);
  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    // A script gets the method's defaults (Advanced as it ships), whatever
    // a dialog chose; only the dialog's own state is kept.
    edgewise::DenoiseSettings call = edgewise::default_denoise();
    call.settings.dialog = denoise.settings.dialog;
    const std::string message = parse_denoise_args(nparams, param, call);
    if (!message.empty()) return failed(GIMP_PDB_CALLING_ERROR, message);
    denoise = call;
  } else {
    for (const std::string& problem : problems) g_message("Edgewise: last values: %s", problem.c_str());
  }
  if (const Refusal refusal = check_drawable(drawable)) return failed(refusal.status, refusal.message);
  gegl_init(nullptr, nullptr);
  gimp_plugin_enable_precision();
  if (run_mode == GIMP_RUN_INTERACTIVE) {
    std::string message;
    switch (ask_user_denoise(drawable, denoise, message)) {
      case DialogOutcome::cancelled:
        return {GIMP_PDB_CANCEL, ""};
      case DialogOutcome::failed:
        return failed(GIMP_PDB_EXECUTION_ERROR, message);
      case DialogOutcome::ok:
        break;
    }
  }
  edgewise::NoiseEstimate measured;
  progress_init(kMeasuringNoise);  // the learned reading takes a moment on a large photo
  progress_pulse();
  std::string message = measure_drawable_noise(drawable, measured);
  if (!message.empty()) return failed(GIMP_PDB_EXECUTION_ERROR, message);
  const int colours = gimp_drawable_is_gray(drawable) ? 1 : 3;
  const edgewise::DenoiseJob job =
      edgewise::plan_denoise(denoise, measured, colours, edgewise::builtin_registry(),
                             edgewise::recommend_context(denoise.settings.backend, gimp_drawable_width(drawable),
                                                         gimp_drawable_height(drawable)));
  message = filter_drawable(drawable, job.settings, &job.noise, denoise_progress_text(*job.method));
  if (!message.empty()) return failed(GIMP_PDB_EXECUTION_ERROR, message);
  store_denoise_values(denoise);
  return redraw(run_mode);
}

void run(const gchar* name, gint nparams, const GimpParam* param, gint* nreturn_vals, GimpParam** return_vals) {
  // libgimp reads the return values after run() returns, so they (and the
  // error text they point to) must outlive this call: the one place where
  // the GIMP 2.10 plug-in protocol requires static storage.
  static GimpParam values[2];
  static std::string error;
  *return_vals = values;
  *nreturn_vals = 1;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = GIMP_PDB_SUCCESS;

  const edgewise::FilterInfo* filter = nullptr;
  int version = 1;
  const bool denoise = std::string(name) == kDenoiseProcedure;
  Outcome outcome;
  bool interactive = false;
  if ((!denoise && !find_procedure(edgewise::builtin_registry(), name, filter, version)) || nparams < kFixedArgs) {
    outcome = failed(GIMP_PDB_CALLING_ERROR, "expected run-mode, image and drawable");
  } else if (const std::string bad_mode = check_run_mode(param[0].data.d_int32); !bad_mode.empty()) {
    outcome = failed(GIMP_PDB_CALLING_ERROR, bad_mode);
  } else {
    const auto run_mode = GimpRunMode(param[0].data.d_int32);
    interactive = run_mode != GIMP_RUN_NONINTERACTIVE;  // the menu, Repeat and Re-Show
    // Failed PDB calls come back here with their message (gimp_get_pdb_error)
    // instead of GIMP's own "Calling error" box: the caller gets one error.
    gimp_plugin_set_pdb_error_handler(GIMP_PDB_ERROR_HANDLER_PLUGIN);
    const gint32 drawable = param[2].data.d_drawable;
    outcome = denoise ? run_denoise_procedure(run_mode, drawable, nparams, param)
                      : run_filter_procedure(*filter, version, run_mode, drawable, nparams, param);
  }
  values[0].data.d_status = outcome.status;
  if (outcome.status == GIMP_PDB_SUCCESS || outcome.status == GIMP_PDB_CANCEL) return;
  error = outcome.message;
  values[1].type = GIMP_PDB_STRING;
  values[1].data.d_string = const_cast<gchar*>(error.c_str());
  *nreturn_vals = 2;
  if (interactive) g_message("%s", error.c_str());
}

}  // namespace

// MAIN() defines main() around this table; libgimp requires it global.
const GimpPlugInInfo PLUG_IN_INFO = {nullptr, nullptr, query, run};

MAIN()
