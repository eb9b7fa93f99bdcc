#!/usr/bin/env bash
# Installs the built GIMP 2.10 plug-in in its own folder under GIMP's
# plug-ins, as `gimptool-2.0 --install-bin` would:
#   for you:        ${GIMP2_DIRECTORY:-~/.config/GIMP/2.10}/plug-ins/edgewise/edgewise
#   --system:       $(gimptool-2.0 --gimpplugindir)/plug-ins/edgewise/edgewise
# Usage: install/install-plugin.sh [--system] [--build DIR]   (DIR default: build)
# GIMP picks it up on its next start: Filters > Enhance > Edgewise Bilateral.
set -euo pipefail
# Options shared with uninstall-plugin.sh: the same parsing in both, so that
# --system means the same folder to each.
repo=$(cd "$(dirname "$0")/.." && pwd)
system=0
build=$repo/build
while [ $# -gt 0 ]; do
  case $1 in
    --system) system=1 ;;
    --build) build=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "$(basename "$0"): unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
sudo=""
if [ $system = 1 ]; then
  if ! command -v gimptool-2.0 >/dev/null; then
    echo "$(basename "$0"): gimptool-2.0 not found (Debian libgimp2.0-dev)" >&2
    exit 1
  fi
  folder=$(gimptool-2.0 --gimpplugindir)/plug-ins/edgewise
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
else
  folder=${GIMP2_DIRECTORY:-$HOME/.config/GIMP/2.10}/plug-ins/edgewise
fi
binary=$build/plugin/edgewise
if [ ! -x "$binary" ]; then
  echo "install-plugin: $binary not found; build first (cmake -S . -B $build && cmake --build $build)" >&2
  exit 1
fi
$sudo install -D -m 755 "$binary" "$folder/edgewise"
echo "installed $folder/edgewise"
