// The Edgewise filter dialog (GTK 3), shared by the GIMP plug-in and the
// CLI's --gui: the registry's parameters as GIMP-style rows, the backend
// choice, live preview, Help, Reset, Cancel and OK. It only reads the image
// (ImagePort); the host applies the returned settings. Its own state (the
// preview's View and zoom, the window's size) travels in settings.dialog,
// so hosts keep it with the values.
#pragma once

#include <string>
#include <vector>

#include "backend.h"
#include "dialog_observer.h"
#include "filter_registry.h"
#include "image_port.h"
#include "settings.h"

namespace edgewise_dialog {

// Which variant of the GTK 3 theme the dialog takes: the desktop's choice
// (the CLI), or the light or dark one to match the host (GIMP's theme).
enum class ThemeVariant { desktop, light, dark };

struct DialogOptions {
  std::string title = "Edgewise";
  // GIMP's menu entries each name a filter: the dialog then offers only
  // that filter's controls (the settings' filter). The CLI lets the user choose.
  bool filter_locked = false;
  unsigned long parent_window = 0;               // an X11 window to stay in front of (GIMP's image window), 0 for none
  const edgewise::Registry* registry = nullptr;  // null: the built-in filters
  const edgewise::BackendList* backends = nullptr;  // null: the installed backends
  DialogObserver* observer = nullptr;               // may be null
  ThemeVariant theme = ThemeVariant::desktop;
  // Flags of parameters not offered (an older PDB procedure's newer ones).
  std::vector<std::string> hidden_params;
};

// Connects to the display (gtk_init_check). False, with the reason, when
// there is none.
bool open_display(std::string& why_not);

// Shows the dialog and waits for the user. True for OK with `settings`
// holding the choice; false for Cancel, Escape or closing the window, with
// `settings` unchanged.
bool run_filter_dialog(ImagePort& image, edgewise::Settings& settings, const DialogOptions& options);

}  // namespace edgewise_dialog
