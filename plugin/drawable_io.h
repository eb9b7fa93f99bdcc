// A drawable's pixels for the engine. Pixels travel as babl's perceptual
// float formats (R'G'B'(A) / Y'(A) float), which is what the engine expects
// whatever the drawable's precision; GEGL converts from and back to
// 8/16/32-bit, half or float storage, so nothing is lost on the way. The
// region adapter reads and writes them through gegl/buffer_rects.h, as the
// GEGL operation does; reads clamp at the buffer's edge, as the CLI's
// borders do.
#pragma once

#include <gegl.h>
#include <libgimp/gimp.h>

#include "buffer_rects.h"
#include "image_shape.h"

namespace edgewise_plugin {

// The perceptual float format for a drawable with these channels.
const Babl* float_format(int channels);

// The drawable's size and channels (grey or RGB, then alpha when it has it).
edgewise::ImageShape drawable_shape(gint32 drawable);

// One of the drawable's buffers (its own, its shadow) in drawable
// coordinates, at full size, in float_format.
edgewise_gegl::BufferView drawable_view(GeglBuffer* buffer, int channels);

}  // namespace edgewise_plugin
