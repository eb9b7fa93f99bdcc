#include "noise_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace edgewise_dialog {

namespace {

// Each curve's colour: luminance in the theme's text colour, colour noise
// in magenta (visible on light and dark themes alike).
void curve_colour(cairo_t* cr, const std::string& name, const GdkRGBA& text) {
  if (name == "colour")
    cairo_set_source_rgb(cr, 0.85, 0.25, 0.75);
  else
    cairo_set_source_rgba(cr, text.red, text.green, text.blue, 1.0);
}

}  // namespace

NoisePlot::NoisePlot() {
  area_ = gtk_drawing_area_new();
  gtk_widget_set_size_request(area_, 260, 96);
  gtk_widget_set_tooltip_text(area_,
                              "The noise in this image against brightness (0 black, 255 white): thin lines as "
                              "measured, thick lines as the method is told after Strength, Luminance and Colour");
  g_signal_connect(area_, "draw", G_CALLBACK(on_draw), this);
}

void NoisePlot::set(const edgewise::NoiseEstimate& measured, const edgewise::NoiseEstimate& used) {
  measured_ = noise_curves(measured);
  used_ = noise_curves(used);
  gtk_widget_queue_draw(area_);
}

gboolean NoisePlot::on_draw(GtkWidget* area, cairo_t* cr, gpointer self) {
  static_cast<NoisePlot*>(self)->draw(cr, gtk_widget_get_allocated_width(area), gtk_widget_get_allocated_height(area));
  return TRUE;
}

void NoisePlot::draw(cairo_t* cr, int width, int height) const {
  GdkRGBA text{};
  gtk_style_context_get_color(gtk_widget_get_style_context(area_), gtk_widget_get_state_flags(area_), &text);
  const double left = 30, right = width - 6.0, top = 6, bottom = height - 16.0;
  const double headroom = 1.2;  // the curves stay clear of the top
  double largest = 1.0;
  for (const auto* curves : {&measured_, &used_})
    for (const NoiseCurve& curve : *curves)
      for (const auto& point : curve.points) largest = std::max(largest, point.second);
  largest = std::ceil(headroom * largest / 5.0) * 5.0;  // a round top
  const auto x_of = [&](double brightness) { return left + (right - left) * brightness / 255.0; };
  const auto y_of = [&](double sigma) { return bottom - (bottom - top) * sigma / largest; };

  // Axes and their few labels.
  cairo_set_source_rgba(cr, text.red, text.green, text.blue, 0.5);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, left, top);
  cairo_line_to(cr, left, bottom);
  cairo_line_to(cr, right, bottom);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 9);
  char label[16];
  std::snprintf(label, sizeof label, "%.0f", largest);
  cairo_move_to(cr, 2, top + 8);
  cairo_show_text(cr, label);
  cairo_move_to(cr, 2, bottom);
  cairo_show_text(cr, "0");
  cairo_move_to(cr, left, height - 3.0);
  cairo_show_text(cr, "dark");
  cairo_text_extents_t extents;
  cairo_text_extents(cr, "bright", &extents);
  cairo_move_to(cr, right - extents.width, height - 3.0);
  cairo_show_text(cr, "bright");

  const auto stroke = [&](const NoiseCurve& curve, double line_width) {
    if (curve.points.empty()) return;
    curve_colour(cr, curve.name, text);
    cairo_set_line_width(cr, line_width);
    // Constant beyond the first and last points, as sigma_at is.
    cairo_move_to(cr, x_of(0), y_of(curve.points.front().second));
    for (const auto& [brightness, sigma] : curve.points) cairo_line_to(cr, x_of(brightness), y_of(sigma));
    cairo_line_to(cr, x_of(255), y_of(curve.points.back().second));
    cairo_stroke(cr);
  };
  for (const NoiseCurve& curve : measured_) stroke(curve, 1.0);
  for (const NoiseCurve& curve : used_) stroke(curve, 2.5);
  for (const NoiseCurve& curve : measured_) {  // the measured bins as dots
    if (!curve.measured) continue;
    curve_colour(cr, curve.name, text);
    for (const auto& [brightness, sigma] : curve.points) {
      cairo_arc(cr, x_of(brightness), y_of(sigma), 2.0, 0, 2 * M_PI);
      cairo_fill(cr);
    }
  }
  // The legend, in the middle of the bottom line: a short line and the name.
  double legend = 0;
  for (const NoiseCurve& curve : used_) {
    cairo_text_extents(cr, curve.name.c_str(), &extents);
    legend += 18 + extents.x_advance + 10;
  }
  double x = (left + right - legend) / 2;
  for (const NoiseCurve& curve : used_) {
    curve_colour(cr, curve.name, text);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, x, height - 6.0);
    cairo_line_to(cr, x + 14, height - 6.0);
    cairo_stroke(cr);
    cairo_move_to(cr, x + 18, height - 3.0);
    cairo_show_text(cr, curve.name.c_str());
    cairo_text_extents(cr, curve.name.c_str(), &extents);
    x += 18 + extents.x_advance + 10;
  }
}

}  // namespace edgewise_dialog
