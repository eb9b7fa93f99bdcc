#!/usr/bin/env bash
# Installs the built GIMP 2.10 plug-in in its own folder under GIMP's
# plug-ins, as `gimptool-2.0 --install-bin` would:
#   for you:        ${GIMP2_DIRECTORY:-~/.config/GIMP/2.10}/plug-ins/edgewise/edgewise
#   --system:       $(gimptool-2.0 --gimpplugindir)/plug-ins/edgewise/edgewise
# Usage: install/install-plugin.sh [--system] [--build DIR]   (DIR default: build)
# GIMP picks it up on its next start: Filters > Enhance > Edgewise Bilateral.
set -euo pipefail
source "$(dirname "$0")/plugin-folder.sh"
binary=$build/plugin/edgewise
if [ ! -x "$binary" ]; then
  echo "install-plugin: $binary not found; build first (cmake -S . -B $build && cmake --build $build)" >&2
  exit 1
fi
$sudo install -D -m 755 "$binary" "$folder/edgewise"
echo "installed $folder/edgewise"
