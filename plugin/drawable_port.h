// The dialog's view of a GIMP drawable: its pixels through GEGL in the
// engine's float format (scaled reads use GEGL's own downscaling, as GIMP's
// previews do), and the selection's bounds as the part the filter changes.
#pragma once

#include <gegl.h>
#include <libgimp/gimp.h>

#include "image_port.h"

namespace edgewise_plugin {

class DrawablePort : public edgewise_dialog::ImagePort {
 public:
  explicit DrawablePort(gint32 drawable);
  ~DrawablePort() override;
  DrawablePort(const DrawablePort&) = delete;
  DrawablePort& operator=(const DrawablePort&) = delete;

  edgewise::ImageShape shape() const override { return shape_; }
  void read(const edgewise_dialog::Rect& rect, double scale, float* dst) override;
  edgewise_dialog::Rect affected() const override { return affected_; }

 private:
  GeglBuffer* buffer_;
  edgewise::ImageShape shape_;
  edgewise_dialog::Rect affected_;
};

}  // namespace edgewise_plugin
