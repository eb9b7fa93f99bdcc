// Where the preview looks: a pane of some size, a zoom and a centre become
// the rectangle of (possibly scaled) image pixels on show, and the larger
// rectangle that must be filtered so those pixels come out exactly as the
// whole image's would.
//
// At 100% and above the preview is exact: it filters the visible pixels'
// neighbourhood at full resolution. Below 100% it filters the image scaled
// down to the pane with sigma-s and the radius scaled alike, as G'MIC-Qt and
// GIMP's mipmap previews do: one pane's worth of work at any zoom, at the
// price of an approximation (the dialog says so).
#pragma once

#include "filter_spec.h"
#include "image_port.h"

namespace edgewise_dialog {

struct View {
  bool fit = false;       // the whole image in the pane (never above 100%)
  double zoom = 1.0;      // screen pixels per image pixel when not fitting: 1/8 .. 8
  double center_x = 0.5;  // the image point at the pane's centre, as a fraction of its size
  double center_y = 0.5;
  int pane_width = 1, pane_height = 1;  // screen pixels
};

struct PreviewRegion {
  double scale = 1.0;                       // working scale: min(zoom, 1)
  int magnify = 1;                          // screen pixels per working pixel (zoom above 100%)
  int scaled_width = 0, scaled_height = 0;  // the image at `scale`
  Rect visible;                             // working pixels on show, scaled coordinates
  Rect read;                                // what is filtered: visible and its reach, clipped to the image
  Rect affected;                            // the part the filter changes, scaled coordinates
  int screen_x = 0, screen_y = 0;           // where visible's top-left corner lands in the pane

  bool exact() const { return scale == 1.0; }
};

// The zoom a fitting view shows the image at.
double fit_zoom(const View& view, const edgewise::ImageShape& image);
// `spec` is the user's; the region allows for its reach at the working
// scale (core's spec_at_scale: the filter's own preview scaling).
PreviewRegion plan_region(const View& view, const edgewise::ImageShape& image, const Rect& affected,
                          const edgewise::FilterSpec& spec);
// The view's centre moved by a drag of (dx, dy) screen pixels, kept inside the image.
View pan(const View& view, const edgewise::ImageShape& image, double dx, double dy);

}  // namespace edgewise_dialog
