// edgewise: the GIMP 2.10 plug-in. PDB registration and run modes here;
// pixel I/O in drawable_io, the dialog in dialogs/, the filter in core/.
// Linked against libgimp only (not libgimpui): the dialog is GTK 3, which
// cannot share a process with libgimpui's GTK 2.
#include <libgimp/gimp.h>

#include <string>

#include "filter_drawable.h"
#include "interactive.h"
#include "last_values.h"
#include "pdb_params.h"

namespace {

using namespace edgewise_plugin;

const char* kBilateral = "plug-in-edgewise-bilateral";
const char* kAdaptive = "plug-in-edgewise-adaptive";

void install(const char* name, Procedure procedure, const char* blurb, const char* what, const char* menu_label) {
  const PdbParams params(procedure);
  const std::string help = std::string("Edge-preserving denoising with ") + what +
                           ", on the selection (or the whole drawable), at the image's own precision. "
                           "Arguments:\n" +
                           params.help();
  gimp_install_procedure(name, blurb, help.c_str(), "Edgewise authors", "Edgewise authors", "2026", menu_label,
                         "RGB*, GRAY*", GIMP_PLUGIN, params.count(), 0, params.defs(), nullptr);
  gimp_plugin_menu_register(name, "<Image>/Filters/Enhance");
}

void query() {
  install(kBilateral, Procedure::bilateral, "Edge-preserving denoising (bilateral filter)",
          "the exact bilateral filter", "Edgewise _Bilateral...");
  install(kAdaptive, Procedure::adaptive, "Edge-preserving denoising (variance-adaptive bilateral filter)",
          "the variance-adaptive bilateral filter (sigma-r follows the local deviation)", "Edgewise _Adaptive...");
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

  const bool adaptive = std::string(name) == kAdaptive;
  if ((!adaptive && std::string(name) != kBilateral) || nparams < kFixedArgs)
    return fail(GIMP_PDB_CALLING_ERROR, "expected run-mode, image and drawable");
  const char* procedure_name = adaptive ? kAdaptive : kBilateral;
  const Procedure procedure = adaptive ? Procedure::adaptive : Procedure::bilateral;
  gegl_init(nullptr, nullptr);
  gimp_plugin_enable_precision();
  const auto run_mode = GimpRunMode(param[0].data.d_int32);
  const gint32 drawable = param[2].data.d_drawable;

  Request request;
  if (run_mode == GIMP_RUN_NONINTERACTIVE) {
    const std::string message = parse_args(procedure, nparams, param, request);
    if (!message.empty()) return fail(GIMP_PDB_CALLING_ERROR, message);
  } else {
    request = load_last_values(procedure_name);
    request.spec.filter = adaptive ? edgewise::FilterKind::adaptive : edgewise::FilterKind::bilateral;
    if (run_mode == GIMP_RUN_INTERACTIVE) {
      if (gimp_drawable_is_indexed(drawable))  // before the dialog, not after it
        return fail(GIMP_PDB_EXECUTION_ERROR,
                    "Edgewise filters RGB and grey images; convert indexed images first (Image > Mode > RGB)");
      std::string message;
      switch (ask_user(drawable, procedure, request, message)) {
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
  const std::string message = filter_drawable(drawable, request);
  if (!message.empty()) return fail(GIMP_PDB_EXECUTION_ERROR, message);
  store_last_values(procedure_name, request);
  if (run_mode != GIMP_RUN_NONINTERACTIVE) gimp_displays_flush();
}

}  // namespace

// MAIN() defines main() around this table; libgimp requires it global.
const GimpPlugInInfo PLUG_IN_INFO = {nullptr, nullptr, query, run};

MAIN()
