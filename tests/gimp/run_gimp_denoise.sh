#!/usr/bin/env bash
# plug-in-edgewise-denoise inside real GIMP (gimp-console, no display, a
# private GIMP2_DIRECTORY as run_gimp.sh makes it), on photos given
# camera-like noise by denoise_tool; denoise_tool also makes what the
# procedure should give for each call (the same core calls outside GIMP),
# which ctest compares with GIMP's results (see CMakeLists.txt).
# Usage: run_gimp_denoise.sh WORK GIMP_CONSOLE PLUGIN DENOISE_TOOL SOURCE_DIR
set -euo pipefail
work=$1 gimp_console=$2 plugin=$3 tool=$4 source=$5
data=$source/tests/data

rm -rf "$work"
mkdir -p "$work"/{config,plug-ins/edgewise,tmp,swap,in,out,ref}
ln -s "$plugin" "$work/plug-ins/edgewise/edgewise"
mkdir -p "$work"/config/{brushes,dynamics,gradients,palettes,patterns,tool-presets,fonts}
system_plug_ins=$(pkg-config --variable=gimplibdir gimp-2.0 2>/dev/null || echo /usr/lib/gimp/2.0)/plug-ins
for needed in script-fu file-png; do ln -s "$system_plug_ins/$needed" "$work/plug-ins/$needed"; done
cat > "$work/config/gimprc" <<GIMPRC
(plug-in-path "$work/plug-ins")
(temp-path "$work/tmp")
(swap-path "$work/swap")
GIMPRC

# A phone JPEG of the astronaut (noise level 2, JPEG) and a grey raw
# export of the cameraman (level 3, no JPEG).
"$tool" develop "$data/astronaut.png" "$work/in/phone.png" 2 jpeg 1
"$tool" develop "$data/camera.png" "$work/in/camera.png" 3 raw 0
methods=$("$tool" methods | cut -f1 | tr '\n' ' ')
"$tool" denoise "$work/in/phone.png" "$work/ref/defaults.png" -1 1 1 1
"$tool" denoise "$work/in/camera.png" "$work/ref/defaults-gray.png" -1 1 1 1
"$tool" denoise "$work/in/phone.png" "$work/ref/colour-only.png" -1 1 0 2
for method in $methods; do
  "$tool" denoise "$work/in/phone.png" "$work/ref/method-$method.png" "$method" 1 1 1
done

cd "$work/tmp"
export GIMP2_DIRECTORY=$work/config
# What the plug-in tells GIMP's progress bar, for check_progress.sh.
export EDGEWISE_PROGRESS_LOG=$work/progress.log
load="(load \"$source/tests/gimp/denoise.scm\")"
"$gimp_console" -i -d -f \
  -b "(begin $load (edgewise-denoise-checks \"$work\" '($methods)))" \
  -b "(begin $load (edgewise-denoise-error \"$work\" 99 1.0))" \
  -b "(begin $load (edgewise-denoise-error \"$work\" -1 -0.5))" \
  -b "(gimp-quit 0)" > "$work/gimp.log" 2>&1 || { cat "$work/gimp.log"; exit 1; }
cat "$work/gimp.log"
grep -q "CHECK denoise-done PASS" "$work/gimp.log"
