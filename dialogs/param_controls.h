// The filter's parameters as GIMP-style dialog rows, built from the
// parameter tables (core/params.def, core/adaptive_params.def): a label with
// its access key, then a combo for a choice, or a slider paired with a spin
// button for a number. The slider spans the table's slider range, the spin
// button the whole valid range, as GIMP's scale entries do.
#pragma once

#include <gtk/gtk.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "filter_spec.h"

namespace edgewise_dialog {

class ParamControls {
 public:
  explicit ParamControls(std::function<void()> changed) : changed_(std::move(changed)) {}
  ParamControls(const ParamControls&) = delete;
  ParamControls& operator=(const ParamControls&) = delete;

  // Appends a row to `grid` (columns: label, slider, spin button, unit) for
  // each parameter of `table` except those named in `skip`.
  void add_rows(GtkGrid* grid, const std::vector<edgewise::ParamInfo>& table, const std::vector<std::string>& skip);

  // Shows `spec` without reporting a change.
  void show(const edgewise::FilterSpec& spec);
  // The spec the widgets show; spin buttons commit text being typed first.
  void read(edgewise::FilterSpec& spec);
  // Units and the automatic radius follow the other values.
  void refresh_dependent(const edgewise::FilterSpec& spec);
  // The row's widgets, to hide or desensitise them together.
  std::vector<GtkWidget*> row(const std::string& cli_flag) const;

 private:
  struct Control {
    const edgewise::ParamInfo* info = nullptr;
    GtkWidget* label = nullptr;
    GtkWidget* combo = nullptr;  // enums
    GtkWidget* scale = nullptr;  // numbers
    GtkWidget* spin = nullptr;
    GtkWidget* unit = nullptr;
    GtkWidget* automatic = nullptr;  // radius: "Auto" = 0
  };
  void add_enum(GtkGrid* grid, int top, Control& control);
  void add_number(GtkGrid* grid, int top, Control& control);
  Control* find(const std::string& cli_flag);
  void notify();
  static void on_value(GtkWidget*, gpointer self);
  static void on_moved(GtkWidget* scale_or_spin, gpointer control);

  std::function<void()> changed_;
  std::vector<std::unique_ptr<Control>> controls_;
  int quiet_ = 0;         // > 0 while values are set, not chosen: no change is reported
  bool syncing_ = false;  // a slider and its spin button are following each other
};

}  // namespace edgewise_dialog
