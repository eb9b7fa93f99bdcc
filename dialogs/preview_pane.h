// The live preview: a pane showing the filtered image around a point,
// dragged to pan, zoomed from Fit to 400% (scroll wheel or the combo), with
// the original, the result or both side by side. Filtering runs on a
// PreviewWorker; results reach the pane through the GTK main loop, and a
// stale one is never shown.
#pragma once

#include <gtk/gtk.h>

#include <memory>
#include <string>

#include "dialog_observer.h"
#include "image_port.h"
#include "preview_render.h"
#include "preview_worker.h"

namespace edgewise_dialog {

class PreviewPane {
 public:
  // `observer` may be null.
  PreviewPane(ImagePort& image, DialogObserver* observer);
  ~PreviewPane();
  PreviewPane(const PreviewPane&) = delete;
  PreviewPane& operator=(const PreviewPane&) = delete;

  GtkWidget* widget() const { return box_; }
  // Filters the view with these settings; `problem`, when not empty, says
  // why they cannot be filtered (shown instead of a new preview). `context`
  // goes before the settings in the trace (the Denoise dialog's controls).
  void set_settings(const Settings& settings, const std::string& problem = "", const std::string& context = "");
  // The whole image's noise, which previews of parameters at auto follow
  // (the Denoise dialog's: scaled by its controls, set before each change).
  void set_noise(std::shared_ptr<const edgewise::NoiseEstimate> noise) { noise_ = std::move(noise); }

  // The View choice and the zoom as words, kept with the dialog's values:
  // "result", "original", "split"; "fit", "25%", "50%", "100%", "200%",
  // "400%". restore() takes them back; a word it does not know keeps the
  // default (result, 100%).
  std::string view_word() const;
  std::string zoom_word() const;
  void restore(const std::string& view, const std::string& zoom);

 private:
  struct Mailbox;
  enum class Showing { result = 0, original = 1, split = 2 };

  GtkWidget* build_toolbar();
  void request();
  void receive(std::unique_ptr<PreviewResult> result);
  void show_progress(uint64_t generation, double fraction);
  void draw(cairo_t* cr);
  // The status line: what is computing and for how long, or the result.
  void set_status(const std::string& text);
  void show_computing();
  void stop_ticker();
  static gboolean on_tick(gpointer self);
  double split_x(int width) const;  // the split line's x in the pane
  bool near_split(double x) const;
  void report_on_screen();
  void set_zoom_index(int index);
  PreviewRegion current_region() const;
  std::string describe(const PreviewResult& result) const;

  static gboolean on_draw(GtkWidget*, cairo_t* cr, gpointer self);
  static void on_size(GtkWidget*, GdkRectangle* allocation, gpointer self);
  static gboolean on_press(GtkWidget*, GdkEventButton* event, gpointer self);
  static gboolean on_motion(GtkWidget*, GdkEventMotion* event, gpointer self);
  static gboolean on_release(GtkWidget*, GdkEventButton* event, gpointer self);
  static gboolean on_scroll(GtkWidget*, GdkEventScroll* event, gpointer self);
  static void on_zoom(GtkComboBox* combo, gpointer self);
  static void on_showing(GtkComboBox* combo, gpointer self);

  ImagePort& port_;
  DialogObserver* observer_;
  Settings settings_;
  std::string problem_, context_;
  View view_;
  std::shared_ptr<const PreviewInput> input_;
  std::shared_ptr<const edgewise::NoiseEstimate> noise_;
  std::unique_ptr<PreviewResult> shown_;
  cairo_surface_t* original_ = nullptr;  // shown_ as drawn: alpha over checks
  cairo_surface_t* filtered_ = nullptr;
  Showing showing_ = Showing::result;
  // Before the first result (a slow method after Filters > Re-Show): the
  // input's own pixels, so the pane is never a blank area.
  cairo_surface_t* waiting_ = nullptr;
  guint ticker_ = 0;         // updates "Computing… 1.2 s" while a preview runs
  gint64 started_us_ = 0;    // when the preview in flight was asked for
  std::string status_text_;  // as set on the label, for the trace
  double split_ = 0.5;       // the split line, a fraction of the pane's width
  bool dragging_split_ = false;

  bool dragging_ = false;
  double drag_x_ = 0, drag_y_ = 0;
  View drag_view_;

  GtkWidget* box_ = nullptr;
  GtkWidget* area_ = nullptr;
  GtkWidget* zoom_ = nullptr;
  GtkWidget* showing_combo_ = nullptr;
  GtkWidget* status_ = nullptr;
  GtkWidget* progress_ = nullptr;

  std::shared_ptr<Mailbox> mailbox_;
  std::unique_ptr<PreviewWorker> worker_;  // last: stopped first
};

}  // namespace edgewise_dialog
