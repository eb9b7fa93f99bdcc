#!/usr/bin/env bash
# Installs the built GIMP 2.10 plug-in in its own folder under GIMP's
# plug-ins, as `gimptool-2.0 --install-bin` would, and the GEGL module
# (every filter as a GEGL operation, for GIMP 3, GIMP 2.10's GEGL Operation
# tool and the gegl command) where GEGL looks, when it was built:
#   for you:   ${GIMP2_DIRECTORY:-~/.config/GIMP/2.10}/plug-ins/edgewise/edgewise
#              ${XDG_DATA_HOME:-~/.local/share}/gegl-0.4/plug-ins/edgewise-gegl.so
#   --system:  $(gimptool-2.0 --gimpplugindir)/plug-ins/edgewise/edgewise
#              $(pkg-config --variable=pluginsdir gegl-0.4)/edgewise-gegl.so
# Both link the engine, libedgewise-engine.so.0, which is installed beside
# each of them (both find it in their own folder; the Debian package
# installs one copy in /usr/lib/<multiarch>/edgewise instead).
# Usage: install/install-plugin.sh [--system] [--build DIR]   (DIR default: build)
# GIMP picks them up on its next start: Filters > Enhance > Edgewise Bilateral,
# and Tools > GEGL Operation > edgewise:bilateral.
set -euo pipefail
source "$(dirname "$0")/plugin-folder.sh"
binary=$build/plugin/edgewise
if [ ! -x "$binary" ]; then
  echo "install-plugin: $binary not found; build first (cmake -S . -B $build && cmake --build $build)" >&2
  exit 1
fi
# The installed files, not the build's: these have their RUNPATH for an
# installed engine ($ORIGIN), the build's point into the build folder.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage" >/dev/null
binary=$(find "$stage" -path '*/plug-ins/edgewise/edgewise' -type f)
engine=$(find "$stage" -name libedgewise-engine.so.0 -type f)
module=$(find "$stage" -name edgewise-gegl.so -type f)
$sudo install -D -m 755 "$binary" "$folder/edgewise"
$sudo install -D -m 644 "$engine" "$folder/libedgewise-engine.so.0"
echo "installed $folder/edgewise and its engine"
if [ -n "$module" ] && [ -n "$gegl_folder" ]; then
  $sudo install -D -m 644 "$module" "$gegl_folder/edgewise-gegl.so"
  $sudo install -D -m 644 "$engine" "$gegl_folder/libedgewise-engine.so.0"  # GEGL loads *.so files only
  echo "installed $gegl_folder/edgewise-gegl.so and its engine"
fi
