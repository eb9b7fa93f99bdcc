#include "interactive.h"

#ifdef EDGEWISE_HAVE_DIALOG
#include "dialog_trace.h"
#include "drawable_port.h"
#include "filter_dialog.h"
#endif

namespace edgewise_plugin {

#ifdef EDGEWISE_HAVE_DIALOG

DialogOutcome ask_user(gint32 drawable, edgewise::Settings& settings, std::string& error) {
  if (!edgewise_dialog::open_display(error)) return DialogOutcome::failed;
  const std::unique_ptr<edgewise_dialog::DialogObserver> trace = edgewise_dialog::trace_from_environment();
  edgewise_dialog::DialogOptions options;
  options.title = settings.spec.filter().title;
  options.filter_locked = true;  // each menu entry is one filter
  options.observer = trace.get();
  // In front of the image window the filter was chosen from, as
  // libgimpui's gimp_window_set_transient() does for GTK 2 dialogs.
  options.parent_window = static_cast<unsigned long>(gimp_progress_get_window_handle());
  DrawablePort port(drawable);
  edgewise::Settings chosen = settings;
  if (!edgewise_dialog::run_filter_dialog(port, chosen, options)) return DialogOutcome::cancelled;
  settings = chosen;
  return DialogOutcome::ok;
}

#else

DialogOutcome ask_user(gint32, edgewise::Settings&, std::string&) {
  return DialogOutcome::ok;  // no dialog in this build: the last values
}

#endif

}  // namespace edgewise_plugin
