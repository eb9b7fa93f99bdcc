#include "drawable_checks.h"

#include <cstdlib>

namespace edgewise_plugin {

namespace {

std::string name_of(gint32 item) {
  gchar* name = gimp_item_get_name(item);
  std::string text = name ? name : "";
  g_free(name);
  return "'" + text + "'";
}

// GIMP's own rule (gimp_item_is_content_locked): an item's pixels are
// locked when its own lock is set or a group above it has its lock set; a
// layer mask's when its layer's are.
std::string locked_pixels(gint32 drawable) {
  gint32 item = drawable;
  std::string whose = name_of(drawable);
  if (gimp_item_is_layer_mask(drawable)) {
    item = gimp_layer_from_mask(drawable);
    if (item <= 0) return "";
    whose = "the layer mask of " + name_of(item);
  }
  for (gint32 holder = item; holder > 0; holder = gimp_item_get_parent(holder))
    if (gimp_item_get_lock_content(holder)) {
      const std::string where = holder == item ? "" : " (through the layer group " + name_of(holder) + ")";
      return whose + " has its pixels locked" + where + ": unlock them in the Layers dialog (Lock pixels) to filter it";
    }
  return "";
}

}  // namespace

bool drawable_checks_skipped() {
  const char* skip = std::getenv("EDGEWISE_SKIP_DRAWABLE_CHECKS");
  return skip && std::string(skip) == "1";
}

Refusal check_drawable(gint32 drawable) {
  // The image argument is not compared: the published procedures never did,
  // and GIMP's own filters work on the drawable alone.
  if (!gimp_item_is_valid(drawable) || !gimp_item_is_drawable(drawable) || gimp_item_get_image(drawable) <= 0)
    return {GIMP_PDB_CALLING_ERROR, "drawable " + std::to_string(drawable) + " is not a drawable of an open image"};
  if (!drawable_checks_skipped()) {
    if (gimp_item_is_group(drawable))
      return {GIMP_PDB_CALLING_ERROR, name_of(drawable) +
                                          " is a layer group, whose pixels are made from its layers: choose one of "
                                          "its layers to filter"};
    const std::string locked = locked_pixels(drawable);
    if (!locked.empty()) return {GIMP_PDB_CALLING_ERROR, locked};
  }
  if (gimp_drawable_is_indexed(drawable))
    return {GIMP_PDB_EXECUTION_ERROR,
            "Edgewise filters RGB and grey images; convert indexed images first (Image > Mode > RGB)"};
  return {};
}

}  // namespace edgewise_plugin
