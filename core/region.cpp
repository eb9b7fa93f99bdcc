#include "region.h"

#include <algorithm>
#include <stdexcept>

namespace edgewise {

PixelRect intersect(const PixelRect& a, const PixelRect& b) {
  const int left = std::max(a.x, b.x), top = std::max(a.y, b.y);
  const int right = std::min(a.right(), b.right()), bottom = std::min(a.bottom(), b.bottom());
  if (right <= left || bottom <= top) return {};
  return {left, top, right - left, bottom - top};
}

FilterSpec spec_for_image(const FilterSpec& spec, const ImageShape& image) {
  return spec.filter().for_image ? spec.filter().for_image(spec, image) : spec;
}

RegionPlan plan_region(const FilterSpec& spec, const ImageShape& image, const PixelRect& wanted) {
  throw_if_error(validate(spec));
  const PixelRect whole{0, 0, image.width, image.height};
  if (wanted.empty() || intersect(wanted, whole).width != wanted.width ||
      intersect(wanted, whole).height != wanted.height)
    throw std::invalid_argument("the part to filter is empty or not inside the image");
  const FilterInfo& filter = spec.filter();
  RegionPlan plan{spec_for_image(spec, image), {}};
  const int reach = filter_reach(plan.spec);
  const int grid = filter.region_grid ? std::max(1, filter.region_grid(plan.spec)) : 1;
  // Grown, then its origin moved down onto the grid (never past 0, which
  // is on it); the far edges need no grid.
  const int left = std::max(0, wanted.x - reach) / grid * grid;
  const int top = std::max(0, wanted.y - reach) / grid * grid;
  const int right = std::min(image.width, wanted.right() + reach);
  const int bottom = std::min(image.height, wanted.bottom() + reach);
  plan.read = {left, top, right - left, bottom - top};
  return plan;
}

}  // namespace edgewise
