#include "preview_region.h"

#include <algorithm>
#include <cmath>

#include "filter_registry.h"

namespace edgewise_dialog {

Rect intersect(const Rect& a, const Rect& b) {
  const int left = std::max(a.x, b.x), top = std::max(a.y, b.y);
  const int right = std::min(a.right(), b.right()), bottom = std::min(a.bottom(), b.bottom());
  return {left, top, std::max(0, right - left), std::max(0, bottom - top)};
}

Rect grow(const Rect& rect, int margin) {
  return {rect.x - margin, rect.y - margin, rect.width + 2 * margin, rect.height + 2 * margin};
}

double fit_zoom(const View& view, const edgewise::ImageShape& image) {
  return std::min({1.0, double(view.pane_width) / image.width, double(view.pane_height) / image.height});
}

namespace {

// One axis: the visible span of working pixels, its first pixel and where
// it lands in the pane.
void place(int scaled_size, int pane, int magnify, double center, int& first, int& count, int& screen) {
  count = std::min(scaled_size, std::max(1, (pane + magnify - 1) / magnify));
  const double middle = center * scaled_size;
  first = int(std::lround(middle - count / 2.0));
  first = std::clamp(first, 0, scaled_size - count);
  // Smaller than the pane: centred; larger: the pane's edge may cut the
  // last working pixel when magnified.
  screen = count * magnify <= pane ? (pane - count * magnify) / 2 : 0;
}

}  // namespace

PreviewRegion plan_region(const View& view, const edgewise::ImageShape& image, const Rect& affected,
                          const edgewise::FilterSpec& spec) {
  PreviewRegion region;
  const double zoom = view.fit ? fit_zoom(view, image) : view.zoom;
  region.scale = std::min(zoom, 1.0);
  region.magnify = std::max(1, int(std::lround(zoom / region.scale)));
  // A hair above the product, so that fitting 1000 px into 500 gives 500.
  region.scaled_width = std::max(1, int(std::floor(image.width * region.scale + 1e-6)));
  region.scaled_height = std::max(1, int(std::floor(image.height * region.scale + 1e-6)));
  place(region.scaled_width, view.pane_width, region.magnify, view.center_x, region.visible.x, region.visible.width,
        region.screen_x);
  place(region.scaled_height, view.pane_height, region.magnify, view.center_y, region.visible.y, region.visible.height,
        region.screen_y);
  const Rect whole{0, 0, region.scaled_width, region.scaled_height};
  region.read =
      intersect(grow(region.visible, edgewise::filter_reach(edgewise::spec_at_scale(spec, region.scale))), whole);
  const double s = region.scale;
  const int left = int(std::floor(affected.x * s)), top = int(std::floor(affected.y * s));
  region.affected = intersect(
      {left, top, int(std::ceil(affected.right() * s)) - left, int(std::ceil(affected.bottom() * s)) - top}, whole);
  return region;
}

View pan(const View& view, const edgewise::ImageShape& image, double dx, double dy) {
  const double zoom = view.fit ? fit_zoom(view, image) : view.zoom;
  // The centre stays where the pane is still full of image, so that
  // dragging back after hitting an edge moves the picture at once.
  const auto move = [zoom](double center, double delta, int size, int pane) {
    const double half = std::min(0.5, pane / (2.0 * zoom * size));
    return std::clamp(center - delta / (zoom * size), half, 1.0 - half);
  };
  View moved = view;
  moved.center_x = move(view.center_x, dx, image.width, view.pane_width);
  moved.center_y = move(view.center_y, dy, image.height, view.pane_height);
  return moved;
}

}  // namespace edgewise_dialog
