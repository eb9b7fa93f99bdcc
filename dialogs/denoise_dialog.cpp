#include "denoise_dialog.h"

#include <gtk/gtk.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "control_rows.h"
#include "dialog_help.h"
#include "dialog_window.h"
#include "noise_curves.h"
#include "noise_plot.h"
#include "param_controls.h"
#include "preview_pane.h"

namespace edgewise_dialog {

namespace {

constexpr int kResponseReset = 1;
constexpr int kMinSize = 200, kMaxSize = 8192;
constexpr int kAdvancedHeight = 330;  // pixels of Advanced shown before it scrolls

GtkWidget* new_grid() {
  GtkWidget* grid = gtk_grid_new();
  gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
  gtk_grid_set_column_spacing(GTK_GRID(grid), 6);
  return grid;
}

GtkWidget* dim_label(int width_chars) {
  GtkWidget* label = gtk_label_new("");
  gtk_label_set_line_wrap(GTK_LABEL(label), TRUE);
  gtk_label_set_max_width_chars(GTK_LABEL(label), width_chars);
  gtk_label_set_width_chars(GTK_LABEL(label), width_chars);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_style_context_add_class(gtk_widget_get_style_context(label), "dim-label");
  return label;
}

std::string dialog_value(const edgewise::Settings& settings, const char* key) {
  const auto found = settings.dialog.find(key);
  return found == settings.dialog.end() ? "" : found->second;
}

// Whether a row is one of the Denoise controls of a method using its group
// (it is then shown under its plain name, not under Advanced).
bool is_denoise_control(const ControlRow& row, const ControlBlock& block) {
  for (const edgewise::FilterInfo* filter : block.filters)
    for (const edgewise::DenoiseControl& control : filter->denoise.controls)
      if (filter->find_param(control.flag) == row.param) return true;
  return false;
}

// A method's own parameter named like a Denoise control (the pyramid's and
// nlbayes's strength): Strength already says it, so Advanced leaves it out
// and the method keeps its default (keep_repeated_at_default).
bool repeats_denoise_control(const edgewise::ParamInfo* param) {
  for (const edgewise::ParamInfo& control : edgewise::denoise_group().params)
    if (param && std::string(param->cli_flag) == control.cli_flag) return true;
  return false;
}

void keep_repeated_at_default(edgewise::FilterSpec& spec) {
  for (const edgewise::ParamInfo& control : edgewise::denoise_group().params)
    if (const edgewise::ParamInfo* own = spec.filter().find_param(control.cli_flag))
      edgewise::set_param(spec, own->cli_flag, own->default_value);
}

// The Advanced rows: the Denoise methods' groups, less their plain controls
// and the parameters that would repeat Strength, Luminance or Colour.
DialogLayout advanced_layout(const edgewise::Registry& registry, const edgewise::BackendList& backends) {
  DialogLayout all = describe_dialog(registry, backends, nullptr);
  DialogLayout advanced;
  advanced.backends = all.backends;
  const std::vector<const edgewise::FilterInfo*> methods = edgewise::denoise_methods(registry);
  for (ControlBlock& block : all.blocks) {
    std::vector<const edgewise::FilterInfo*> users;
    for (const edgewise::FilterInfo* filter : block.filters)
      if (std::find(methods.begin(), methods.end(), filter) != methods.end()) users.push_back(filter);
    if (users.empty()) continue;
    block.filters = users;
    std::vector<ControlRow> rows;
    for (ControlRow& row : block.rows) {
      if (is_denoise_control(row, block) || repeats_denoise_control(row.param)) continue;
      rows.push_back(std::move(row));
    }
    block.rows = std::move(rows);
    advanced.blocks.push_back(std::move(block));
  }
  return advanced;
}

class DenoiseDialog {
 public:
  DenoiseDialog(ImagePort& image, const edgewise::DenoiseSettings& initial, const DialogOptions& options);
  ~DenoiseDialog();
  bool run(edgewise::DenoiseSettings& denoise);

 private:
  GtkWidget* build_controls();
  void build_method_rows(GtkGrid* grid);
  GtkWidget* build_noise_frame();
  GtkWidget* build_advanced();
  void show(const edgewise::DenoiseSettings& denoise);
  void changed();
  const edgewise::FilterInfo& method_shown() const;
  void keep_state(edgewise::DenoiseSettings& denoise) const;

  DialogOptions options_;
  const edgewise::Registry& registry_;
  const edgewise::BackendList& backends_;
  std::vector<const edgewise::FilterInfo*> methods_;
  DialogLayout advanced_;
  edgewise::NoiseEstimate measured_;
  // Where it runs (the GPU makes the slow methods quick), from the backend
  // the dialog opens with, and the recommendation for it.
  edgewise::RecommendContext context_;
  edgewise::Recommendation recommended_;
  int colours_ = 3;
  edgewise::DenoiseSettings denoise_;
  edgewise::Settings amounts_;  // Strength, Luminance, Colour as a spec of denoise_controls()
  std::string problem_;
  ParamControls amount_controls_;
  ParamControls method_controls_;  // each method's plain controls and its Advanced rows
  NoisePlot plot_;
  HelpWindow help_;
  std::unique_ptr<PreviewPane> pane_;
  GtkWidget* dialog_ = nullptr;
  GtkWidget* method_ = nullptr;
  GtkWidget* why_ = nullptr;         // the recommendation's reason, or what the method is for
  GtkWidget* together_ = nullptr;    // why Luminance and Colour are one control, when they are
  GtkWidget* noise_text_ = nullptr;  // the levels, or why they are a guess
  GtkWidget* expander_ = nullptr;
  std::vector<std::pair<GtkWidget*, const ControlBlock*>> frames_;
  GtkWidget* backend_ = nullptr;
  GtkWidget* backend_line_ = nullptr;
  GtkWidget* ok_ = nullptr;
};

DenoiseDialog::DenoiseDialog(ImagePort& image, const edgewise::DenoiseSettings& initial, const DialogOptions& options)
    : options_(options),
      registry_(options.registry ? *options.registry : edgewise::builtin_registry()),
      backends_(options.backends ? *options.backends : edgewise::installed_backends()),
      methods_(edgewise::denoise_methods(registry_)),
      advanced_(advanced_layout(registry_, backends_)),
      denoise_(initial),
      amounts_(edgewise::default_settings(edgewise::denoise_controls())),
      amount_controls_([this] { changed(); }),
      method_controls_([this] { changed(); }) {
  apply_theme(options.theme);
  // Once per dialog, from the whole image: the recommendation, the auto
  // values and every preview follow it, whatever region or zoom it shows.
  measured_ = estimate_image_noise(image);
  context_ = edgewise::recommend_context(denoise_.settings.backend, image.shape().width, image.shape().height,
                                        backends_);
  recommended_ = edgewise::recommend_method(measured_, registry_, context_);
  colours_ = image.shape().channels >= 3 ? 3 : 1;

  dialog_ = gtk_dialog_new();
  gtk_window_set_title(GTK_WINDOW(dialog_), options.title.c_str());
  gtk_window_set_position(GTK_WINDOW(dialog_), GTK_WIN_POS_CENTER);
  GtkWidget* help = gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Help", GTK_RESPONSE_HELP);
  gtk_button_box_set_child_secondary(GTK_BUTTON_BOX(gtk_widget_get_parent(help)), help, TRUE);
  gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Reset", kResponseReset);
  gtk_dialog_add_button(GTK_DIALOG(dialog_), "_Cancel", GTK_RESPONSE_CANCEL);
  ok_ = gtk_dialog_add_button(GTK_DIALOG(dialog_), "_OK", GTK_RESPONSE_OK);
  gtk_dialog_set_default_response(GTK_DIALOG(dialog_), GTK_RESPONSE_OK);

  pane_ = std::make_unique<PreviewPane>(image, options.observer);
  method_controls_.set_image(image.shape());
  amount_controls_.set_image(image.shape());
  GtkWidget* columns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18);
  gtk_container_set_border_width(GTK_CONTAINER(columns), 12);
  gtk_box_pack_start(GTK_BOX(columns), pane_->widget(), TRUE, TRUE, 0);
  gtk_box_pack_start(GTK_BOX(columns), build_controls(), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(gtk_dialog_get_content_area(GTK_DIALOG(dialog_))), columns, TRUE, TRUE, 0);
  press_ok_on_return(dialog_, ok_);
  pane_->restore(dialog_value(initial.settings, "view"), dialog_value(initial.settings, "zoom"));
  int width = 0, height = 0;
  if (std::sscanf(dialog_value(initial.settings, "size").c_str(), "%dx%d", &width, &height) == 2)
    gtk_window_set_default_size(GTK_WINDOW(dialog_), std::clamp(width, kMinSize, kMaxSize),
                                std::clamp(height, kMinSize, kMaxSize));
  if (dialog_value(initial.settings, "advanced") == "open") gtk_expander_set_expanded(GTK_EXPANDER(expander_), TRUE);
  show(denoise_);
}

DenoiseDialog::~DenoiseDialog() {
  gtk_widget_destroy(dialog_);
  pane_.reset();  // after its widgets: stops the worker
}

// Method and its line, Strength, Luminance, Colour (or why one does both),
// the method's plain controls; the noise; Advanced; where it runs.
GtkWidget* DenoiseDialog::build_controls() {
  GtkWidget* column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget* grid = new_grid();
  build_method_rows(GTK_GRID(grid));
  std::vector<ControlRow> amounts =
      describe_dialog(edgewise::Registry({&edgewise::denoise_controls()}), backends_, nullptr).blocks.front().rows;
  amount_controls_.add_rows(GTK_GRID(grid), amounts);
  together_ = dim_label(44);
  int top = 0;
  while (gtk_grid_get_child_at(GTK_GRID(grid), 0, top)) ++top;
  gtk_grid_attach(GTK_GRID(grid), together_, 0, top, 4, 1);
  std::vector<ControlRow> plain;
  for (const edgewise::FilterInfo* method : methods_)
    for (const edgewise::DenoiseControl& control : method->denoise.controls)
      plain.push_back(denoise_control_row(*method, control));
  method_controls_.add_rows(GTK_GRID(grid), plain);
  gtk_box_pack_start(GTK_BOX(column), grid, FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(column), build_noise_frame(), FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(column), build_advanced(), FALSE, FALSE, 0);
  backend_line_ = dim_label(44);
  gtk_box_pack_end(GTK_BOX(column), backend_line_, FALSE, FALSE, 0);
  return column;
}

// "Recommended: Multiscale" first (the reason below it), then each method
// in bold with what it is good for.
void DenoiseDialog::build_method_rows(GtkGrid* grid) {
  GtkListStore* store = gtk_list_store_new(1, G_TYPE_STRING);
  const auto add = [store](const std::string& name, const std::string& line) {
    gchar* markup = g_markup_printf_escaped("<b>%s</b>\n<small>%s</small>", name.c_str(), line.c_str());
    gtk_list_store_insert_with_values(store, nullptr, -1, 0, markup, -1);
    g_free(markup);
  };
  // The reason without the method's name, which the entry's first line has.
  const std::string recommended = recommended_.method ? recommended_.method->denoise.method : "";
  const std::string noise = recommended_.reason.substr(0, recommended_.reason.rfind(": "));
  add("Recommended: " + recommended, "for this image's noise: " + noise);
  for (const edgewise::FilterInfo* method : methods_) add(method->denoise.method, method->denoise.good_for);
  method_ = gtk_combo_box_new_with_model(GTK_TREE_MODEL(store));
  g_object_unref(store);
  GtkCellRenderer* text = gtk_cell_renderer_text_new();
  g_object_set(text, "wrap-width", 300, "wrap-mode", PANGO_WRAP_WORD, nullptr);
  gtk_cell_layout_pack_start(GTK_CELL_LAYOUT(method_), text, TRUE);
  gtk_cell_layout_set_attributes(GTK_CELL_LAYOUT(method_), text, "markup", 0, nullptr);
  gtk_widget_set_tooltip_text(method_,
                              "How the noise is removed. Recommended: the method the noise measured in this image "
                              "suits. Each method's settings follow the noise; Strength says how much of it.");
  GtkWidget* label = gtk_label_new_with_mnemonic("_Method");
  gtk_widget_set_halign(label, GTK_ALIGN_START);
  gtk_label_set_mnemonic_widget(GTK_LABEL(label), method_);
  gtk_grid_attach(grid, label, 0, 0, 1, 1);
  gtk_grid_attach(grid, method_, 1, 0, 3, 1);
  why_ = dim_label(44);
  gtk_grid_attach(grid, why_, 0, 1, 4, 1);
  g_signal_connect(method_, "changed",
                   G_CALLBACK(+[](GtkComboBox*, gpointer self) { static_cast<DenoiseDialog*>(self)->changed(); }),
                   this);
}

GtkWidget* DenoiseDialog::build_noise_frame() {
  GtkWidget* frame = gtk_frame_new("Noise in this image");
  GtkWidget* box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
  gtk_container_set_border_width(GTK_CONTAINER(box), 6);
  gtk_box_pack_start(GTK_BOX(box), plot_.widget(), FALSE, FALSE, 0);
  noise_text_ = dim_label(44);
  gtk_label_set_text(GTK_LABEL(noise_text_), noise_caption(measured_).c_str());
  gtk_box_pack_start(GTK_BOX(box), noise_text_, FALSE, FALSE, 0);
  gtk_container_add(GTK_CONTAINER(frame), box);
  return frame;
}

// The method's parameters, group by group, and the backend: shown on demand.
GtkWidget* DenoiseDialog::build_advanced() {
  expander_ = gtk_expander_new_with_mnemonic("_Advanced");
  GtkWidget* box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_margin_top(box, 6);
  for (const ControlBlock& block : advanced_.blocks) {
    GtkWidget* frame = gtk_frame_new(block.frame.empty() ? nullptr : block.frame.c_str());
    gtk_frame_set_shadow_type(GTK_FRAME(frame), block.frame.empty() ? GTK_SHADOW_NONE : GTK_SHADOW_ETCHED_IN);
    GtkWidget* rows = new_grid();
    gtk_container_set_border_width(GTK_CONTAINER(rows), block.frame.empty() ? 0 : 6);
    method_controls_.add_rows(GTK_GRID(rows), block.rows);
    gtk_container_add(GTK_CONTAINER(frame), rows);
    gtk_box_pack_start(GTK_BOX(box), frame, FALSE, FALSE, 0);
    gtk_widget_show_all(rows);
    gtk_widget_set_no_show_all(frame, TRUE);  // changed() shows the chosen method's
    frames_.emplace_back(frame, &block);
  }
  GtkWidget* grid = new_grid();
  GtkListStore* store = gtk_list_store_new(2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  std::string tooltip;
  for (const BackendEntry& entry : advanced_.backends) {
    gtk_list_store_insert_with_values(store, nullptr, -1, 0, entry.label.c_str(), 1, entry.usable, -1);
    tooltip += (tooltip.empty() ? "" : "\n") + entry.label + ": " + entry.description;
  }
  backend_ = gtk_combo_box_new_with_model(GTK_TREE_MODEL(store));
  g_object_unref(store);
  GtkCellRenderer* text = gtk_cell_renderer_text_new();
  gtk_cell_layout_pack_start(GTK_CELL_LAYOUT(backend_), text, TRUE);
  gtk_cell_layout_set_attributes(GTK_CELL_LAYOUT(backend_), text, "text", 0, "sensitive", 1, nullptr);
  gtk_widget_set_tooltip_text(backend_, tooltip.c_str());
  GtkWidget* label = gtk_label_new_with_mnemonic("_Backend");
  gtk_widget_set_halign(label, GTK_ALIGN_START);
  gtk_label_set_mnemonic_widget(GTK_LABEL(label), backend_);
  gtk_grid_attach(GTK_GRID(grid), label, 0, 0, 1, 1);
  gtk_grid_attach(GTK_GRID(grid), backend_, 1, 0, 1, 1);
  gtk_box_pack_start(GTK_BOX(box), grid, FALSE, FALSE, 0);
  g_signal_connect(backend_, "changed",
                   G_CALLBACK(+[](GtkComboBox*, gpointer self) { static_cast<DenoiseDialog*>(self)->changed(); }),
                   this);
  // Scrolled beyond a height that keeps the dialog within a 900-pixel
  // screen with the largest method's rows open.
  GtkWidget* scrolled = gtk_scrolled_window_new(nullptr, nullptr);
  gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height(GTK_SCROLLED_WINDOW(scrolled), TRUE);
  gtk_scrolled_window_set_propagate_natural_width(GTK_SCROLLED_WINDOW(scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height(GTK_SCROLLED_WINDOW(scrolled), kAdvancedHeight);
  gtk_container_add(GTK_CONTAINER(scrolled), box);
  gtk_container_add(GTK_CONTAINER(expander_), scrolled);
  return expander_;
}

const edgewise::FilterInfo& DenoiseDialog::method_shown() const {
  if (denoise_.method) return *denoise_.method;
  return recommended_.method ? *recommended_.method : registry_.default_filter();
}

void DenoiseDialog::show(const edgewise::DenoiseSettings& denoise) {
  denoise_ = denoise;
  if (&denoise_.settings.spec.filter() != &method_shown())
    denoise_.settings = edgewise::choose_filter(denoise_.settings, method_shown());
  for (const edgewise::ParamInfo& info : edgewise::denoise_group().params)
    edgewise::set_param(amounts_.spec, info.cli_flag, edgewise::denoise_value(denoise_, info.cli_flag));
  amount_controls_.show(amounts_);
  method_controls_.show(denoise_.settings);
  for (GtkWidget* combo : {method_, backend_}) {
    g_signal_handlers_block_matched(combo, G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, this);
    if (combo == method_) {
      const auto at = std::find(methods_.begin(), methods_.end(), denoise_.method);
      gtk_combo_box_set_active(GTK_COMBO_BOX(combo),
                               denoise_.method && at != methods_.end() ? int(at - methods_.begin()) + 1 : 0);
    } else {
      for (size_t i = 0; i < advanced_.backends.size(); ++i)
        if (advanced_.backends[i].choice == denoise_.settings.backend)
          gtk_combo_box_set_active(GTK_COMBO_BOX(combo), int(i));
    }
    g_signal_handlers_unblock_matched(combo, G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, this);
  }
  changed();
}

void DenoiseDialog::changed() {
  if (!pane_ || !backend_line_) return;  // building
  edgewise::DenoiseSettings next = denoise_;
  method_controls_.read(next.settings);          // the rows of the method shown until now
  keep_repeated_at_default(next.settings.spec);  // last values from before the row was left out
  amount_controls_.read(amounts_);
  for (const edgewise::ParamInfo& info : edgewise::denoise_group().params)
    edgewise::set_denoise_value(next, info.cli_flag, amounts_.spec.get(info.cli_flag));
  const int chosen = std::max(0, gtk_combo_box_get_active(GTK_COMBO_BOX(method_)));
  next.method = chosen == 0 ? nullptr : methods_[size_t(chosen - 1)];
  const int backend = std::max(0, gtk_combo_box_get_active(GTK_COMBO_BOX(backend_)));
  next.settings.backend = advanced_.backends[size_t(backend)].choice;
  const edgewise::DenoiseJob job = edgewise::plan_denoise(next, measured_, colours_, registry_, context_);
  if (&next.settings.spec.filter() != job.method) {
    // Values chosen carry over, the method's own defaults replace the old
    // one's (choose_filter); the rows then show them.
    next.settings = job.settings;
    method_controls_.show(next.settings);
  }
  denoise_ = next;

  const edgewise::FilterInfo& method = *job.method;
  // The list shows the method's line; recommended, the reason instead.
  std::string why = std::string(method.denoise.method) + ": " + method.denoise.good_for;
  if (!recommended_.note.empty()) why += "\n" + recommended_.note;
  gtk_label_set_text(GTK_LABEL(why_), why.c_str());
  gtk_widget_set_visible(why_, next.method == nullptr);
  const bool apart = edgewise::splits_luminance_colour(method, colours_);
  for (const char* flag : {"luminance", "colour"})
    for (GtkWidget* widget : amount_controls_.row(flag)) gtk_widget_set_visible(widget, apart);
  std::string together;
  if (colours_ < 3) {
    together = "A grey image has no colour noise: Strength sets how much grain is removed.";
  } else if (!apart) {
    std::string others;
    for (const edgewise::FilterInfo* candidate : methods_)
      if (candidate->denoise.separates)
        others += (others.empty() ? "" : " or ") + std::string(candidate->denoise.method);
    together = std::string("Luminance and colour: ") + method.denoise.method +
               " reads one noise level for both, so Strength sets them together" +
               (others.empty() ? "." : "; " + others + " sets them apart.");
  }
  gtk_label_set_text(GTK_LABEL(together_), together.c_str());
  gtk_widget_set_visible(together_, !together.empty());

  auto noise = std::make_shared<const edgewise::NoiseEstimate>(job.noise);
  method_controls_.set_noise(*noise,
                             "That is the noise under the plot times Strength (and Luminance or Colour, "
                             "for the methods that set them apart).");
  method_controls_.show_rows_of(method);
  method_controls_.refresh_dependent(next.settings);
  for (const auto& [frame, block] : frames_)
    gtk_widget_set_visible(frame,
                           std::find(block->filters.begin(), block->filters.end(), &method) != block->filters.end());
  plot_.set(measured_, job.noise);
  gtk_label_set_text(GTK_LABEL(backend_line_), backend_line(advanced_.backends, next.settings.backend).c_str());
  problem_ = edgewise::validate(job.settings.spec);
  gtk_widget_set_sensitive(ok_, problem_.empty());
  edgewise::Settings filtered = job.settings;
  filtered.dialog.clear();  // the preview's trace shows what it filtered
  edgewise::DenoiseSettings asked = next;
  const std::string text = edgewise::format_denoise(asked, registry_);
  pane_->set_noise(noise);
  pane_->set_settings(filtered, problem_, text.substr(0, text.find(" --filter ")));
}

void DenoiseDialog::keep_state(edgewise::DenoiseSettings& denoise) const {
  denoise.settings.dialog["view"] = pane_->view_word();
  denoise.settings.dialog["zoom"] = pane_->zoom_word();
  denoise.settings.dialog["advanced"] = gtk_expander_get_expanded(GTK_EXPANDER(expander_)) ? "open" : "closed";
  int width = 0, height = 0;
  gtk_window_get_size(GTK_WINDOW(dialog_), &width, &height);
  denoise.settings.dialog["size"] = std::to_string(width) + "x" + std::to_string(height);
}

bool DenoiseDialog::run(edgewise::DenoiseSettings& denoise) {
  stay_in_front_of(dialog_, options_.parent_window);
  gtk_widget_show_all(dialog_);
  changed();  // show_all showed every method's rows
  gtk_widget_grab_focus(method_);
  if (options_.observer) options_.observer->shown(edgewise::format_denoise(denoise_, registry_));
  for (;;) {
    const int response = run_dialog(GTK_DIALOG(dialog_));
    if (response == GTK_RESPONSE_HELP) {
      help_.show(GTK_WINDOW(dialog_), options_.title, denoise_help_text(registry_, advanced_));
      continue;
    }
    if (response == kResponseReset) {
      edgewise::DenoiseSettings defaults = edgewise::default_denoise(registry_);
      defaults.settings.dialog = denoise_.settings.dialog;
      show(defaults);
      continue;
    }
    if (response == GTK_RESPONSE_OK) {
      changed();  // commits a value still being typed
      if (!problem_.empty()) continue;
      keep_state(denoise_);
      denoise = denoise_;
      if (options_.observer) options_.observer->responded(true, edgewise::format_denoise(denoise_, registry_));
      return true;
    }
    if (options_.observer) options_.observer->responded(false, "");
    return false;
  }
}

}  // namespace

bool run_denoise_dialog(ImagePort& image, edgewise::DenoiseSettings& denoise, const DialogOptions& options) {
  DenoiseDialog dialog(image, denoise, options);
  return dialog.run(denoise);
}

}  // namespace edgewise_dialog
