// edgewise: the GIMP 2.10 plug-in. One PDB procedure per filter of the
// registry, registered in a loop from its row; run modes here, pixel I/O in
// drawable_io, the dialog in dialogs/, the filters in core/. Linked against
// libgimp only (not libgimpui): the dialog is GTK 3, which cannot share a
// process with libgimpui's GTK 2.
#include <libgimp/gimp.h>

#include <string>

#include "filter_drawable.h"
#include "filter_registry.h"
#include "interactive.h"
#include "pdb_params.h"

namespace {

using namespace edgewise_plugin;

const edgewise::FilterInfo* procedure_filter(const char* name) {
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters())
    if (std::string(name) == filter->pdb_procedure) return filter;
  return nullptr;
}

void query() {
  for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const PdbParams params(*filter, edgewise::installed_backends());
    gimp_install_procedure(filter->pdb_procedure, filter->pdb_blurb, params.help().c_str(), "Edgewise authors",
                           "Edgewise authors", "2026", filter->menu_label, "RGB*, GRAY*", GIMP_PLUGIN, params.count(),
                           0, params.defs(), nullptr);
    gimp_plugin_menu_register(filter->pdb_procedure, "<Image>/Filters/Enhance");
  }
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
  // GIMP turns a STRING after a failed status into the call's error message.
  const auto fail = [&](GimpPDBStatusType status, const std::string& message) {
    error = message;
    values[0].data.d_status = status;
    values[1].type = GIMP_PDB_STRING;
    values[1].data.d_string = const_cast<gchar*>(error.c_str());
    *nreturn_vals = 2;
  };

  const edgewise::FilterInfo* filter = procedure_filter(name);
  if (!filter || nparams < kFixedArgs) return fail(GIMP_PDB_CALLING_ERROR, "expected run-mode, image and drawable");
  gegl_init(nullptr, nullptr);
  gimp_plugin_enable_precision();
  const auto run_mode = GimpRunMode(param[0].data.d_int32);
  const gint32 drawable = param[2].data.d_drawable;

  edgewise::Settings settings = edgewise::default_settings(*filter);
  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    const std::string message = parse_args(*filter, edgewise::installed_backends(), nparams, param, settings);
    if (!message.empty()) return fail(GIMP_PDB_CALLING_ERROR, message);
  } else {
    std::vector<std::string> problems;
    settings = load_last_values(*filter, problems);
    for (const std::string& problem : problems) g_message("Edgewise: last values: %s", problem.c_str());
    if (run_mode == GIMP_RUN_INTERACTIVE) {
      if (gimp_drawable_is_indexed(drawable))  // before the dialog, not after it
        return fail(GIMP_PDB_EXECUTION_ERROR,
                    "Edgewise filters RGB and grey images; convert indexed images first (Image > Mode > RGB)");
      std::string message;
      switch (ask_user(drawable, settings, message)) {
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
  if (run_mode != GIMP_RUN_NONINTERACTIVE) gimp_displays_flush();
}

}  // namespace

// MAIN() defines main() around this table; libgimp requires it global.
const GimpPlugInInfo PLUG_IN_INFO = {nullptr, nullptr, query, run};

MAIN()
