#include "preview_pane.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace edgewise_dialog {

namespace {

struct ZoomStep {
  const char* label;
  const char* word;  // in the settings text
  double zoom;       // 0: fit
};
constexpr ZoomStep kZooms[] = {{"Fit", "fit", 0},   {"25%", "25%", 0.25}, {"50%", "50%", 0.5},
                               {"100%", "100%", 1}, {"200%", "200%", 2},  {"400%", "400%", 4}};
constexpr const char* kShowingWords[] = {"result", "original", "split"};
constexpr int kZoomCount = int(sizeof kZooms / sizeof kZooms[0]);
constexpr int kZoom100 = 3;
constexpr int kCheck = 8;              // checkerboard square under transparent pixels, as GIMP's
constexpr int kSplitGrab = 6;          // pixels either side of the split line that grab it
constexpr guint kTickMs = 200;         // the "Computing… 1.2 s" line's refresh
constexpr double kSplitMargin = 0.02;  // the split line stays this far inside the pane

// One 8-bit image (grey, grey+alpha, RGB, RGBA) as an opaque cairo surface,
// transparent pixels over light and dark checks.
cairo_surface_t* to_surface(const std::vector<uint8_t>& samples, int width, int height, int channels) {
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  cairo_surface_flush(surface);
  unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  const bool alpha = channels == 2 || channels == 4;
  for (int y = 0; y < height; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(data + size_t(y) * size_t(stride));
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = samples.data() + (size_t(y) * size_t(width) + size_t(x)) * size_t(channels);
      uint32_t rgb[3] = {p[0], p[0], p[0]};
      if (channels >= 3) rgb[1] = p[1], rgb[2] = p[2];
      if (alpha) {
        const uint32_t a = p[channels - 1], check = ((x / kCheck + y / kCheck) % 2) ? 102 : 153;
        for (auto& v : rgb) v = (v * a + check * (255 - a) + 127) / 255;
      }
      row[x] = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2];
    }
  }
  cairo_surface_mark_dirty(surface);
  return surface;
}

}  // namespace

// Results and progress cross from the worker thread to the main loop here.
// The pane forgets it on destruction; idle callbacks already queued then
// find no pane and drop what they carry.
struct PreviewPane::Mailbox {
  std::mutex mutex;
  PreviewPane* pane = nullptr;
  std::unique_ptr<PreviewResult> result;
  uint64_t progress_generation = 0;
  double fraction = -1;
  bool scheduled = false;

  static void post(const std::shared_ptr<Mailbox>& box) {  // with the mutex held
    if (box->scheduled) return;
    box->scheduled = true;
    g_idle_add(
        [](gpointer data) -> gboolean {
          std::unique_ptr<std::shared_ptr<Mailbox>> holder(static_cast<std::shared_ptr<Mailbox>*>(data));
          Mailbox& self = **holder;
          std::unique_lock<std::mutex> lock(self.mutex);
          self.scheduled = false;
          auto result = std::move(self.result);
          const uint64_t generation = self.progress_generation;
          const double fraction = self.fraction;
          self.fraction = -1;
          PreviewPane* pane = self.pane;
          lock.unlock();
          if (!pane) return G_SOURCE_REMOVE;
          if (fraction >= 0) pane->show_progress(generation, fraction);
          if (result) pane->receive(std::move(result));
          return G_SOURCE_REMOVE;
        },
        new std::shared_ptr<Mailbox>(box));
  }
};

PreviewPane::PreviewPane(ImagePort& image, DialogObserver* observer)
    : port_(image), observer_(observer), mailbox_(std::make_shared<Mailbox>()) {
  mailbox_->pane = this;
  // Starts at 100% on the middle of what the filter changes (the selection).
  const edgewise::ImageShape shape = port_.shape();
  const Rect affected = port_.affected();
  view_.center_x = (affected.x + affected.width / 2.0) / shape.width;
  view_.center_y = (affected.y + affected.height / 2.0) / shape.height;

  box_ = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_pack_start(GTK_BOX(box_), build_toolbar(), FALSE, FALSE, 0);
  area_ = gtk_drawing_area_new();
  gtk_widget_set_size_request(area_, 480, 360);
  gtk_widget_set_hexpand(area_, TRUE);
  gtk_widget_set_vexpand(area_, TRUE);
  gtk_widget_add_events(area_, GDK_BUTTON_PRESS_MASK | GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK |
                                   GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK);
  gtk_widget_set_tooltip_text(area_,
                              "Drag to move around the image; scroll to zoom. In the split view, drag the "
                              "white line to move the split");
  g_signal_connect(area_, "draw", G_CALLBACK(on_draw), this);
  g_signal_connect(area_, "size-allocate", G_CALLBACK(on_size), this);
  g_signal_connect(area_, "button-press-event", G_CALLBACK(on_press), this);
  g_signal_connect(area_, "motion-notify-event", G_CALLBACK(on_motion), this);
  g_signal_connect(area_, "button-release-event", G_CALLBACK(on_release), this);
  g_signal_connect(area_, "scroll-event", G_CALLBACK(on_scroll), this);
  GtkWidget* frame = gtk_frame_new(nullptr);
  gtk_frame_set_shadow_type(GTK_FRAME(frame), GTK_SHADOW_IN);
  gtk_container_add(GTK_CONTAINER(frame), area_);
  gtk_box_pack_start(GTK_BOX(box_), frame, TRUE, TRUE, 0);

  progress_ = gtk_progress_bar_new();
  gtk_box_pack_start(GTK_BOX(box_), progress_, FALSE, FALSE, 0);
  status_ = gtk_label_new("");
  gtk_label_set_line_wrap(GTK_LABEL(status_), TRUE);
  gtk_label_set_xalign(GTK_LABEL(status_), 0);
  gtk_label_set_width_chars(GTK_LABEL(status_), 40);
  gtk_box_pack_start(GTK_BOX(box_), status_, FALSE, FALSE, 0);

  worker_ = std::make_unique<PreviewWorker>(
      [box = mailbox_](PreviewResult&& result) {
        std::lock_guard<std::mutex> lock(box->mutex);
        box->result = std::make_unique<PreviewResult>(std::move(result));
        Mailbox::post(box);
      },
      [box = mailbox_](uint64_t generation, double fraction) {
        std::lock_guard<std::mutex> lock(box->mutex);
        box->progress_generation = generation;
        box->fraction = fraction;
        Mailbox::post(box);
      });
}

PreviewPane::~PreviewPane() {
  stop_ticker();
  worker_.reset();  // joins: nothing more is posted
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->pane = nullptr;
  }
  if (original_) cairo_surface_destroy(original_);
  if (filtered_) cairo_surface_destroy(filtered_);
  if (waiting_) cairo_surface_destroy(waiting_);
}

GtkWidget* PreviewPane::build_toolbar() {
  GtkWidget* bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget* zoom_label = gtk_label_new_with_mnemonic("_Zoom");
  zoom_ = gtk_combo_box_text_new();
  for (const ZoomStep& step : kZooms) gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(zoom_), step.label);
  gtk_combo_box_set_active(GTK_COMBO_BOX(zoom_), kZoom100);
  gtk_label_set_mnemonic_widget(GTK_LABEL(zoom_label), zoom_);
  gtk_widget_set_tooltip_text(zoom_,
                              "100% and above show exact pixels; below 100% the preview filters a "
                              "reduced copy with the spatial sigma scaled alike (an approximation)");
  g_signal_connect(zoom_, "changed", G_CALLBACK(on_zoom), this);

  GtkWidget* showing_label = gtk_label_new_with_mnemonic("_View");
  showing_combo_ = gtk_combo_box_text_new();
  for (const char* text : {"Result", "Original", "Split: original | result"})
    gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(showing_combo_), text);
  gtk_combo_box_set_active(GTK_COMBO_BOX(showing_combo_), int(Showing::result));
  gtk_label_set_mnemonic_widget(GTK_LABEL(showing_label), showing_combo_);
  g_signal_connect(showing_combo_, "changed", G_CALLBACK(on_showing), this);

  gtk_box_pack_start(GTK_BOX(bar), zoom_label, FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(bar), zoom_, FALSE, FALSE, 0);
  gtk_box_pack_start(GTK_BOX(bar), showing_label, FALSE, FALSE, 12);
  gtk_box_pack_start(GTK_BOX(bar), showing_combo_, FALSE, FALSE, 0);
  return bar;
}

std::string PreviewPane::view_word() const { return kShowingWords[int(showing_)]; }

std::string PreviewPane::zoom_word() const {
  const int index = gtk_combo_box_get_active(GTK_COMBO_BOX(zoom_));
  return kZooms[index < 0 ? kZoom100 : index].word;
}

void PreviewPane::restore(const std::string& view, const std::string& zoom) {
  for (int i = 0; i < 3; ++i)
    if (view == kShowingWords[i]) gtk_combo_box_set_active(GTK_COMBO_BOX(showing_combo_), i);
  for (int i = 0; i < kZoomCount; ++i)
    if (zoom == kZooms[i].word) set_zoom_index(i);
}

void PreviewPane::set_settings(const Settings& settings, const std::string& problem, const std::string& context) {
  settings_ = settings;
  problem_ = problem;
  context_ = context;
  request();
}

PreviewRegion PreviewPane::current_region() const {
  return plan_region(view_, port_.shape(), port_.affected(), settings_.spec);
}

static bool same_region(const PreviewRegion& a, const PreviewRegion& b) {
  const auto same = [](const Rect& r, const Rect& s) {
    return r.x == s.x && r.y == s.y && r.width == s.width && r.height == s.height;
  };
  return a.scale == b.scale && a.magnify == b.magnify && same(a.visible, b.visible) && same(a.read, b.read) &&
         same(a.affected, b.affected) && a.screen_x == b.screen_x && a.screen_y == b.screen_y;
}

void PreviewPane::request() {
  if (!area_ || gtk_widget_get_allocated_width(area_) <= 1) return;  // not laid out yet
  if (!problem_.empty()) {
    worker_->cancel();
    stop_ticker();
    set_status(problem_);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(progress_), 0);
    return;
  }
  const PreviewRegion region = current_region();
  // The UI thread reads (GIMP's plug-in protocol is not thread-safe); a new
  // read only when the view moved or the filter's reach changed.
  if (!input_ || !same_region(input_->region, region)) {
    input_ = read_preview_input(port_, region, noise_, settings_.backend);
  } else if (input_->noise != noise_) {
    // The same pixels with another estimate (the Denoise dialog's Strength):
    // they are shared, not read again.
    auto with_noise = std::make_shared<PreviewInput>(*input_);
    with_noise->noise = noise_;
    input_ = with_noise;
  }
  if (!shown_) {  // nothing filtered yet: the input's pixels meanwhile
    if (waiting_) cairo_surface_destroy(waiting_);
    waiting_ = to_surface(input_->original, input_->region.visible.width, input_->region.visible.height,
                          input_->shape.channels);
    gtk_widget_queue_draw(area_);
  }
  worker_->submit(settings_, input_, context_);
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(progress_), 0);
  started_us_ = g_get_monotonic_time();
  show_computing();
  if (!ticker_) ticker_ = g_timeout_add(kTickMs, on_tick, this);
}

void PreviewPane::set_status(const std::string& text) {
  if (text == status_text_) return;
  status_text_ = text;
  gtk_label_set_text(GTK_LABEL(status_), text.c_str());
  if (observer_) observer_->status(text);
}

// Never the last result's time while another runs (it read as this one's).
void PreviewPane::show_computing() {
  char text[160];
  const double seconds = double(g_get_monotonic_time() - started_us_) / 1e6;
  std::snprintf(text, sizeof text, "Computing the preview… %.1f s%s", seconds,
                shown_ ? " (showing the previous result)" : " (showing the original until then)");
  set_status(text);
}

void PreviewPane::stop_ticker() {
  if (ticker_) g_source_remove(ticker_);
  ticker_ = 0;
}

gboolean PreviewPane::on_tick(gpointer data) {
  static_cast<PreviewPane*>(data)->show_computing();
  return G_SOURCE_CONTINUE;
}

void PreviewPane::show_progress(uint64_t generation, double fraction) {
  if (generation == worker_->latest()) gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(progress_), fraction);
}

void PreviewPane::receive(std::unique_ptr<PreviewResult> result) {
  if (result->generation != worker_->latest()) return;  // overtaken on its way here
  stop_ticker();
  gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(progress_), 1.0);
  set_status(describe(*result));
  if (!result->error.empty()) return;  // keeps showing the last good preview
  if (original_) cairo_surface_destroy(original_);
  if (filtered_) cairo_surface_destroy(filtered_);
  original_ = to_surface(result->original, result->width, result->height, result->channels);
  filtered_ = to_surface(result->filtered, result->width, result->height, result->channels);
  shown_ = std::move(result);
  if (waiting_) cairo_surface_destroy(waiting_);
  waiting_ = nullptr;
  gtk_widget_queue_draw(area_);
}

std::string PreviewPane::describe(const PreviewResult& result) const {
  if (!result.error.empty()) return "Preview failed: " + result.error;
  char text[256];
  const int percent = int(std::lround(result.region.scale * result.region.magnify * 100));
  std::snprintf(text, sizeof text, "%d%%, %s · %s · took %.0f ms", percent,
                result.region.exact() ? "exact pixels" : "approximate below 100%", result.backend.c_str(),
                result.seconds * 1000);
  return result.notice.empty() ? text : std::string(text) + " · " + result.notice;
}

void PreviewPane::draw(cairo_t* cr) {
  const int width = gtk_widget_get_allocated_width(area_), height = gtk_widget_get_allocated_height(area_);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  cairo_paint(cr);
  if (!shown_ && !(waiting_ && input_)) return;
  // Where the shown result lies in the current view: while a drag waits for
  // its new preview, the old one moves with the pointer.
  const PreviewRegion now = current_region();
  const PreviewRegion& was = shown_ ? shown_->region : input_->region;
  const int shown_width = shown_ ? shown_->width : was.visible.width;
  const int shown_height = shown_ ? shown_->height : was.visible.height;
  cairo_surface_t* before = shown_ ? original_ : waiting_;
  cairo_surface_t* after = shown_ ? filtered_ : waiting_;
  double left = was.screen_x, top = was.screen_y;
  if (now.scale == was.scale && now.magnify == was.magnify) {
    left = now.screen_x + double(was.visible.x - now.visible.x) * now.magnify;
    top = now.screen_y + double(was.visible.y - now.visible.y) * now.magnify;
  }
  const auto paint = [&](cairo_surface_t* surface, double clip_left, double clip_right) {
    cairo_save(cr);
    cairo_rectangle(cr, clip_left, 0, clip_right - clip_left, height);
    cairo_clip(cr);
    cairo_translate(cr, left, top);
    cairo_scale(cr, was.magnify, was.magnify);
    cairo_set_source_surface(cr, surface, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, shown_width, shown_height);
    cairo_fill(cr);
    cairo_restore(cr);
  };
  if (showing_ == Showing::split) {
    const double middle = split_x(width);
    paint(before, 0, middle);
    paint(after, middle, width);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, middle, 0, 1, height);
    cairo_fill(cr);
    // A grip in the middle of the line says it can be dragged.
    cairo_rectangle(cr, middle - 3, height / 2.0 - 12, 7, 24);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_rectangle(cr, middle, height / 2.0 - 9, 1, 18);
    cairo_fill(cr);
  } else {
    paint(showing_ == Showing::original ? before : after, 0, width);
  }
  if (!shown_) return;  // the original meanwhile: no preview to report
  if (observer_ && observer_->wants_previews()) {
    // Reported once the frame is on the X server: after this draw, at low priority.
    g_idle_add_full(
        G_PRIORITY_LOW,
        [](gpointer data) -> gboolean {
          Mailbox& box = **static_cast<std::shared_ptr<Mailbox>*>(data);
          if (box.pane) box.pane->report_on_screen();  // the pane lives on the main thread, as this does
          return G_SOURCE_REMOVE;
        },
        new std::shared_ptr<Mailbox>(mailbox_),
        [](gpointer data) { delete static_cast<std::shared_ptr<Mailbox>*>(data); });
  }
}

void PreviewPane::report_on_screen() {
  if (!shown_ || !area_ || !gtk_widget_get_realized(area_)) return;
  const PreviewRegion now = current_region();
  const PreviewRegion& was = shown_->region;
  if (!same_region(now, was)) return;  // a moved view is reported when its own preview arrives
  gdk_display_sync(gtk_widget_get_display(area_));
  int origin_x = 0, origin_y = 0;
  gdk_window_get_origin(gtk_widget_get_window(area_), &origin_x, &origin_y);
  PreviewOnScreen preview;
  preview.generation = shown_->generation;
  preview.view = kShowingWords[int(showing_)];
  preview.scale = was.scale;
  preview.magnify = was.magnify;
  preview.visible = was.visible;
  preview.screen = {origin_x + was.screen_x, origin_y + was.screen_y,
                    std::min(was.visible.width * was.magnify, gtk_widget_get_allocated_width(area_) - was.screen_x),
                    std::min(was.visible.height * was.magnify, gtk_widget_get_allocated_height(area_) - was.screen_y)};
  preview.backend = shown_->backend;
  preview.seconds = shown_->seconds;
  preview.settings = shown_->settings;
  preview.split = split_;
  preview.pane = {origin_x, origin_y, gtk_widget_get_allocated_width(area_), gtk_widget_get_allocated_height(area_)};
  observer_->preview(preview);
}

void PreviewPane::set_zoom_index(int index) {
  index = std::clamp(index, 0, kZoomCount - 1);
  if (gtk_combo_box_get_active(GTK_COMBO_BOX(zoom_)) != index)
    gtk_combo_box_set_active(GTK_COMBO_BOX(zoom_), index);  // on_zoom does the rest
}

gboolean PreviewPane::on_draw(GtkWidget*, cairo_t* cr, gpointer self) {
  static_cast<PreviewPane*>(self)->draw(cr);
  return TRUE;
}

void PreviewPane::on_size(GtkWidget*, GdkRectangle* allocation, gpointer data) {
  auto* self = static_cast<PreviewPane*>(data);
  if (self->view_.pane_width == allocation->width && self->view_.pane_height == allocation->height) return;
  self->view_.pane_width = allocation->width;
  self->view_.pane_height = allocation->height;
  self->request();
}

gboolean PreviewPane::on_press(GtkWidget*, GdkEventButton* event, gpointer data) {
  auto* self = static_cast<PreviewPane*>(data);
  if (event->button != 1) return FALSE;
  if (self->showing_ == Showing::split && self->near_split(event->x)) {
    self->dragging_split_ = true;
    return TRUE;
  }
  self->dragging_ = true;
  self->drag_x_ = event->x;
  self->drag_y_ = event->y;
  self->drag_view_ = self->view_;
  return TRUE;
}

gboolean PreviewPane::on_motion(GtkWidget*, GdkEventMotion* event, gpointer data) {
  auto* self = static_cast<PreviewPane*>(data);
  if (self->dragging_split_) {
    const int width = std::max(1, gtk_widget_get_allocated_width(self->area_));
    self->split_ = std::clamp(event->x / width, kSplitMargin, 1 - kSplitMargin);
    gtk_widget_queue_draw(self->area_);
    return TRUE;
  }
  if (self->showing_ == Showing::split) {  // the pointer says what a press would drag
    GdkWindow* window = gtk_widget_get_window(self->area_);
    GdkCursor* cursor = self->near_split(event->x)
                            ? gdk_cursor_new_from_name(gtk_widget_get_display(self->area_), "col-resize")
                            : nullptr;
    gdk_window_set_cursor(window, cursor);
    if (cursor) g_object_unref(cursor);
  }
  if (!self->dragging_) return FALSE;
  const PreviewRegion before = self->current_region();
  self->view_ = pan(self->drag_view_, self->port_.shape(), event->x - self->drag_x_, event->y - self->drag_y_);
  if (!same_region(before, self->current_region())) {
    gtk_widget_queue_draw(self->area_);
    self->request();
  }
  return TRUE;
}

gboolean PreviewPane::on_release(GtkWidget*, GdkEventButton* event, gpointer data) {
  if (event->button != 1) return FALSE;
  static_cast<PreviewPane*>(data)->dragging_ = false;
  static_cast<PreviewPane*>(data)->dragging_split_ = false;
  return TRUE;
}

double PreviewPane::split_x(int width) const { return std::floor(width * split_); }

bool PreviewPane::near_split(double x) const {
  return std::abs(x - split_x(gtk_widget_get_allocated_width(area_))) <= kSplitGrab;
}

gboolean PreviewPane::on_scroll(GtkWidget*, GdkEventScroll* event, gpointer data) {
  auto* self = static_cast<PreviewPane*>(data);
  int step = 0;
  if (event->direction == GDK_SCROLL_UP) step = 1;
  if (event->direction == GDK_SCROLL_DOWN) step = -1;
  if (event->direction == GDK_SCROLL_SMOOTH) step = event->delta_y < 0 ? 1 : event->delta_y > 0 ? -1 : 0;
  if (step) self->set_zoom_index(gtk_combo_box_get_active(GTK_COMBO_BOX(self->zoom_)) + step);
  return TRUE;
}

void PreviewPane::on_zoom(GtkComboBox* combo, gpointer data) {
  auto* self = static_cast<PreviewPane*>(data);
  const int index = gtk_combo_box_get_active(combo);
  if (index < 0) return;
  self->view_.fit = kZooms[index].zoom == 0;
  if (!self->view_.fit) self->view_.zoom = kZooms[index].zoom;
  self->view_ = pan(self->view_, self->port_.shape(), 0, 0);  // keeps the pane full where it can
  gtk_widget_queue_draw(self->area_);
  self->request();
}

void PreviewPane::on_showing(GtkComboBox* combo, gpointer data) {
  auto* self = static_cast<PreviewPane*>(data);
  self->showing_ = Showing(std::max(0, gtk_combo_box_get_active(combo)));
  gtk_widget_queue_draw(self->area_);
}

}  // namespace edgewise_dialog
