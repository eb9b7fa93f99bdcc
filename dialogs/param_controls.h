// Parameter rows as GIMP-style dialog widgets, built from control_rows'
// descriptions: a label with its access key, then a combo for a choice, or
// a slider paired with a spin button for a number (the slider spans the
// usual range, the spin button the whole valid range, as GIMP's scale
// entries do), an Auto check button where 0 means automatic, and the unit,
// then an Auto check where the value can follow the image's noise, labelled
// with the noise the image shows, and an Off check where a value turns off
// what the parameter controls (never a magic number in the spin button). A
// row that cannot act for the current values (row_state) is greyed out,
// the reason in its tooltip.
#pragma once

#include <gtk/gtk.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "control_rows.h"

namespace edgewise_dialog {

class ParamControls {
 public:
  explicit ParamControls(std::function<void()> changed) : changed_(std::move(changed)) {}
  ParamControls(const ParamControls&) = delete;
  ParamControls& operator=(const ParamControls&) = delete;

  // Appends a row to `grid` (columns: label, slider, spin button, unit or
  // Auto, noise Auto, Off) per row. Rows may go to several grids.
  void add_rows(GtkGrid* grid, const std::vector<ControlRow>& rows);

  // Shows `settings` without reporting a change.
  void show(const edgewise::Settings& settings);
  // Writes what the widgets show into `settings`; spin buttons commit text
  // being typed first.
  void read(edgewise::Settings& settings);
  // Shows the rows of `filter`'s own parameters and hides the others (a
  // flag two filters declare has a row for each, with its own default).
  void show_rows_of(const edgewise::FilterInfo& filter);
  // Units and automatic values follow the other values.
  void refresh_dependent(const edgewise::Settings& settings);
  // The image's noise: the noise Auto checks show it, and ticked they show
  // the values it gives. `relation`, when not empty, replaces the figure in
  // the Auto label ("Auto" alone) and says in its tooltip how the noise
  // relates to the one figure the dialog shows elsewhere (the Denoise
  // dialog's, under its plot).
  void set_noise(const edgewise::NoiseEstimate& noise, const std::string& relation = "");
  // The image's shape: what auto values follow (the pyramid's levels) and
  // whether colour-only parameters act.
  void set_image(const edgewise::ImageShape& image) { image_ = image; }
  // The widgets of a row, to hide or desensitise them together.
  std::vector<GtkWidget*> row(const std::string& cli_flag) const;
  // The first shown number's spin button (the focus when the dialog opens), or null.
  GtkWidget* first_number() const;

 private:
  struct Control {
    ControlRow row;
    GtkWidget* label = nullptr;
    GtkWidget* combo = nullptr;  // choices
    GtkWidget* scale = nullptr;  // numbers
    GtkWidget* spin = nullptr;
    GtkWidget* unit = nullptr;
    GtkWidget* automatic = nullptr;  // 0 = auto
    GtkWidget* noise = nullptr;      // auto from the image's noise (kNoiseAuto)
    GtkWidget* off = nullptr;        // the value that turns it off
  };
  void refresh_row(Control& control, const edgewise::Settings& settings);
  static void on_off(GtkToggleButton* off, gpointer control);
  void add_choice(GtkGrid* grid, int top, Control& control);
  void add_number(GtkGrid* grid, int top, Control& control);
  void notify();
  static void on_value(GtkWidget*, gpointer self);
  static void on_moved(GtkWidget* scale_or_spin, gpointer control);

  std::function<void()> changed_;
  std::vector<std::unique_ptr<Control>> controls_;
  std::optional<edgewise::NoiseEstimate> noise_;
  edgewise::ImageShape image_{0, 0, 3};
  int quiet_ = 0;         // > 0 while values are set, not chosen: no change is reported
  bool syncing_ = false;  // a slider and its spin button are following each other
};

}  // namespace edgewise_dialog
