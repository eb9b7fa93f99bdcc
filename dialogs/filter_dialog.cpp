#include "filter_dialog.h"

#include <gtk/gtk.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "control_rows.h"
#include "dialog_help.h"
#include "dialog_window.h"
#include "param_controls.h"
#include "preview_pane.h"

namespace edgewise_dialog {

namespace {

constexpr int kResponseReset = 1;
// The remembered size is taken within these bounds (a stored value from a
// larger screen still fits a sensible window).
constexpr int kMinSize = 200, kMaxSize = 8192;

const char* const kViewKey = "view";
const char* const kZoomKey = "zoom";
const char* const kSizeKey = "size";

std::string dialog_value(const edgewise::Settings& settings, const char* key) {
  const auto found = settings.dialog.find(key);
  return found == settings.dialog.end() ? "" : found->second;
}

bool uses(const ControlBlock& block, const edgewise::FilterInfo& filter) {
  return std::find(block.filters.begin(), block.filters.end(), &filter) != block.filters.end();
}

GtkWidget* new_grid() {
  GtkWidget* grid = gtk_grid_new();
  gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
  gtk_grid_set_column_spacing(GTK_GRID(grid), 6);
  return grid;
}

class FilterDialog {
 public:
  FilterDialog(ImagePort& image, const edgewise::Settings& initial, const DialogOptions& options);
  ~FilterDialog();
  bool run(edgewise::Settings& settings);

 private:
  GtkWidget* build_controls();
  void build_filter_row(GtkGrid* grid);
  void build_backend_rows(GtkGrid* grid);
  void show(const edgewise::Settings& settings);
  void changed();
  void restore_state(const edgewise::Settings& settings);
  void keep_state(edgewise::Settings& settings) const;
  void show_help();

  DialogOptions options_;
  const edgewise::Registry& registry_;
  DialogLayout layout_;
  edgewise::Settings settings_;
  std::string problem_;
  ParamControls controls_;
  std::unique_ptr<PreviewPane> pane_;
  GtkWidget* dialog_ = nullptr;
  GtkWidget* filter_ = nullptr;
  std::vector<std::pair<GtkWidget*, const ControlBlock*>> frames_;  // blocks in a frame of their own
  GtkWidget* backend_ = nullptr;
  GtkWidget* ok_ = nullptr;
  HelpWindow help_;
  GtkWidget* backend_line_ = nullptr;
};

FilterDialog::FilterDialog(ImagePort& image, const edgewise::Settings& initial, const DialogOptions& options)
    : options_(options),
      registry_(options.registry ? *options.registry : edgewise::builtin_registry()),
      layout_(describe_dialog(registry_, options.backends ? *options.backends : edgewise::installed_backends(),
                              options.filter_locked ? &initial.spec.filter() : nullptr, options.hidden_params)),
      settings_(initial),
      controls_([this] { changed(); }) {
  apply_theme(options.theme);  // the host's light or dark look, before any widget is styled
  dialog_ = gtk_dialog_new();
  gtk_window_set_title(GTK_WINDOW(dialog_), options.title.c_str());
  gtk_window_set_position(GTK_WINDOW(dialog_), GTK_WIN_POS_CENTER);
  // Help at the far left, as in GIMP's dialogs.
  GtkWidget* help = gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Help", GTK_RESPONSE_HELP);
  gtk_button_box_set_child_secondary(GTK_BUTTON_BOX(gtk_widget_get_parent(help)), help, TRUE);
  gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Reset", kResponseReset);
  gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Cancel", GTK_RESPONSE_CANCEL);
  ok_ = gtk_dialog_add_button(GTK_DIALOG(dialog_), "_OK", GTK_RESPONSE_OK);
  gtk_dialog_set_default_response(GTK_DIALOG(dialog_), GTK_RESPONSE_OK);

  pane_ = std::make_unique<PreviewPane>(image, options.observer);
  GtkWidget* columns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18);
  gtk_container_set_border_width(GTK_CONTAINER(columns), 12);
  gtk_box_pack_start(GTK_BOX(columns), pane_->widget(), TRUE, TRUE, 0);
  gtk_box_pack_start(GTK_BOX(columns), build_controls(), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(gtk_dialog_get_content_area(GTK_DIALOG(dialog_))), columns, TRUE, TRUE, 0);
  press_ok_on_return(dialog_, ok_);
  // Once per dialog, from the whole image: the auto values and their labels
  // follow it, and so does every preview, whatever region or zoom it shows.
  auto noise = std::make_shared<const edgewise::NoiseEstimate>(estimate_image_noise(image));
  pane_->set_noise(noise);
  controls_.set_noise(*noise);
  controls_.set_image(image.shape());
  restore_state(initial);
  show(settings_);
}

FilterDialog::~FilterDialog() {
  gtk_widget_destroy(dialog_);
  pane_.reset();  // after its widgets: stops the worker
}

// The filter choice (unless locked), the main rows, each other group in a
// frame of its own (shown when the chosen filter takes it), then the
// backend.
GtkWidget* FilterDialog::build_controls() {
  GtkWidget* column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget* grid = new_grid();
  build_filter_row(GTK_GRID(grid));
  gtk_box_pack_start(GTK_BOX(column), grid, FALSE, FALSE, 0);
  for (const ControlBlock& block : layout_.blocks) {
    if (block.frame.empty()) {
      controls_.add_rows(GTK_GRID(grid), block.rows);
      continue;
    }
    GtkWidget* frame = gtk_frame_new(block.frame.c_str());
    GtkWidget* rows = new_grid();
    gtk_container_set_border_width(GTK_CONTAINER(rows), 6);
    controls_.add_rows(GTK_GRID(rows), block.rows);
    gtk_container_add(GTK_CONTAINER(frame), rows);
    gtk_box_pack_start(GTK_BOX(column), frame, FALSE, FALSE, 0);
    // Shown by changed() when the chosen filter takes the group, never by
    // run()'s show_all: the window's first size is then the chosen
    // filter's rows, not every filter's frames stacked (a fourth filter
    // made it taller than a 900-pixel screen).
    gtk_widget_show_all(rows);
    gtk_widget_set_no_show_all(frame, TRUE);
    frames_.emplace_back(frame, &block);
  }
  GtkWidget* backend_grid = new_grid();
  build_backend_rows(GTK_GRID(backend_grid));
  gtk_box_pack_start(GTK_BOX(column), backend_grid, FALSE, FALSE, 0);
  return column;
}

void FilterDialog::build_filter_row(GtkGrid* grid) {
  if (layout_.filters.empty()) return;
  filter_ = gtk_combo_box_text_new();
  for (const edgewise::FilterInfo* filter : layout_.filters)
    gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(filter_), filter->name);
  GtkWidget* label = gtk_label_new_with_mnemonic("_Filter");
  gtk_widget_set_halign(label, GTK_ALIGN_START);
  gtk_label_set_mnemonic_widget(GTK_LABEL(label), filter_);
  std::string tooltip;
  for (const edgewise::FilterInfo* filter : layout_.filters)
    tooltip += (tooltip.empty() ? "" : "\n") + std::string(filter->name) + ": " + filter->summary;
  gtk_widget_set_tooltip_text(filter_, tooltip.c_str());
  gtk_grid_attach(grid, label, 0, 0, 1, 1);
  gtk_grid_attach(grid, filter_, 1, 0, 2, 1);
  g_signal_connect(filter_, "changed",
                   G_CALLBACK(+[](GtkComboBox*, gpointer self) { static_cast<FilterDialog*>(self)->changed(); }), this);
}

// Auto and each backend of the list; an unusable one is greyed out (its
// tooltip says why), and the line below says where the choice runs.
void FilterDialog::build_backend_rows(GtkGrid* grid) {
  GtkListStore* store = gtk_list_store_new(2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  std::string tooltip;
  for (const BackendEntry& entry : layout_.backends) {
    gtk_list_store_insert_with_values(store, nullptr, -1, 0, entry.label.c_str(), 1, entry.usable, -1);
    tooltip += (tooltip.empty() ? "" : "\n") + entry.label + ": " + entry.description;
  }
  backend_ = gtk_combo_box_new_with_model(GTK_TREE_MODEL(store));
  g_object_unref(store);
  GtkCellRenderer* text = gtk_cell_renderer_text_new();
  gtk_cell_layout_pack_start(GTK_CELL_LAYOUT(backend_), text, TRUE);
  gtk_cell_layout_set_attributes(GTK_CELL_LAYOUT(backend_), text, "text", 0, "sensitive", 1, nullptr);
  GtkWidget* label = gtk_label_new_with_mnemonic("_Backend");
  gtk_widget_set_halign(label, GTK_ALIGN_START);
  gtk_label_set_mnemonic_widget(GTK_LABEL(label), backend_);
  gtk_widget_set_tooltip_text(backend_, tooltip.c_str());
  backend_line_ = gtk_label_new("");
  gtk_label_set_line_wrap(GTK_LABEL(backend_line_), TRUE);
  gtk_label_set_max_width_chars(GTK_LABEL(backend_line_), 40);
  gtk_label_set_xalign(GTK_LABEL(backend_line_), 0);
  gtk_style_context_add_class(gtk_widget_get_style_context(backend_line_), "dim-label");
  gtk_grid_attach(grid, label, 0, 0, 1, 1);
  gtk_grid_attach(grid, backend_, 1, 0, 1, 1);
  gtk_grid_attach(grid, backend_line_, 0, 1, 2, 1);
  g_signal_connect(backend_, "changed",
                   G_CALLBACK(+[](GtkComboBox*, gpointer self) { static_cast<FilterDialog*>(self)->changed(); }), this);
}

void FilterDialog::show(const edgewise::Settings& settings) {
  settings_ = settings;
  controls_.show(settings);
  for (GtkWidget* combo : {filter_, backend_}) {
    if (!combo) continue;
    g_signal_handlers_block_matched(combo, G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, this);
    if (combo == backend_) {
      for (size_t i = 0; i < layout_.backends.size(); ++i)
        if (layout_.backends[i].choice == settings.backend) gtk_combo_box_set_active(GTK_COMBO_BOX(combo), int(i));
    } else {
      for (size_t i = 0; i < layout_.filters.size(); ++i)
        if (layout_.filters[i] == &settings.spec.filter()) gtk_combo_box_set_active(GTK_COMBO_BOX(combo), int(i));
    }
    g_signal_handlers_unblock_matched(combo, G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, this);
  }
  changed();
}

void FilterDialog::changed() {
  if (!pane_) return;  // building
  edgewise::Settings next = settings_;
  controls_.read(next);  // the rows of the filter shown until now
  if (filter_) {
    const int chosen = std::max(0, gtk_combo_box_get_active(GTK_COMBO_BOX(filter_)));
    const edgewise::FilterInfo& filter = *layout_.filters[size_t(chosen)];
    if (&filter != &next.spec.filter()) {
      // Values chosen carry over, the new filter's own defaults replace
      // the old one's (choose_filter); the rows then show them.
      next = edgewise::choose_filter(next, filter);
      controls_.show(next);
    }
  }
  controls_.show_rows_of(next.spec.filter());
  const int backend = std::max(0, gtk_combo_box_get_active(GTK_COMBO_BOX(backend_)));
  next.backend = layout_.backends[size_t(backend)].choice;
  gtk_label_set_text(GTK_LABEL(backend_line_), backend_line(layout_.backends, next.backend).c_str());
  controls_.refresh_dependent(next);
  // Only the chosen filter's groups are shown (one filter's rows at a
  // time: their access keys are unique within a filter, not across them).
  for (const auto& [frame, block] : frames_) gtk_widget_set_visible(frame, uses(*block, next.spec.filter()));
  problem_ = edgewise::validate(next.spec);
  gtk_widget_set_sensitive(ok_, problem_.empty());
  settings_ = next;
  edgewise::Settings filtered = settings_;
  filtered.dialog.clear();  // the preview's trace shows what it filtered
  pane_->set_settings(filtered, problem_);
}

// The View choice, the zoom and the window's size from the last run.
void FilterDialog::restore_state(const edgewise::Settings& settings) {
  pane_->restore(dialog_value(settings, kViewKey), dialog_value(settings, kZoomKey));
  int width = 0, height = 0;
  if (std::sscanf(dialog_value(settings, kSizeKey).c_str(), "%dx%d", &width, &height) == 2)
    gtk_window_set_default_size(GTK_WINDOW(dialog_), std::clamp(width, kMinSize, kMaxSize),
                                std::clamp(height, kMinSize, kMaxSize));
}

void FilterDialog::keep_state(edgewise::Settings& settings) const {
  settings.dialog[kViewKey] = pane_->view_word();
  settings.dialog[kZoomKey] = pane_->zoom_word();
  int width = 0, height = 0;
  gtk_window_get_size(GTK_WINDOW(dialog_), &width, &height);
  settings.dialog[kSizeKey] = std::to_string(width) + "x" + std::to_string(height);
}

// The user guide and what each control means (dialog_help.h); Help again
// brings it to the front.
void FilterDialog::show_help() { help_.show(GTK_WINDOW(dialog_), options_.title, dialog_help_text(layout_)); }

bool FilterDialog::run(edgewise::Settings& settings) {
  stay_in_front_of(dialog_, options_.parent_window);
  gtk_widget_show_all(dialog_);
  changed();  // show_all showed every filter's rows
  // The first number has the focus, as in GIMP's filter dialogs: typing
  // changes it and Enter presses OK (a focused combo would open instead).
  if (GtkWidget* first = controls_.first_number()) gtk_widget_grab_focus(first);
  if (options_.observer) options_.observer->shown(edgewise::format_arguments(settings_, registry_));
  for (;;) {
    const int response = run_dialog(GTK_DIALOG(dialog_));
    if (response == GTK_RESPONSE_HELP) {
      show_help();
      continue;
    }
    if (response == kResponseReset) {
      edgewise::Settings defaults = edgewise::default_settings(settings_.spec.filter());
      show(defaults);
      continue;
    }
    if (response == GTK_RESPONSE_OK) {
      changed();  // commits a value still being typed
      if (!problem_.empty()) continue;
      keep_state(settings_);
      settings = settings_;
      if (options_.observer) options_.observer->responded(true, edgewise::format_arguments(settings_, registry_));
      return true;
    }
    if (options_.observer) options_.observer->responded(false, "");
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

bool run_filter_dialog(ImagePort& image, edgewise::Settings& settings, const DialogOptions& options) {
  FilterDialog dialog(image, settings, options);
  return dialog.run(settings);
}

}  // namespace edgewise_dialog
