#include "interactive.h"

#ifdef EDGEWISE_HAVE_DIALOG
#include "denoise_dialog.h"
#include "denoise_procedure.h"
#include "dialog_trace.h"
#include "drawable_port.h"
#include "filter_dialog.h"
#include "gimp_theme.h"
#include "pdb_layout.h"
#endif

namespace edgewise_plugin {

#ifdef EDGEWISE_HAVE_DIALOG

namespace {

// GIMP's configured theme (its gimprc "theme" in its "theme-path", asked
// through libgimp) as a light or dark variant of the dialog's GTK 3 theme.
edgewise_dialog::ThemeVariant gimp_theme_variant() {
  gchar* name = gimp_gimprc_query("theme");
  gchar* path = gimp_gimprc_query("theme-path");
  const ThemeTone tone = name && path ? theme_tone_in_path(name, path) : ThemeTone::unknown;
  g_free(name);
  g_free(path);
  switch (tone) {
    case ThemeTone::dark:
      return edgewise_dialog::ThemeVariant::dark;
    case ThemeTone::light:
      return edgewise_dialog::ThemeVariant::light;
    default:
      return edgewise_dialog::ThemeVariant::desktop;
  }
}

}  // namespace

DialogOutcome ask_user(gint32 drawable, edgewise::Settings& settings, int version, std::string& error) {
  if (!edgewise_dialog::open_display(error)) return DialogOutcome::failed;
  const std::unique_ptr<edgewise_dialog::DialogObserver> trace = edgewise_dialog::trace_from_environment();
  edgewise_dialog::DialogOptions options;
  options.title = settings.spec.filter().title;
  options.filter_locked = true;  // each menu entry is one filter
  options.observer = trace.get();
  options.theme = gimp_theme_variant();
  for (const edgewise::ParamInfo* info : newer_params(settings.spec.filter(), version))
    options.hidden_params.push_back(info->cli_flag);
  // In front of the image window the filter was chosen from, as
  // libgimpui's gimp_window_set_transient() does for GTK 2 dialogs.
  options.parent_window = static_cast<unsigned long>(gimp_progress_get_window_handle());
  DrawablePort port(drawable);
  edgewise::Settings chosen = settings;
  if (!edgewise_dialog::run_filter_dialog(port, chosen, options)) return DialogOutcome::cancelled;
  settings = chosen;
  return DialogOutcome::ok;
}

DialogOutcome ask_user_denoise(gint32 drawable, edgewise::DenoiseSettings& denoise, std::string& error) {
  if (!edgewise_dialog::open_display(error)) return DialogOutcome::failed;
  const std::unique_ptr<edgewise_dialog::DialogObserver> trace = edgewise_dialog::trace_from_environment();
  edgewise_dialog::DialogOptions options;
  options.title = "Denoise (Edgewise)";
  options.observer = trace.get();
  options.theme = gimp_theme_variant();
  options.parent_window = static_cast<unsigned long>(gimp_progress_get_window_handle());
  DrawablePort port(drawable);
  edgewise::DenoiseSettings chosen = denoise;
  if (!edgewise_dialog::run_denoise_dialog(port, chosen, options)) return DialogOutcome::cancelled;
  denoise = chosen;
  return DialogOutcome::ok;
}

#else

DialogOutcome ask_user(gint32, edgewise::Settings&, int, std::string&) {
  return DialogOutcome::ok;  // no dialog in this build: the last values
}

DialogOutcome ask_user_denoise(gint32, edgewise::DenoiseSettings&, std::string&) { return DialogOutcome::ok; }

#endif

}  // namespace edgewise_plugin
