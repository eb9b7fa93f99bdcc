#include "param_controls.h"

#include <cstdio>

namespace edgewise_dialog {

namespace {

// A check button's own tooltip, kept so a greyed one can say why first.
void set_base_tip(GtkWidget* widget, const std::string& tip) {
  g_object_set_data_full(G_OBJECT(widget), "edgewise-tip", g_strdup(tip.c_str()), g_free);
  gtk_widget_set_tooltip_text(widget, tip.c_str());
}

std::string base_tip(GtkWidget* widget) {
  const auto* tip = static_cast<const char*>(g_object_get_data(G_OBJECT(widget), "edgewise-tip"));
  return tip ? tip : "";
}

}  // namespace

void ParamControls::add_rows(GtkGrid* grid, const std::vector<ControlRow>& rows) {
  int top = 0;
  while (gtk_grid_get_child_at(grid, 0, top)) ++top;
  for (const ControlRow& row : rows) {
    auto control = std::make_unique<Control>();
    control->row = row;
    control->label = gtk_label_new_with_mnemonic(row.label.c_str());
    gtk_widget_set_halign(control->label, GTK_ALIGN_START);
    gtk_grid_attach(grid, control->label, 0, top, 1, 1);
    if (row.choice)
      add_choice(grid, top, *control);
    else
      add_number(grid, top, *control);
    gtk_widget_set_tooltip_text(control->label, row.tooltip.c_str());
    controls_.push_back(std::move(control));
    ++top;
  }
}

void ParamControls::add_choice(GtkGrid* grid, int top, Control& control) {
  control.combo = gtk_combo_box_text_new();
  for (const std::string& choice : control.row.choices)
    gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(control.combo), choice.c_str());
  gtk_combo_box_set_active(GTK_COMBO_BOX(control.combo), int(control.row.param->default_value));
  gtk_label_set_mnemonic_widget(GTK_LABEL(control.label), control.combo);
  gtk_widget_set_tooltip_text(control.combo, control.row.tooltip.c_str());
  gtk_grid_attach(grid, control.combo, 1, top, 2, 1);
  g_signal_connect(control.combo, "changed", G_CALLBACK(on_value), this);
}

void ParamControls::add_number(GtkGrid* grid, int top, Control& control) {
  const ControlRow& row = control.row;
  const double initial = row.param->manual_default;
  GtkAdjustment* slider = gtk_adjustment_new(initial, row.slider_min, row.slider_max, row.step, row.step * 10, 0);
  GtkAdjustment* exact = gtk_adjustment_new(initial, row.hard_min, row.hard_max, row.step, row.step * 10, 0);
  control.scale = gtk_scale_new(GTK_ORIENTATION_HORIZONTAL, slider);
  gtk_scale_set_draw_value(GTK_SCALE(control.scale), FALSE);
  gtk_widget_set_hexpand(control.scale, TRUE);
  gtk_widget_set_size_request(control.scale, 160, -1);
  control.spin = gtk_spin_button_new(exact, row.step, guint(row.digits));
  gtk_spin_button_set_numeric(GTK_SPIN_BUTTON(control.spin), TRUE);
  gtk_entry_set_width_chars(GTK_ENTRY(control.spin), 7);
  gtk_entry_set_activates_default(GTK_ENTRY(control.spin), TRUE);  // Enter = OK, as in GIMP
  gtk_label_set_mnemonic_widget(GTK_LABEL(control.label), control.spin);
  gtk_widget_set_tooltip_text(control.scale, row.tooltip.c_str());
  gtk_widget_set_tooltip_text(control.spin, row.tooltip.c_str());
  gtk_grid_attach(grid, control.scale, 1, top, 1, 1);
  gtk_grid_attach(grid, control.spin, 2, top, 1, 1);
  if (row.automatic) {
    control.automatic = gtk_check_button_new_with_mnemonic("A_uto");
    set_base_tip(control.automatic, std::string("0 = auto: ") + row.param->auto_meaning);
    gtk_grid_attach(grid, control.automatic, 3, top, 1, 1);
    g_signal_connect(control.automatic, "toggled", G_CALLBACK(on_value), this);
  } else {
    control.unit = gtk_label_new("");
    gtk_widget_set_halign(control.unit, GTK_ALIGN_START);
    gtk_grid_attach(grid, control.unit, 3, top, 1, 1);
  }
  if (row.noise_auto) {
    // No access key: a filter may have several (nlm's h, sigma-n, sigma-r).
    control.noise = gtk_check_button_new_with_label("Auto");
    set_base_tip(control.noise, std::string("auto: ") + row.param->noise_auto);
    gtk_grid_attach(grid, control.noise, 4, top, 1, 1);
    g_signal_connect(control.noise, "toggled", G_CALLBACK(on_value), this);
  }
  if (row.off) {
    control.off = gtk_check_button_new_with_label("Off");
    set_base_tip(control.off, std::string("off: ") + row.param->off_meaning);
    gtk_grid_attach(grid, control.off, 5, top, 1, 1);
    g_object_set_data(G_OBJECT(control.off), "edgewise-controls", this);
    g_signal_connect(control.off, "toggled", G_CALLBACK(on_off), &control);
  }
  g_signal_connect(control.scale, "value-changed", G_CALLBACK(on_moved), &control);
  g_signal_connect(control.spin, "value-changed", G_CALLBACK(on_moved), &control);
  g_object_set_data(G_OBJECT(control.scale), "edgewise-controls", this);
  g_object_set_data(G_OBJECT(control.spin), "edgewise-controls", this);
}

std::vector<GtkWidget*> ParamControls::row(const std::string& cli_flag) const {
  for (const auto& control : controls_)
    if (cli_flag == control->row.param->cli_flag) {
      std::vector<GtkWidget*> widgets;
      for (GtkWidget* widget : {control->label, control->combo, control->scale, control->spin, control->unit,
                                control->automatic, control->noise, control->off})
        if (widget) widgets.push_back(widget);
      return widgets;
    }
  return {};
}

GtkWidget* ParamControls::first_number() const {
  for (const auto& control : controls_)
    if (control->spin && gtk_widget_get_visible(control->spin)) return control->spin;
  return nullptr;
}

void ParamControls::notify() {
  if (quiet_ == 0 && changed_) changed_();
}

void ParamControls::on_value(GtkWidget*, gpointer self) { static_cast<ParamControls*>(self)->notify(); }

// Off ticked: the value that turns it off. Unticked from that value: the
// declared default when it is not off, else the end of the slider nearest
// the off value.
void ParamControls::on_off(GtkToggleButton* off, gpointer data) {
  auto* self = static_cast<ParamControls*>(g_object_get_data(G_OBJECT(off), "edgewise-controls"));
  Control& control = *static_cast<Control*>(data);
  const edgewise::ParamInfo& info = *control.row.param;
  ++self->quiet_;
  if (gtk_toggle_button_get_active(off)) {
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(control.spin), info.off_value);
  } else if (info.is_off(gtk_spin_button_get_value(GTK_SPIN_BUTTON(control.spin)))) {
    double on = info.manual_default;
    if (info.is_off(on)) on = info.off_value >= info.slider_max ? info.slider_max : info.slider_min;
    if (info.is_off(on)) on = (info.slider_min + info.slider_max) / 2;
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(control.spin), on);
  }
  --self->quiet_;
  self->notify();
}

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

void ParamControls::show(const edgewise::Settings& settings) {
  ++quiet_;
  for (auto& control : controls_) {
    const double value = row_value(control->row, settings);
    if (control->combo) {
      gtk_combo_box_set_active(GTK_COMBO_BOX(control->combo), int(value));
      continue;
    }
    if (control->automatic) gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(control->automatic), value == 0);
    if (control->noise) {
      const bool automatic = value == edgewise::kNoiseAuto;
      gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(control->noise), automatic);
      if (automatic) continue;  // the spin keeps the last value chosen; refresh_dependent shows auto's
    }
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(control->spin), value);
  }
  refresh_dependent(settings);
  --quiet_;
}

namespace {

// Whether the row is its filter's own for this flag: where two groups
// declare a flag (nlm's sigma-s and the bilateral's), only the chosen
// filter's row is read.
bool row_of(const ControlRow& row, const edgewise::FilterInfo& filter) {
  const edgewise::ParamInfo* own = filter.find_param(row.param->cli_flag);
  return !own || own == row.param;
}

}  // namespace

void ParamControls::show_rows_of(const edgewise::FilterInfo& filter) {
  for (auto& control : controls_) {
    const bool visible = row_of(control->row, filter) && filter.find_param(control->row.param->cli_flag);
    for (GtkWidget* widget : {control->label, control->combo, control->scale, control->spin, control->unit,
                              control->automatic, control->noise, control->off})
      if (widget) gtk_widget_set_visible(widget, visible);
  }
}

void ParamControls::read(edgewise::Settings& settings) {
  for (auto& control : controls_) {
    if (!row_of(control->row, settings.spec.filter())) continue;
    if (control->combo) {
      set_row_value(control->row, double(gtk_combo_box_get_active(GTK_COMBO_BOX(control->combo))), settings);
      continue;
    }
    if (control->automatic && gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(control->automatic))) {
      set_row_value(control->row, 0.0, settings);
      continue;
    }
    if (control->noise && gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(control->noise))) {
      set_row_value(control->row, edgewise::kNoiseAuto, settings);
      continue;
    }
    if (control->off && gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(control->off))) {
      set_row_value(control->row, control->row.param->off_value, settings);
      continue;
    }
    ++quiet_;  // commits text being typed; the caller is reading, not reacting
    gtk_spin_button_update(GTK_SPIN_BUTTON(control->spin));
    --quiet_;
    // The spin button's range is the valid range, so this cannot fail.
    set_row_value(control->row, gtk_spin_button_get_value(GTK_SPIN_BUTTON(control->spin)), settings);
  }
}

void ParamControls::refresh_dependent(const edgewise::Settings& settings) {
  ++quiet_;
  for (auto& control : controls_) refresh_row(*control, settings);
  --quiet_;
}

// Units, the value auto gives (sigma-r 2.5 x the noise, the radius ceil(2
// sigma-s), the pyramid's levels for this image), Off, and whether the row
// can act at all (row_state).
void ParamControls::refresh_row(Control& control, const edgewise::Settings& settings) {
  if (control.unit) gtk_label_set_text(GTK_LABEL(control.unit), unit_text(control.row, settings).c_str());
  if (!settings.spec.has(control.row.param->cli_flag) ||
      settings.spec.filter().find_param(control.row.param->cli_flag) != control.row.param)
    return;  // another filter's row: hidden
  const RowState state = row_state(control.row, settings, noise_ ? &*noise_ : nullptr, image_);
  if (control.spin) {
    if (state.automatic) gtk_spin_button_set_value(GTK_SPIN_BUTTON(control.spin), state.shown);
    if (control.off) {
      gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(control.off), state.off);
      gtk_widget_set_sensitive(control.off, state.acts && !state.automatic);
    }
    gtk_widget_set_sensitive(control.scale, state.acts && !state.automatic && !state.off);
    gtk_widget_set_sensitive(control.spin, state.acts && !state.automatic && !state.off);
    // Off shows no number (the value that means off, nlm's range sigma
    // 100000, is not one to read); the row keeps its place.
    gtk_widget_set_opacity(control.scale, state.off ? 0.0 : 1.0);
    gtk_widget_set_opacity(control.spin, state.off ? 0.0 : 1.0);
  }
  for (GtkWidget* check : {control.automatic, control.noise})
    if (check) gtk_widget_set_sensitive(check, state.acts);
  if (control.combo) gtk_widget_set_sensitive(control.combo, state.acts);
  gtk_widget_set_sensitive(control.label, state.acts);
  // Every greyed control says why, first in its tooltip.
  std::string why;
  if (!state.acts)
    why = "No effect now: " + state.why + ".";
  else if (state.automatic)
    why = "Set by Auto (the number shows what it gives): untick Auto to choose it yourself.";
  else if (state.off)
    why = "Off: untick Off to choose a value.";
  const std::string tip = why.empty() ? control.row.tooltip : why + "\n\n" + control.row.tooltip;
  for (GtkWidget* widget : {control.label, control.combo, control.scale, control.spin})
    if (widget) gtk_widget_set_tooltip_text(widget, tip.c_str());
  for (GtkWidget* check : {control.automatic, control.noise, control.off}) {
    if (!check) continue;
    const bool greyed = !state.acts || (check == control.off && state.automatic);
    const std::string reason = !state.acts ? why : "Set by Auto: untick Auto first.";
    gtk_widget_set_tooltip_text(check, (greyed ? reason + "\n\n" + base_tip(check) : base_tip(check)).c_str());
  }
}

void ParamControls::set_noise(const edgewise::NoiseEstimate& noise, const std::string& relation) {
  noise_ = noise;
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.1f", edgewise::auto_noise_sigma(noise));
  for (auto& control : controls_) {
    if (!control->noise) continue;
    std::string tip = std::string("auto: ") + control->row.param->noise_auto + ".\nThe noise this image shows: sigma " +
                      sigma +
                      " code values (0-255 scale, the median over its colour channels, every frequency "
                      "included), " +
                      (noise.reading == edgewise::NoiseReading::learned
                           ? std::string("read by the learned noise map.")
                           : std::string("estimated from its flattest areas (statistical reading).")) +
                      (noise.reading_note.empty() ? std::string() : "\n" + noise.reading_note + ".");
    if (noise.fallback)
      tip += std::string("\nIt could not be measured: ") + noise.fallback_reason + "; this is " +
             edgewise::kNoiseFallbackRule + ", a rough guess.";
    if (!relation.empty()) tip += "\n" + relation;
    gtk_button_set_label(GTK_BUTTON(control->noise),
                         relation.empty()
                             ? (std::string(noise.fallback ? "Auto (noise ~" : "Auto (noise ") + sigma + ")").c_str()
                             : "Auto");
    set_base_tip(control->noise, tip);
  }
}

}  // namespace edgewise_dialog
