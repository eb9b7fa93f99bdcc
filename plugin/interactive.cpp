#include "interactive.h"

#ifdef EDGEWISE_HAVE_DIALOG
#include "drawable_port.h"
#include "filter_dialog.h"
#endif

namespace edgewise_plugin {

#ifdef EDGEWISE_HAVE_DIALOG

DialogOutcome ask_user(gint32 drawable, Procedure procedure, Request& request, std::string& error) {
  if (!edgewise_dialog::open_display(error)) return DialogOutcome::failed;
  edgewise_dialog::Settings settings;
  settings.spec = request.spec;
  settings.backend = edgewise::BackendChoice(request.backend);
  edgewise_dialog::DialogOptions options;
  options.title = procedure == Procedure::adaptive ? "Edgewise Adaptive" : "Edgewise Bilateral";
  options.filter_locked = true;  // each menu entry is one filter
  // In front of the image window the filter was chosen from, as
  // libgimpui's gimp_window_set_transient() does for GTK 2 dialogs.
  options.parent_window = static_cast<unsigned long>(gimp_progress_get_window_handle());
  DrawablePort port(drawable);
  if (!edgewise_dialog::run_filter_dialog(port, settings, options)) return DialogOutcome::cancelled;
  request.spec = settings.spec;
  request.backend = int(settings.backend);
  return DialogOutcome::ok;
}

#else

DialogOutcome ask_user(gint32, Procedure, Request&, std::string&) {
  return DialogOutcome::ok;  // no dialog in this build: the last values
}

#endif

}  // namespace edgewise_plugin
