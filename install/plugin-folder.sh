# Sourced by install-plugin.sh and uninstall-plugin.sh, so that their options
# and --system mean the same folders to both. Sets repo, build, folder (the
# GIMP plug-in's), gegl_folder (the GEGL module's) and sudo from the
# script's arguments.
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
  gegl_folder=$(pkg-config --variable=pluginsdir gegl-0.4 2>/dev/null || true)
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
else
  folder=${GIMP2_DIRECTORY:-$HOME/.config/GIMP/2.10}/plug-ins/edgewise
  # Where GEGL (GIMP 2.10 and 3, the gegl command) looks for a user's modules.
  gegl_folder=${XDG_DATA_HOME:-$HOME/.local/share}/gegl-0.4/plug-ins
fi
