// Filtering part of an image alone, as a GEGL operation filters the tile
// it is asked for: which pixels to read, and the spec to plan them with, so
// that the part comes out as it does when the whole image is filtered
// (FilterInfo::reach, region_grid and for_image). The borders of the
// image stay the borders: the part read never extends past them, and the
// filter clamps there as it does for the whole image.
#pragma once

#include "filter_registry.h"
#include "filter_spec.h"
#include "image_shape.h"

namespace edgewise {

// A rectangle of pixels in image coordinates.
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
  bool empty() const { return width <= 0 || height <= 0; }
  int right() const { return x + width; }
  int bottom() const { return y + height; }
};

// The part of `a` inside `b` (empty when they do not meet).
PixelRect intersect(const PixelRect& a, const PixelRect& b);

struct RegionPlan {
  FilterSpec spec;  // for_image's spec: what it leaves to the image's size fixed for the whole image
  PixelRect read;   // the pixels to filter: the wanted part grown by the reach, on the grid, within the image
};

// The spec with what it leaves to the image's size fixed for `image`
// (FilterInfo::for_image): a region's plan and reach follow it.
FilterSpec spec_for_image(const FilterSpec& spec, const ImageShape& image);

// For a wanted part inside the image (not empty). Throws
// std::invalid_argument with validate()'s message for a bad spec.
RegionPlan plan_region(const FilterSpec& spec, const ImageShape& image, const PixelRect& wanted);

}  // namespace edgewise
