#include "param_controls.h"

#include <algorithm>
#include <cmath>

#include "plan.h"

namespace edgewise_dialog {

namespace {

// Decimals shown for a number: enough to move along its slider range in
// about a thousand steps.
int digits_for(const edgewise::ParamInfo& info) {
  if (info.is_integer) return 0;
  if (info.slider_max <= 0.2) return 4;
  if (info.slider_max <= 2) return 3;
  if (info.slider_max <= 20) return 2;
  return 1;
}

// Units short enough for the column after the spin button; the others are
// in the tooltip and the frame's title.
std::string unit_text(const edgewise::ParamInfo& info, const edgewise::FilterSpec& spec) {
  if (std::string(info.cli_flag) == "sigma-r") return spec.mode == edgewise::ColorMode::lab ? "ΔE" : "/ 255";
  return std::string(info.unit).size() <= 3 ? info.unit : "";
}

std::string tooltip_for(const edgewise::ParamInfo& info) {
  std::string text = info.help;
  if (info.unit[0]) text += std::string(", in ") + info.unit;
  return text;
}

}  // namespace

void ParamControls::add_rows(GtkGrid* grid, const std::vector<edgewise::ParamInfo>& table,
                             const std::vector<std::string>& skip) {
  int top = 0;
  while (gtk_grid_get_child_at(grid, 0, top)) ++top;
  for (const auto& info : table) {
    if (std::find(skip.begin(), skip.end(), info.cli_flag) != skip.end()) continue;
    auto control = std::make_unique<Control>();
    control->info = &info;
    control->label = gtk_label_new_with_mnemonic(info.mnemonic_label.c_str());
    gtk_widget_set_halign(control->label, GTK_ALIGN_START);
    gtk_grid_attach(grid, control->label, 0, top, 1, 1);
    if (info.is_enum)
      add_enum(grid, top, *control);
    else
      add_number(grid, top, *control);
    gtk_widget_set_tooltip_text(control->label, tooltip_for(info).c_str());
    controls_.push_back(std::move(control));
    ++top;
  }
}

void ParamControls::add_enum(GtkGrid* grid, int top, Control& control) {
  control.combo = gtk_combo_box_text_new();
  for (const char* token : control.info->tokens)
    gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(control.combo), token);
  gtk_combo_box_set_active(GTK_COMBO_BOX(control.combo), int(control.info->default_value));
  gtk_label_set_mnemonic_widget(GTK_LABEL(control.label), control.combo);
  gtk_widget_set_tooltip_text(control.combo, tooltip_for(*control.info).c_str());
  gtk_grid_attach(grid, control.combo, 1, top, 2, 1);
  g_signal_connect(control.combo, "changed", G_CALLBACK(on_value), this);
}

void ParamControls::add_number(GtkGrid* grid, int top, Control& control) {
  const edgewise::ParamInfo& info = *control.info;
  const int digits = digits_for(info);
  const double step = std::pow(10.0, 1 - digits) / (info.is_integer ? 10 : 1);
  GtkAdjustment* slider = gtk_adjustment_new(info.default_value, info.slider_min, info.slider_max, step, step * 10, 0);
  GtkAdjustment* exact = gtk_adjustment_new(info.default_value, info.hard_min, info.hard_max, step, step * 10, 0);
  control.scale = gtk_scale_new(GTK_ORIENTATION_HORIZONTAL, slider);
  gtk_scale_set_draw_value(GTK_SCALE(control.scale), FALSE);
  gtk_widget_set_hexpand(control.scale, TRUE);
  gtk_widget_set_size_request(control.scale, 160, -1);
  control.spin = gtk_spin_button_new(exact, step, guint(digits));
  gtk_spin_button_set_numeric(GTK_SPIN_BUTTON(control.spin), TRUE);
  gtk_entry_set_width_chars(GTK_ENTRY(control.spin), 7);
  gtk_entry_set_activates_default(GTK_ENTRY(control.spin), TRUE);  // Enter = OK, as in GIMP
  gtk_label_set_mnemonic_widget(GTK_LABEL(control.label), control.spin);
  gtk_widget_set_tooltip_text(control.scale, tooltip_for(info).c_str());
  gtk_widget_set_tooltip_text(control.spin, tooltip_for(info).c_str());
  gtk_grid_attach(grid, control.scale, 1, top, 1, 1);
  gtk_grid_attach(grid, control.spin, 2, top, 1, 1);
  if (std::string(info.cli_flag) == "radius") {
    control.automatic = gtk_check_button_new_with_mnemonic("A_uto");
    gtk_widget_set_tooltip_text(control.automatic, "ceil(2 × spatial sigma)");
    gtk_grid_attach(grid, control.automatic, 3, top, 1, 1);
    g_signal_connect(control.automatic, "toggled", G_CALLBACK(on_value), this);
  } else {
    control.unit = gtk_label_new("");
    gtk_widget_set_halign(control.unit, GTK_ALIGN_START);
    gtk_grid_attach(grid, control.unit, 3, top, 1, 1);
  }
  g_signal_connect(control.scale, "value-changed", G_CALLBACK(on_moved), &control);
  g_signal_connect(control.spin, "value-changed", G_CALLBACK(on_moved), &control);
  g_object_set_data(G_OBJECT(control.scale), "edgewise-controls", this);
  g_object_set_data(G_OBJECT(control.spin), "edgewise-controls", this);
}

ParamControls::Control* ParamControls::find(const std::string& cli_flag) {
  for (auto& control : controls_)
    if (cli_flag == control->info->cli_flag) return control.get();
  return nullptr;
}

std::vector<GtkWidget*> ParamControls::row(const std::string& cli_flag) const {
  for (const auto& control : controls_)
    if (cli_flag == control->info->cli_flag) {
      std::vector<GtkWidget*> widgets;
      for (GtkWidget* widget :
           {control->label, control->combo, control->scale, control->spin, control->unit, control->automatic})
        if (widget) widgets.push_back(widget);
      return widgets;
    }
  return {};
}

void ParamControls::notify() {
  if (quiet_ == 0 && changed_) changed_();
}

void ParamControls::on_value(GtkWidget*, gpointer self) { static_cast<ParamControls*>(self)->notify(); }

// The slider and the spin button show one value: whichever moved, the
// other follows. A typed value beyond the slider's range moves the slider
// to its end without changing the typed value.
void ParamControls::on_moved(GtkWidget* moved, gpointer data) {
  auto* self = static_cast<ParamControls*>(g_object_get_data(G_OBJECT(moved), "edgewise-controls"));
  if (self->syncing_) return;
  const Control& control = *static_cast<Control*>(data);
  self->syncing_ = true;
  if (moved == control.scale)
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(control.spin), gtk_range_get_value(GTK_RANGE(control.scale)));
  else
    gtk_range_set_value(GTK_RANGE(control.scale), gtk_spin_button_get_value(GTK_SPIN_BUTTON(control.spin)));
  self->syncing_ = false;
  self->notify();
}

void ParamControls::show(const edgewise::FilterSpec& spec) {
  ++quiet_;
  for (auto& control : controls_) {
    const double value = edgewise::get_param(spec, control->info->cli_flag);
    if (control->combo) {
      gtk_combo_box_set_active(GTK_COMBO_BOX(control->combo), int(value));
      continue;
    }
    if (control->automatic) gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(control->automatic), value == 0);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(control->spin), value);
  }
  refresh_dependent(spec);
  --quiet_;
}

void ParamControls::read(edgewise::FilterSpec& spec) {
  for (auto& control : controls_) {
    const std::string flag = control->info->cli_flag;
    if (control->combo) {
      edgewise::set_param(spec, flag, double(gtk_combo_box_get_active(GTK_COMBO_BOX(control->combo))));
      continue;
    }
    if (control->automatic && gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(control->automatic))) {
      edgewise::set_param(spec, flag, 0.0);
      continue;
    }
    ++quiet_;  // commits text being typed; the caller is reading, not reacting
    gtk_spin_button_update(GTK_SPIN_BUTTON(control->spin));
    --quiet_;
    // The spin button's range is the valid range, so this cannot fail.
    edgewise::set_param(spec, flag, gtk_spin_button_get_value(GTK_SPIN_BUTTON(control->spin)));
  }
}

void ParamControls::refresh_dependent(const edgewise::FilterSpec& spec) {
  ++quiet_;
  for (auto& control : controls_) {
    if (control->unit) gtk_label_set_text(GTK_LABEL(control->unit), unit_text(*control->info, spec).c_str());
    if (!control->automatic) continue;
    const bool automatic = gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(control->automatic));
    gtk_widget_set_sensitive(control->scale, !automatic);
    gtk_widget_set_sensitive(control->spin, !automatic);
    if (automatic)  // shows the radius the filter will use
      gtk_spin_button_set_value(GTK_SPIN_BUTTON(control->spin), edgewise::effective_radius(spec));
  }
  --quiet_;
}

}  // namespace edgewise_dialog
