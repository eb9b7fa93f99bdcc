#include "filter_dialog.h"

#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

#include <cstdlib>
#include <memory>

#include "dialog_trace.h"
#include "param_controls.h"
#include "preview_pane.h"

namespace edgewise_dialog {

namespace {

constexpr int kResponseReset = 1;

class FilterDialog {
 public:
  FilterDialog(ImagePort& image, const Settings& initial, const DialogOptions& options);
  ~FilterDialog();
  bool run(Settings& settings);

 private:
  GtkWidget* build_controls();
  GtkWidget* build_backend_rows(GtkGrid* grid);
  void show(const Settings& settings);
  void changed();
  void stay_in_front_of(unsigned long parent_window);

  DialogOptions options_;
  Settings settings_;
  edgewise::FilterKind filter_;  // the host's choice when locked
  std::string problem_;
  DialogTrace trace_;
  ParamControls controls_;
  std::unique_ptr<PreviewPane> pane_;
  GtkWidget* dialog_ = nullptr;
  GtkWidget* adaptive_frame_ = nullptr;
  GtkWidget* backend_ = nullptr;
  GtkWidget* ok_ = nullptr;
};

FilterDialog::FilterDialog(ImagePort& image, const Settings& initial, const DialogOptions& options)
    : options_(options), settings_(initial), filter_(initial.spec.filter), controls_([this] { changed(); }) {
  dialog_ = gtk_dialog_new();
  gtk_window_set_title(GTK_WINDOW(dialog_), options.title.c_str());
  gtk_window_set_position(GTK_WINDOW(dialog_), GTK_WIN_POS_CENTER);
  gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Reset", kResponseReset);
  gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Cancel", GTK_RESPONSE_CANCEL);
  ok_ = gtk_dialog_add_button(GTK_DIALOG(dialog_), "_OK", GTK_RESPONSE_OK);
  gtk_dialog_set_default_response(GTK_DIALOG(dialog_), GTK_RESPONSE_OK);

  pane_ = std::make_unique<PreviewPane>(image, trace_);
  GtkWidget* columns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18);
  gtk_container_set_border_width(GTK_CONTAINER(columns), 12);
  gtk_box_pack_start(GTK_BOX(columns), pane_->widget(), TRUE, TRUE, 0);
  gtk_box_pack_start(GTK_BOX(columns), build_controls(), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(gtk_dialog_get_content_area(GTK_DIALOG(dialog_))), columns, TRUE, TRUE, 0);
  show(settings_);
}

FilterDialog::~FilterDialog() {
  gtk_widget_destroy(dialog_);
  pane_.reset();  // after its widgets: stops the worker
}

GtkWidget* FilterDialog::build_controls() {
  GtkWidget* column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget* grid = gtk_grid_new();
  gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
  gtk_grid_set_column_spacing(GTK_GRID(grid), 6);
  controls_.add_rows(GTK_GRID(grid), edgewise::param_table(), {});
  gtk_box_pack_start(GTK_BOX(column), grid, FALSE, FALSE, 0);

  adaptive_frame_ = gtk_frame_new("Adaptive filter (normalized units: 1 = full scale, ΔE 100 in lab)");
  GtkWidget* adaptive = gtk_grid_new();
  gtk_grid_set_row_spacing(GTK_GRID(adaptive), 6);
  gtk_grid_set_column_spacing(GTK_GRID(adaptive), 6);
  gtk_container_set_border_width(GTK_CONTAINER(adaptive), 6);
  controls_.add_rows(GTK_GRID(adaptive), edgewise::adaptive_param_table(), {});
  gtk_container_add(GTK_CONTAINER(adaptive_frame_), adaptive);
  gtk_box_pack_start(GTK_BOX(column), adaptive_frame_, FALSE, FALSE, 0);

  GtkWidget* backend_grid = gtk_grid_new();
  gtk_grid_set_row_spacing(GTK_GRID(backend_grid), 6);
  gtk_grid_set_column_spacing(GTK_GRID(backend_grid), 6);
  build_backend_rows(GTK_GRID(backend_grid));
  gtk_box_pack_start(GTK_BOX(column), backend_grid, FALSE, FALSE, 0);

  if (options_.filter_locked) {  // the menu entry chose the filter
    for (GtkWidget* widget : controls_.row("filter")) {
      gtk_widget_set_no_show_all(widget, TRUE);
      gtk_widget_hide(widget);
    }
    if (filter_ != edgewise::FilterKind::adaptive) {
      gtk_widget_set_no_show_all(adaptive_frame_, TRUE);
      gtk_widget_hide(adaptive_frame_);
    }
  }
  return column;
}

// Auto, CPU, GPU; the GPU entry is greyed out, and the line below says why,
// when no usable GPU exists.
GtkWidget* FilterDialog::build_backend_rows(GtkGrid* grid) {
  std::string description;
  const bool gpu = edgewise::cuda_device_usable(description);
  GtkListStore* store = gtk_list_store_new(2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  const struct {
    const char* text;
    bool usable;
  } entries[] = {{"Auto", true}, {"CPU", true}, {"GPU (CUDA)", gpu}};
  static_assert(int(edgewise::BackendChoice::automatic) == 0 && int(edgewise::BackendChoice::cpu) == 1 &&
                    int(edgewise::BackendChoice::cuda) == 2,
                "the rows are in BackendChoice's order");
  for (const auto& entry : entries)
    gtk_list_store_insert_with_values(store, nullptr, -1, 0, entry.text, 1, entry.usable, -1);
  backend_ = gtk_combo_box_new_with_model(GTK_TREE_MODEL(store));
  g_object_unref(store);
  GtkCellRenderer* text = gtk_cell_renderer_text_new();
  gtk_cell_layout_pack_start(GTK_CELL_LAYOUT(backend_), text, TRUE);
  gtk_cell_layout_set_attributes(GTK_CELL_LAYOUT(backend_), text, "text", 0, "sensitive", 1, nullptr);
  GtkWidget* label = gtk_label_new_with_mnemonic("_Backend");
  gtk_widget_set_halign(label, GTK_ALIGN_START);
  gtk_label_set_mnemonic_widget(GTK_LABEL(label), backend_);
  const std::string note = gpu ? "GPU: " + description : "No usable GPU: " + description + ". The CPU is used.";
  GtkWidget* note_label = gtk_label_new(note.c_str());
  gtk_label_set_line_wrap(GTK_LABEL(note_label), TRUE);
  gtk_label_set_max_width_chars(GTK_LABEL(note_label), 40);
  gtk_label_set_xalign(GTK_LABEL(note_label), 0);
  gtk_style_context_add_class(gtk_widget_get_style_context(note_label), "dim-label");
  gtk_grid_attach(grid, label, 0, 0, 1, 1);
  gtk_grid_attach(grid, backend_, 1, 0, 1, 1);
  gtk_grid_attach(grid, note_label, 0, 1, 2, 1);
  g_signal_connect(backend_, "changed",
                   G_CALLBACK(+[](GtkComboBox*, gpointer self) { static_cast<FilterDialog*>(self)->changed(); }), this);
  return backend_;
}

void FilterDialog::show(const Settings& settings) {
  controls_.show(settings.spec);
  g_signal_handlers_block_matched(backend_, G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, this);
  gtk_combo_box_set_active(GTK_COMBO_BOX(backend_), int(settings.backend));
  g_signal_handlers_unblock_matched(backend_, G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, this);
  changed();
}

void FilterDialog::changed() {
  if (!pane_) return;  // building
  Settings next = settings_;
  controls_.read(next.spec);
  if (options_.filter_locked) next.spec.filter = filter_;
  next.backend = edgewise::BackendChoice(std::max(0, gtk_combo_box_get_active(GTK_COMBO_BOX(backend_))));
  controls_.refresh_dependent(next.spec);
  gtk_widget_set_sensitive(adaptive_frame_, next.spec.filter == edgewise::FilterKind::adaptive);
  problem_ = edgewise::validate(next.spec);
  gtk_widget_set_sensitive(ok_, problem_.empty());
  settings_ = next;
  pane_->set_settings(settings_, problem_);
}

void FilterDialog::stay_in_front_of(unsigned long parent_window) {
#ifdef GDK_WINDOWING_X11
  GdkDisplay* display = gtk_widget_get_display(dialog_);
  if (!parent_window || !GDK_IS_X11_DISPLAY(display)) return;
  gtk_widget_realize(dialog_);
  GdkWindow* parent = gdk_x11_window_foreign_new_for_display(display, Window(parent_window));
  if (!parent) return;
  gdk_window_set_transient_for(gtk_widget_get_window(dialog_), parent);
  g_object_unref(parent);
#else
  (void)parent_window;
#endif
}

bool FilterDialog::run(Settings& settings) {
  stay_in_front_of(options_.parent_window);
  gtk_widget_show_all(dialog_);
  // The first number has the focus, as in GIMP's filter dialogs: typing
  // changes it and Enter presses OK (a focused combo would open instead).
  for (GtkWidget* widget : controls_.row("sigma-s"))
    if (GTK_IS_SPIN_BUTTON(widget)) gtk_widget_grab_focus(widget);
  trace_.line("shown settings=" + format_arguments(settings_));
  for (;;) {
    const int response = gtk_dialog_run(GTK_DIALOG(dialog_));
    if (response == kResponseReset) {
      Settings defaults;
      defaults.spec.filter = options_.filter_locked ? filter_ : settings_.spec.filter;
      show(defaults);
      continue;
    }
    if (response == GTK_RESPONSE_OK) {
      changed();  // commits a value still being typed
      if (!problem_.empty()) continue;
      settings = settings_;
      trace_.line("response ok settings=" + format_arguments(settings_));
      return true;
    }
    trace_.line("response cancel");
    return false;
  }
}

}  // namespace

bool open_display(std::string& why_not) {
  if (gtk_init_check(nullptr, nullptr)) return true;
  const char* display = std::getenv("DISPLAY");
  why_not = display && *display ? std::string("cannot open display ") + display
                                : "no display to show the dialog on (DISPLAY is not set)";
  return false;
}

bool run_filter_dialog(ImagePort& image, Settings& settings, const DialogOptions& options) {
  FilterDialog dialog(image, settings, options);
  return dialog.run(settings);
}

}  // namespace edgewise_dialog
