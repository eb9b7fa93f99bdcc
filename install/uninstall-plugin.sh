#!/usr/bin/env bash
# Removes what install-plugin.sh installed (same options).
# Usage: install/uninstall-plugin.sh [--system]
set -euo pipefail
# Options shared with install-plugin.sh: the same parsing in both, so that
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
if [ -e "$folder/edgewise" ]; then
  $sudo rm -f "$folder/edgewise"
  $sudo rmdir "$folder" 2>/dev/null || true  # keeps anything else put there
  echo "removed $folder/edgewise"
else
  echo "nothing to remove at $folder/edgewise"
fi
