// Helpers for the tests of a part of an image filtered alone (core/region.h,
// core/region_job.h): an image in memory read and written by rectangles,
// specs drawn for any filter of a registry, and the parts a GEGL render
// asks for (1x1, single rows and columns, corners, tiles, the whole).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "filter_registry.h"
#include "float_image.h"
#include "region_job.h"

namespace edgewise_test {

// Rectangles of a FloatImage: the region job's source and sink.
class ImageRects : public edgewise::RectSource, public edgewise::RectSink {
 public:
  explicit ImageRects(edgewise::FloatImage& image) : image_(image) {}
  void read(const edgewise::PixelRect& rect, float* dst, size_t row_floats) override;
  void write(const edgewise::PixelRect& rect, const float* src, size_t row_floats) override;
  int writes = 0;

 private:
  edgewise::FloatImage& image_;
};

// An image of `shape` filled with NaN: what a part job did not write stays NaN.
edgewise::FloatImage nan_image(const edgewise::ImageShape& shape);

// A spec of `filter` whose every parameter is drawn within the lowest
// quarter of its slider range (a choice among its spellings; auto for half of the
// parameters that take it), redrawn until it validates: a job no slower
// than the defaults' few times. The filter's defaults after 50 failures.
edgewise::FilterSpec random_spec(std::mt19937_64& rng, const edgewise::FilterInfo& filter);

// Parts of an image of this size to filter alone: a random rectangle, the
// whole image, and two of a 1x1 pixel, a row, a column and the corners.
std::vector<edgewise::PixelRect> test_parts(std::mt19937_64& rng, const edgewise::ImageShape& shape);

// The largest |a - b| over `part` (NaN counts as infinitely far).
double max_difference_in(const edgewise::FloatImage& a, const edgewise::FloatImage& b, const edgewise::PixelRect& part);
// Whether every sample outside `part` is still NaN.
bool untouched_outside(const edgewise::FloatImage& image, const edgewise::PixelRect& part);

std::string describe(const edgewise::PixelRect& part);

}  // namespace edgewise_test
