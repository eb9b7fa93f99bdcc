#include "dialog_window.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

#include <algorithm>

#include "user_guide.h"

namespace edgewise_dialog {

void apply_theme(ThemeVariant theme) {
  if (theme != ThemeVariant::desktop)
    g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme",
                 theme == ThemeVariant::dark ? TRUE : FALSE, nullptr);
}

void stay_in_front_of(GtkWidget* dialog, unsigned long parent_window) {
#ifdef GDK_WINDOWING_X11
  GdkDisplay* display = gtk_widget_get_display(dialog);
  if (!parent_window || !GDK_IS_X11_DISPLAY(display)) return;
  gtk_widget_realize(dialog);
  GdkWindow* parent = gdk_x11_window_foreign_new_for_display(display, Window(parent_window));
  if (!parent) return;
  gdk_window_set_transient_for(gtk_widget_get_window(dialog), parent);
  g_object_unref(parent);
#else
  (void)dialog;
  (void)parent_window;
#endif
}

namespace {

// The other controls either take Return themselves (buttons, check boxes)
// or pass it on to the default button (spin buttons activate it, sliders
// ignore the key). A combo's own button receives the default action, so the
// window's default activation would open the list: OK is pressed directly.
gboolean on_key_press(GtkWidget* window, GdkEventKey* event, gpointer ok) {
  const guint key = event->keyval;
  if (key != GDK_KEY_Return && key != GDK_KEY_KP_Enter && key != GDK_KEY_ISO_Enter) return FALSE;
  if (event->state & gtk_accelerator_get_default_mod_mask()) return FALSE;
  GtkWidget* focus = gtk_window_get_focus(GTK_WINDOW(window));
  if (!focus || !gtk_widget_get_ancestor(focus, GTK_TYPE_COMBO_BOX)) return FALSE;
  if (gtk_widget_is_sensitive(GTK_WIDGET(ok))) gtk_widget_activate(GTK_WIDGET(ok));  // nothing while OK is greyed out
  return TRUE;
}

gboolean hide_on_escape(GtkWidget* window, GdkEventKey* event, gpointer) {
  if (event->keyval != GDK_KEY_Escape) return FALSE;
  gtk_widget_hide(window);
  return TRUE;
}

void insert_spans(GtkTextBuffer* buffer, GtkTextIter* end, const std::vector<GuideSpan>& spans, const char* base) {
  for (const GuideSpan& span : spans) {
    const char* style = span.code ? "code" : span.bold ? "bold" : nullptr;
    gtk_text_buffer_insert_with_tags_by_name(buffer, end, span.text.c_str(), -1, base ? base : style,
                                             base ? style : nullptr, nullptr);
  }
}

// The Help window's size: the guide's widest picture (780 pixels) and its
// table's columns fit beside the margins and the scroll bar.
constexpr int kHelpWidth = 880, kHelpHeight = 760;
// Characters a table's columns share, each by its longest cell (at least
// kColumnChars): the guide's table filled 3 columns of 28 characters
// before, squeezed into a third of the window.
constexpr int kTableChars = 96, kColumnChars = 14;

GtkWidget* table_widget(const std::vector<std::vector<std::string>>& rows) {
  GtkWidget* grid = gtk_grid_new();
  gtk_grid_set_column_spacing(GTK_GRID(grid), 18);
  gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
  std::vector<size_t> longest;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (longest.size() <= c) longest.resize(c + 1, 0);
      longest[c] = std::max(longest[c], size_t(g_utf8_strlen(row[c].c_str(), -1)));
    }
  size_t total = 0;
  for (size_t chars : longest) total += chars;
  std::vector<int> width(longest.size(), kColumnChars);
  for (size_t c = 0; c < longest.size(); ++c)
    width[c] =
        std::max(kColumnChars, std::min(int(longest[c]), int(kTableChars * longest[c] / std::max<size_t>(total, 1))));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) {
      GtkWidget* cell = gtk_label_new(nullptr);
      if (r == 0) {
        gchar* bold = g_markup_printf_escaped("<b>%s</b>", rows[r][c].c_str());
        gtk_label_set_markup(GTK_LABEL(cell), bold);
        g_free(bold);
      } else {
        gtk_label_set_text(GTK_LABEL(cell), rows[r][c].c_str());
      }
      gtk_label_set_line_wrap(GTK_LABEL(cell), TRUE);
      gtk_label_set_width_chars(GTK_LABEL(cell), width[c]);
      gtk_label_set_max_width_chars(GTK_LABEL(cell), width[c]);
      gtk_label_set_xalign(GTK_LABEL(cell), 0);
      gtk_widget_set_valign(cell, GTK_ALIGN_START);
      gtk_grid_attach(GTK_GRID(grid), cell, int(c), int(r), 1, 1);
    }
  gtk_widget_show_all(grid);
  return grid;
}

GdkPixbuf* pixbuf_of(const std::vector<uint8_t>& png) {
  GdkPixbufLoader* loader = gdk_pixbuf_loader_new_with_type("png", nullptr);
  if (!loader) return nullptr;
  GdkPixbuf* pixbuf = nullptr;
  if (gdk_pixbuf_loader_write(loader, png.data(), png.size(), nullptr) && gdk_pixbuf_loader_close(loader, nullptr)) {
    pixbuf = gdk_pixbuf_loader_get_pixbuf(loader);
    if (pixbuf) g_object_ref(pixbuf);
  } else {
    gdk_pixbuf_loader_close(loader, nullptr);
  }
  g_object_unref(loader);
  return pixbuf;
}

// The guide's blocks into the text view, then the controls.
void render(GtkTextView* view, const std::string& controls) {
  GtkTextBuffer* buffer = gtk_text_view_get_buffer(view);
  gtk_text_buffer_create_tag(buffer, "h1", "weight", PANGO_WEIGHT_BOLD, "scale", 1.5, "pixels-below-lines", 6, nullptr);
  gtk_text_buffer_create_tag(buffer, "h2", "weight", PANGO_WEIGHT_BOLD, "scale", 1.25, "pixels-above-lines", 10,
                             "pixels-below-lines", 4, nullptr);
  gtk_text_buffer_create_tag(buffer, "h3", "weight", PANGO_WEIGHT_BOLD, "pixels-above-lines", 6, nullptr);
  gtk_text_buffer_create_tag(buffer, "bold", "weight", PANGO_WEIGHT_BOLD, nullptr);
  gtk_text_buffer_create_tag(buffer, "code", "family", "monospace", nullptr);
  gtk_text_buffer_create_tag(buffer, "item", "left-margin", 30, "indent", -14, nullptr);
  gtk_text_buffer_create_tag(buffer, "caption", "style", PANGO_STYLE_ITALIC, nullptr);
  GtkTextIter end;
  gtk_text_buffer_get_end_iter(buffer, &end);
  GuideBlock::Kind previous = GuideBlock::Kind::paragraph;
  for (const GuideBlock& block : parse_guide(user_guide_markdown())) {
    // A list ends with a blank line, as paragraphs do (the next paragraph
    // was set right under its last item).
    if (previous == GuideBlock::Kind::item && block.kind != GuideBlock::Kind::item)
      gtk_text_buffer_insert(buffer, &end, "\n", -1);
    previous = block.kind;
    switch (block.kind) {
      case GuideBlock::Kind::heading: {
        const std::string tag = "h" + std::to_string(std::min(block.level, 3));
        insert_spans(buffer, &end, block.spans, tag.c_str());
        break;
      }
      case GuideBlock::Kind::item:
        gtk_text_buffer_insert_with_tags_by_name(buffer, &end, "•  ", -1, "item", nullptr);
        insert_spans(buffer, &end, block.spans, "item");
        break;
      case GuideBlock::Kind::paragraph:
        insert_spans(buffer, &end, block.spans, nullptr);
        break;
      case GuideBlock::Kind::table: {
        GtkTextChildAnchor* anchor = gtk_text_buffer_create_child_anchor(buffer, &end);
        gtk_text_view_add_child_at_anchor(view, table_widget(block.rows), anchor);
        gtk_text_buffer_get_end_iter(buffer, &end);
        break;
      }
      case GuideBlock::Kind::image: {
        const std::vector<uint8_t>* png = guide_image(block.image);
        GdkPixbuf* pixbuf = png ? pixbuf_of(*png) : nullptr;
        if (pixbuf) {
          gtk_text_buffer_insert_pixbuf(buffer, &end, pixbuf);
          g_object_unref(pixbuf);
          gtk_text_buffer_insert(buffer, &end, "\n", -1);
        }
        gtk_text_buffer_insert_with_tags_by_name(buffer, &end, block.alt.c_str(), -1, "caption", nullptr);
        break;
      }
    }
    gtk_text_buffer_insert(buffer, &end, block.kind == GuideBlock::Kind::item ? "\n" : "\n\n", -1);
  }
  gtk_text_buffer_insert(buffer, &end, controls.c_str(), -1);
}

}  // namespace

int run_dialog(GtkDialog* dialog) {
  struct Run {
    GMainLoop* loop;
    int response;
  } run{g_main_loop_new(nullptr, FALSE), GTK_RESPONSE_NONE};
  const auto quit = [](Run& r) {
    if (g_main_loop_is_running(r.loop)) g_main_loop_quit(r.loop);
  };
  const gulong responded = g_signal_connect(dialog, "response", G_CALLBACK(+[](GtkDialog*, gint id, gpointer data) {
                                              auto& r = *static_cast<Run*>(data);
                                              r.response = id;
                                              if (g_main_loop_is_running(r.loop)) g_main_loop_quit(r.loop);
                                            }),
                                            &run);
  // Closed by the window manager: a response, as gtk_dialog_run makes it.
  const gulong closed = g_signal_connect(dialog, "delete-event", G_CALLBACK(+[](GtkWidget*, GdkEvent*, gpointer data) {
                                           auto& r = *static_cast<Run*>(data);
                                           r.response = GTK_RESPONSE_DELETE_EVENT;
                                           if (g_main_loop_is_running(r.loop)) g_main_loop_quit(r.loop);
                                           return gboolean(TRUE);
                                         }),
                                         &run);
  const gulong unmapped = g_signal_connect(dialog, "unmap", G_CALLBACK(+[](GtkWidget*, gpointer data) {
                                             auto& r = *static_cast<Run*>(data);
                                             if (g_main_loop_is_running(r.loop)) g_main_loop_quit(r.loop);
                                           }),
                                           &run);
  gtk_window_present(GTK_WINDOW(dialog));
  g_main_loop_run(run.loop);
  quit(run);
  g_signal_handler_disconnect(dialog, responded);
  g_signal_handler_disconnect(dialog, closed);
  g_signal_handler_disconnect(dialog, unmapped);
  g_main_loop_unref(run.loop);
  return run.response;
}

void press_ok_on_return(GtkWidget* dialog, GtkWidget* ok) {
  g_signal_connect(dialog, "key-press-event", G_CALLBACK(on_key_press), ok);
}

HelpWindow::~HelpWindow() {
  if (window_) gtk_widget_destroy(window_);
}

// Beside the dialog; Help again brings it to the front.
void HelpWindow::show(GtkWindow* parent, const std::string& title, const std::string& controls) {
  if (!window_) {
    window_ = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_title(GTK_WINDOW(window_), (title + " — Help").c_str());
    gtk_window_set_transient_for(GTK_WINDOW(window_), parent);
    gtk_window_set_default_size(GTK_WINDOW(window_), kHelpWidth, kHelpHeight);
    gtk_window_set_type_hint(GTK_WINDOW(window_), GDK_WINDOW_TYPE_HINT_DIALOG);
    // A window group of its own: the modal dialog's grab covers only its
    // group, so the help can be scrolled, read and closed beside it.
    GtkWindowGroup* group = gtk_window_group_new();
    gtk_window_group_add_window(group, GTK_WINDOW(window_));
    g_object_unref(group);  // the window keeps it
    GtkWidget* scrolled = gtk_scrolled_window_new(nullptr, nullptr);
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    GtkWidget* text = gtk_text_view_new();
    gtk_text_view_set_editable(GTK_TEXT_VIEW(text), FALSE);
    gtk_text_view_set_cursor_visible(GTK_TEXT_VIEW(text), FALSE);
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(text), GTK_WRAP_WORD);
    gtk_text_view_set_left_margin(GTK_TEXT_VIEW(text), 12);
    gtk_text_view_set_right_margin(GTK_TEXT_VIEW(text), 12);
    gtk_text_view_set_top_margin(GTK_TEXT_VIEW(text), 12);
    gtk_text_view_set_bottom_margin(GTK_TEXT_VIEW(text), 12);
    render(GTK_TEXT_VIEW(text), controls);
    gtk_container_add(GTK_CONTAINER(scrolled), text);
    gtk_container_add(GTK_CONTAINER(window_), scrolled);
    // Closing hides it, for the next Help; Escape closes it.
    g_signal_connect(window_, "delete-event", G_CALLBACK(gtk_widget_hide_on_delete), nullptr);
    g_signal_connect(window_, "key-press-event", G_CALLBACK(hide_on_escape), nullptr);
  }
  gtk_widget_show_all(window_);
  gtk_window_present(GTK_WINDOW(window_));
}

}  // namespace edgewise_dialog
