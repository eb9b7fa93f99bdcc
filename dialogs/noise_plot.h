// A small plot of the image's noise against brightness (noise_curves.h):
// thin lines what was measured, thick lines what the method is told after
// Strength, Luminance and Colour, so a photographer sees at a glance
// whether the estimate is plausible and what the controls do to it.
#pragma once

#include <gtk/gtk.h>

#include <vector>

#include "noise_curves.h"

namespace edgewise_dialog {

class NoisePlot {
 public:
  NoisePlot();
  NoisePlot(const NoisePlot&) = delete;
  NoisePlot& operator=(const NoisePlot&) = delete;
  GtkWidget* widget() const { return area_; }
  void set(const edgewise::NoiseEstimate& measured, const edgewise::NoiseEstimate& used);

 private:
  static gboolean on_draw(GtkWidget* area, cairo_t* cr, gpointer self);
  void draw(cairo_t* cr, int width, int height) const;

  GtkWidget* area_ = nullptr;
  std::vector<NoiseCurve> measured_, used_;
};

}  // namespace edgewise_dialog
