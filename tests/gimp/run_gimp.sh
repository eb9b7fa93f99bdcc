#!/usr/bin/env bash
# Runs the plug-in inside real GIMP (gimp-console, no display) with a
# private GIMP2_DIRECTORY whose plug-in path holds only this build's plug-in
# and GIMP's own, and makes the CLI's results for the same inputs. ctest
# then compares the two (see CMakeLists.txt).
# Usage: run_gimp.sh WORK GIMP_CONSOLE PLUGIN CLI TOOL SOURCE_DIR
set -euo pipefail
work=$1 gimp_console=$2 plugin=$3 cli=$4 tool=$5 source=$6
data=$source/tests/data

rm -rf "$work"
mkdir -p "$work"/{config,plug-ins/edgewise,tmp,swap,in/batch,out/batch,ref/batch}
# Its own subfolder, as gimptool-2.0 --install-bin would put it.
ln -s "$plugin" "$work/plug-ins/edgewise/edgewise"
# The folders GIMP writes its data to must exist, or it complains on exit.
mkdir -p "$work"/config/{brushes,dynamics,gradients,palettes,patterns,tool-presets,fonts}
# Of GIMP's own plug-ins only those the checks use: a first start queries
# every plug-in on the path, which takes GIMP most of half a minute.
system_plug_ins=$(pkg-config --variable=gimplibdir gimp-2.0 2>/dev/null || echo /usr/lib/gimp/2.0)/plug-ins
for needed in script-fu file-png file-glob; do ln -s "$system_plug_ins/$needed" "$work/plug-ins/$needed"; done
cat > "$work/config/gimprc" <<GIMPRC
(plug-in-path "$work/plug-ins")
(temp-path "$work/tmp")
(swap-path "$work/swap")
GIMPRC

# Inputs: the test photos, a 16-bit copy and one with a varying alpha.
cp "$data/astronaut.png" "$data/camera.png" "$data/astronaut_noisy.png" "$work/in/"
cp "$data/astronaut.png" "$data/camera.png" "$work/in/batch/"
"$tool" widen "$data/astronaut.png" "$work/in/astronaut16.png"
"$tool" add-alpha "$data/astronaut.png" "$work/in/astronaut_rgba.png"

# The CLI's results: P1 (see checks.scm), the lab run and the batch example.
p1=(--mode rgb --sigma-s 2.5 --sigma-r 25 --iterations 2)
"$cli" "${p1[@]}" "$work/in/astronaut.png" -o "$work/ref/rgb.png"
"$cli" "${p1[@]}" "$work/in/astronaut_rgba.png" -o "$work/ref/rgba.png"
"$cli" "${p1[@]}" "$work/in/camera.png" -o "$work/ref/gray.png"
"$cli" "${p1[@]}" "$work/in/astronaut16.png" -o "$work/ref/u16.png"
"$cli" --mode lab --sigma-s 2 --radius 5 --sigma-r 8 --kernel tukey --backend cpu \
  "$work/in/astronaut.png" -o "$work/ref/lab.png"
"$cli" --filter adaptive --mode rgb --sigma-s 1.5 --sigma-r 30 --adapt-k 1.5 --adapt-eps 0.01 --adapt-min 0.002 --adapt-max 1 \
  --backend cpu \
  "$work/in/astronaut.png" -o "$work/ref/adaptive.png"
"$cli" --filter nlm --mode rgb --search-radius 4 --patch-radius 1 --h 12 --sigma-n 6 --backend cpu \
  "$work/in/astronaut.png" -o "$work/ref/nlm.png"
"$cli" --mode rgb --sigma-s 2 --sigma-r auto --backend cpu "$work/in/astronaut_noisy.png" -o "$work/ref/auto.png"
"$cli" --filter pyramid --mode rgb --sigma-s 1.5 --sigma-r 20 --levels 3 --backend cpu \
  "$work/in/astronaut.png" -o "$work/ref/pyramid.png"
"$cli" --filter fourier --mode per-channel --sigma-s 4 --sigma-r 30 --backend cpu \
  "$work/in/astronaut.png" -o "$work/ref/fourier.png"
"$cli" --filter learned --backend cpu "$work/in/astronaut_noisy.png" -o "$work/ref/learned.png"
"$cli" --mode per-channel --sigma-s 1.5 --sigma-r 30 --kernel lorentz \
  "$work/in/batch/astronaut.png" "$work/in/batch/camera.png" -o "$work/ref/batch"
# The double reference (tests/reference), in linear light and in R'G'B'.
"$tool" reference "$work/in/astronaut16.png" "$work/ref/linear.png" rgb 2.0 4 25.0 1 linear
"$tool" reference "$work/in/astronaut16.png" "$work/ref/perceptual.png" rgb 2.0 4 25.0 1 perceptual

cd "$work/tmp"
export GIMP2_DIRECTORY=$work/config
# -d: no brushes or patterns to load, which GIMP needs seconds for (fonts
# are loaded: the text layer case needs one). Each -b is evaluated on its
# own, so each loads the definitions it uses.
load="(load \"$source/tests/gimp/checks.scm\") (load \"$source/plugin/examples/edgewise-batch.scm\")"
refusal() { echo "(begin $load (edgewise-refusal-message \"$work\" $1 $2))"; }
"$gimp_console" -i -d \
  -b "(begin $load (edgewise-checks \"$work\"))" \
  -b "(begin $load (edgewise-error-message \"$work\" \"astronaut.png\" ew-no-change 1 -1.0))" \
  -b "(begin $load (edgewise-error-message \"$work\" \"astronaut.png\" ew-indexed 1 3.0))" \
  -b "$(refusal ew-case-group RUN-NONINTERACTIVE)" \
  -b "$(refusal ew-case-group RUN-INTERACTIVE)" \
  -b "$(refusal ew-case-locked RUN-NONINTERACTIVE)" \
  -b "$(refusal ew-case-locked-group RUN-NONINTERACTIVE)" \
  -b "$(refusal ew-case-layer 5)" \
  -b "(begin $load (edgewise-fourier-rgb-message \"$work\"))" \
  -b "(gimp-quit 0)" > "$work/gimp.log" 2>&1 || { cat "$work/gimp.log"; exit 1; }
cat "$work/gimp.log"
grep -q "CHECK done PASS" "$work/gimp.log"

# Without the up-front checks (a test hook), GIMP itself refuses to merge
# the result into a group or locked pixels: the call must still fail, with
# GIMP's reason, and change nothing (never SUCCESS with nothing written).
EDGEWISE_SKIP_DRAWABLE_CHECKS=1 "$gimp_console" -i -d -f \
  -b "(begin $load (ew-refusal \"$work\" \"unchecked-group\" ew-case-group RUN-NONINTERACTIVE))" \
  -b "(begin $load (ew-refusal \"$work\" \"unchecked-locked\" ew-case-locked RUN-NONINTERACTIVE))" \
  -b "$(refusal ew-case-group RUN-NONINTERACTIVE)" \
  -b "(gimp-quit 0)" > "$work/gimp-unchecked.log" 2>&1 || { cat "$work/gimp-unchecked.log"; exit 1; }
cat "$work/gimp-unchecked.log"
