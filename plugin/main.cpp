// edgewise: the GIMP 2.10 plug-in. PDB procedures per filter of the
// registry, registered in a loop from its row (pdb_layout.h: the published
// procedure and one per later version of its arguments); run modes here,
// the refusals in drawable_checks, pixel I/O in drawable_io, the dialog in
// dialogs/, the filters in core/. Linked against libgimp only (not
// libgimpui): the dialog is GTK 3, which cannot share a process with
// libgimpui's GTK 2.
#include <libgimp/gimp.h>

#include <string>

#include "drawable_checks.h"
#include "filter_drawable.h"
#include "filter_registry.h"
#include "interactive.h"
#include "pdb_params.h"

namespace {

using namespace edgewise_plugin;

void query() {
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    // The menu entry runs the newest version (the dialog, Repeat and Re-Show
    // then use every parameter); the older ones stay for scripts.
    const int newest = pdb_versions(*filter);
    for (int version = 1; version <= newest; ++version) {
      const PdbParams params(*filter, edgewise::installed_backends(), version);
      const std::string name = procedure_name(*filter, version);
      gimp_install_procedure(name.c_str(), filter->pdb_blurb, params.help().c_str(), "Edgewise authors",
                             "Edgewise authors", "2026", version == newest ? filter->menu_label : nullptr,
                             "RGB*, GRAY*", GIMP_PLUGIN, params.count(), 0, params.defs(), nullptr);
      if (version == newest) gimp_plugin_menu_register(name.c_str(), "<Image>/Filters/Enhance");
    }
  }
}

// The last dialog state (view, zoom, size) survives runs without the dialog.
void keep_dialog_state(const edgewise::FilterInfo& filter, edgewise::Settings& settings) {
  std::vector<std::string> ignored;
  if (settings.dialog.empty()) settings.dialog = load_last_values(filter, ignored).dialog;
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
  bool interactive = false;
  // GIMP turns a STRING after a failed status into the call's error message;
  // a user who chose the filter from a menu also gets it in a message box.
  const auto fail = [&](GimpPDBStatusType status, const std::string& message) {
    error = message;
    values[0].data.d_status = status;
    values[1].type = GIMP_PDB_STRING;
    values[1].data.d_string = const_cast<gchar*>(error.c_str());
    *nreturn_vals = 2;
    if (interactive) g_message("%s", message.c_str());
  };

  const edgewise::FilterInfo* filter = nullptr;
  int version = 1;
  if (!find_procedure(edgewise::builtin_registry(), name, filter, version) || nparams < kFixedArgs)
    return fail(GIMP_PDB_CALLING_ERROR, "expected run-mode, image and drawable");
  const std::string bad_mode = check_run_mode(param[0].data.d_int32);
  if (!bad_mode.empty()) return fail(GIMP_PDB_CALLING_ERROR, bad_mode);
  const auto run_mode = GimpRunMode(param[0].data.d_int32);
  interactive = run_mode != GIMP_RUN_NONINTERACTIVE;  // the menu, Repeat and Re-Show
  const gint32 drawable = param[2].data.d_drawable;
  // Failed PDB calls come back here with their message (gimp_get_pdb_error)
  // instead of GIMP's own "Calling error" box: the caller gets one error.
  gimp_plugin_set_pdb_error_handler(GIMP_PDB_ERROR_HANDLER_PLUGIN);

  edgewise::Settings settings = edgewise::default_settings(*filter);
  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    const std::string message = parse_args(*filter, edgewise::installed_backends(), version, nparams, param, settings);
    if (!message.empty()) return fail(GIMP_PDB_CALLING_ERROR, message);
  }
  // Before any work and before the dialog.
  if (const Refusal refusal = check_drawable(drawable)) return fail(refusal.status, refusal.message);
  gegl_init(nullptr, nullptr);
  gimp_plugin_enable_precision();

  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    keep_dialog_state(*filter, settings);
  } else {
    std::vector<std::string> problems;
    settings = load_last_values(*filter, problems);
    for (const std::string& problem : problems) g_message("Edgewise: last values: %s", problem.c_str());
    keep_to_version(settings, version);  // an older procedure runs as it was published
    if (run_mode == GIMP_RUN_INTERACTIVE) {
      std::string message;
      switch (ask_user(drawable, settings, version, message)) {
        case DialogOutcome::cancelled:
          values[0].data.d_status = GIMP_PDB_CANCEL;
          return;
        case DialogOutcome::failed:
          return fail(GIMP_PDB_EXECUTION_ERROR, message);
        case DialogOutcome::ok:
          break;
      }
    }
  }
  const std::string message = filter_drawable(drawable, settings);
  if (!message.empty()) return fail(GIMP_PDB_EXECUTION_ERROR, message);
  store_last_values(*filter, settings);
  if (run_mode != GIMP_RUN_NONINTERACTIVE && !gimp_displays_flush()) {
    const std::string why = gimp_get_pdb_error();
    return fail(GIMP_PDB_EXECUTION_ERROR, "the image was filtered, but GIMP did not redraw it: " + why);
  }
}

}  // namespace

// MAIN() defines main() around this table; libgimp requires it global.
const GimpPlugInInfo PLUG_IN_INFO = {nullptr, nullptr, query, run};

MAIN()
