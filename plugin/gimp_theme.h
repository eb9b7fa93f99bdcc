// Whether GIMP's configured theme is dark, read from the theme GIMP uses
// (its gimprc settings "theme" and "theme-path", which libgimp's
// gimp_gimprc_query() returns: the folder's gtkrc), so that the GTK 3
// dialog can take the dark or light variant of its own theme: GIMP 2.10's themes are
// GTK 2 gtkrc files, which GTK 3 cannot load. The rule: the colours of the
// style GIMP's theme gives every widget (class "GtkWidget"): light text on
// a darker background is a dark theme (Dark), dark text on a lighter one a
// light theme (Light, and Gray, whose text is dark); a theme without
// colours (System) follows the desktop. Not a guess from the theme's name.
// Free of libgimp, so tests run it on GIMP's own theme files.
#pragma once

#include <string>

namespace edgewise_plugin {

enum class ThemeTone { unknown, light, dark };

// The tone of a GTK 2 gtkrc's default widget style.
ThemeTone theme_tone(const std::string& gtkrc);
// The tone of the theme in `theme_dir` (its gtkrc); unknown when unreadable.
ThemeTone theme_dir_tone(const std::string& theme_dir);
// The tone of theme `name` in the first folder of `search_path` (folders
// separated by ':', as gimprc's theme-path) that holds it.
ThemeTone theme_tone_in_path(const std::string& name, const std::string& search_path);

}  // namespace edgewise_plugin
