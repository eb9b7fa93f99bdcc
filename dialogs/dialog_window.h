// What the filter dialog and the Denoise dialog share as windows: the
// host's light or dark look, staying in front of GIMP's image window,
// Return pressing OK from a focused list, and the Help window (the user
// guide, rendered with its images, then the dialog's controls).
#pragma once

#include <gtk/gtk.h>

#include <string>

#include "filter_dialog.h"

namespace edgewise_dialog {

// Before any widget is styled.
void apply_theme(ThemeVariant theme);

// An X11 window the dialog stays in front of (0: none).
void stay_in_front_of(GtkWidget* dialog, unsigned long parent_window);

// gtk_dialog_run without making the dialog modal, as GIMP's own
// gimp_dialog_run: a modal dialog is kept above every window of its
// application by some window managers (Openbox), its own Help included.
// Returns the response (GTK_RESPONSE_DELETE_EVENT when closed).
int run_dialog(GtkDialog* dialog);

// Return presses `ok` from a focused combo box too (GTK would open its
// list; GIMP's dialogs press their default button).
void press_ok_on_return(GtkWidget* dialog, GtkWidget* ok);

// The Help window beside `parent`: the user guide, then `controls` (plain
// text). Made on first use, kept hidden between uses; Escape closes it.
class HelpWindow {
 public:
  HelpWindow() = default;
  HelpWindow(const HelpWindow&) = delete;
  HelpWindow& operator=(const HelpWindow&) = delete;
  ~HelpWindow();
  void show(GtkWindow* parent, const std::string& title, const std::string& controls);

 private:
  GtkWidget* window_ = nullptr;
};

}  // namespace edgewise_dialog
