#!/usr/bin/env bash
# Removes what install-plugin.sh installed (same options): the GIMP plug-in
# and the GEGL module.
# Usage: install/uninstall-plugin.sh [--system]
set -euo pipefail
source "$(dirname "$0")/plugin-folder.sh"
if [ -e "$folder/edgewise" ]; then
  $sudo rm -f "$folder/edgewise" "$folder/libedgewise-engine.so.0"
  $sudo rmdir "$folder" 2>/dev/null || true  # keeps anything else put there
  echo "removed $folder/edgewise"
else
  echo "nothing to remove at $folder/edgewise"
fi
if [ -n "$gegl_folder" ] && [ -e "$gegl_folder/edgewise-gegl.so" ]; then
  $sudo rm -f "$gegl_folder/edgewise-gegl.so" "$gegl_folder/libedgewise-engine.so.0"
  echo "removed $gegl_folder/edgewise-gegl.so"
fi
