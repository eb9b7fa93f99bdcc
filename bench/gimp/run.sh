#!/usr/bin/env bash
# Seconds to denoise a 24 MP RGB photo inside GIMP 2.10 batch mode, for
# Edgewise next to GIMP's own selective Gaussian blur and G'MIC's bilateral
# (Debian gimp-gmic). Not a test. Each case is its own gimp-console run:
# load, filter, save; the filter's cost is that minus the same run without
# the filter (load and save only), so GIMP's start and the file I/O cancel.
# The plug-in prints its read / filter / write phases (EDGEWISE_TIMING=1).
# Usage: bench/gimp/run.sh [BUILD_DIR] (default build; needs build/plugin/edgewise)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build}
plugin=$build/plugin/edgewise
[ -x "$plugin" ] || { echo "run.sh: $plugin not built" >&2; exit 1; }
gimp_console=$(command -v gimp-console-2.10)
work=$(mktemp -d /tmp/edgewise-gimp-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{config,plug-ins/edgewise,tmp,swap}
mkdir -p "$work"/config/{brushes,dynamics,gradients,palettes,patterns,tool-presets,fonts}
ln -s "$plugin" "$work/plug-ins/edgewise/edgewise"
system_plug_ins=$(pkg-config --variable=gimplibdir gimp-2.0 2>/dev/null || echo /usr/lib/gimp/2.0)/plug-ins
cat > "$work/config/gimprc" <<GIMPRC
(plug-in-path "$work/plug-ins:$system_plug_ins")
(temp-path "$work/tmp")
(swap-path "$work/swap")
(tile-cache-size 4096M)
GIMPRC
export GIMP2_DIRECTORY=$work/config
cd "$work/tmp"

gimp_batch() { "$gimp_console" -i -d -f -b "$1" -b '(gimp-quit 0)' > "$work/last.log" 2>&1; }

# The photo: tests/data/astronaut.png scaled to 6000 x 4000 with noise, as an
# uncompressed TIFF so that loading and saving cost little next to filtering.
# This first run also lets GIMP query every plug-in before anything is timed.
photo=$work/photo.tif
gimp_batch "(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$repo/tests/data/astronaut.png\" \"\")))
                   (layer (car (gimp-image-get-active-drawable image))))
              (gimp-image-scale image 6000 4000)
              (plug-in-rgb-noise RUN-NONINTERACTIVE image layer 1 0 0.08 0.08 0.08 0)
              (gimp-file-save RUN-NONINTERACTIVE image layer \"$photo\" \"\"))"
[ -s "$photo" ] || { cat "$work/last.log"; exit 1; }

# Seconds for one batch that loads the photo, runs FILTER on it, saves it.
time_batch() {
  local start end
  start=$(date +%s.%N)
  gimp_batch "(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$photo\" \"\")))
                     (layer (car (gimp-image-get-active-drawable image))))
                $1
                (gimp-file-save RUN-NONINTERACTIVE image layer \"$work/out.tif\" \"\"))"
  end=$(date +%s.%N)
  grep -q "execution error" "$work/last.log" && { cat "$work/last.log" >&2; exit 1; }
  awk -v end="$end" -v start="$start" 'BEGIN { printf "%.3f", end - start }'
}

baseline=$(time_batch "")
declare -a names commands
names+=("Edgewise rgb, sigma-s 3 (r 6), sigma-r 20, cpu")
commands+=("(plug-in-edgewise-bilateral RUN-NONINTERACTIVE image layer 1 3.0 0 20.0 0 1 0)")
names+=("GIMP plug-in-sel-gauss radius 6, max-delta 20")
commands+=("(plug-in-sel-gauss RUN-NONINTERACTIVE image layer 6.0 20)")
names+=("G'MIC plug-in-gmic-qt \"bilateral 3,20\"")
commands+=("(plug-in-gmic-qt RUN-NONINTERACTIVE image layer 1 0 \"bilateral 3,20\")")

echo "24 MP RGB (6000 x 4000, 8-bit), GIMP $("$gimp_console" --version | awk '{print $NF}'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf "%-50s %10s %10s\n" "filter" "batch s" "filter s"
printf "%-50s %10.2f %10s\n" "load + save only" "$baseline" "-"
for i in "${!names[@]}"; do
  export EDGEWISE_TIMING=1
  seconds=$(time_batch "${commands[$i]}")
  unset EDGEWISE_TIMING
  printf "%-50s %10.2f %10.2f\n" "${names[$i]}" "$seconds" "$(awk -v a="$seconds" -v b="$baseline" 'BEGIN { print a - b }')"
  grep "edgewise timing" "$work/last.log" | sed 's/^/    /' || true
done
