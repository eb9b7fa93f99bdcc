#!/usr/bin/env bash
# An Edgewise operation in the real GIMP 2.10 GUI, through Tools > GEGL
# Operation, on a private Xvfb (registered by tests/gegl/CMakeLists.txt):
#   1. a private GIMP profile whose plug-in path holds script-fu and
#      file-png only, and the module in the user's GEGL folder
#      ($XDG_DATA_HOME/gegl-0.4/plug-ins), where install-plugin.sh puts it;
#   2. gimp-2.10 with one batch command: load the noisy photo, open a
#      display, then wait (polling gimp-image-is-dirty; the GUI runs
#      meanwhile) until the image changes, save it and quit;
#   3. meanwhile, as a user: Alt+T, G (Tools > GEGL Operation...); in the
#      dialog, the operation list; the entry POSITION (Home, then Down that
#      many times), which should be edgewise:FILTER; a screenshot with the
#      dialog, its properties and GIMP's on-canvas preview; OK;
#   4. the saved image against the CLI's result for FILTER at its defaults
#      (automatic values included), within one 8-bit code value.
# GIMP 2.10 has no PDB procedure that runs a GEGL operation on a drawable
# (GimpGeglTool exists only in the GUI), and its list is a plain combo box
# that cannot be searched by typing, so the entry is chosen by its
# position in the list GIMP sorts by title. A wrong position applies
# another operation, and the pixels then fail the comparison (choose a
# filter whose neighbours in the list give other pixels at their defaults:
# on the noisy photo the adaptive filter's defaults give the bilateral
# filter's pixels, so bilateral and adaptive cannot tell each other apart).
# Usage: run_gimp_gegl_tool.sh WORK MODULE CLI IMAGE_TOOL INPUT FILTER POSITION SCREENSHOT
set -euo pipefail
work=$1 module=$2 cli=$3 image_tool=$4 input=$5 filter=$6 position=$7 shot=$8

# One limit for everything, so CI never hangs (GIMP and Xvfb are stopped by
# the trap on the way out).
if [ -z "${GEGL_TOOL_UNDER_TIMEOUT:-}" ]; then
  export GEGL_TOOL_UNDER_TIMEOUT=1
  exec timeout --kill-after=20 180 bash "${BASH_SOURCE[0]}" "$@"
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work"
mkdir -p "$work"/{config,plug-ins,tmp,swap,xdg/config,xdg/cache,xdg/data/gegl-0.4/plug-ins,xdg/runtime}
mkdir -p "$work"/config/{brushes,dynamics,gradients,palettes,patterns,tool-presets,fonts}
chmod 700 "$work/xdg/runtime"
echo '<?xml version="1.0" encoding="UTF-8"?><tags></tags>' >"$work/config/tags.xml"
system_plug_ins=$(pkg-config --variable=gimplibdir gimp-2.0 2>/dev/null || echo /usr/lib/gimp/2.0)/plug-ins
for needed in script-fu file-png; do ln -s "$system_plug_ins/$needed" "$work/plug-ins/$needed"; done
ln -s "$module" "$work/xdg/data/gegl-0.4/plug-ins/edgewise-gegl.so"
cat >"$work/config/gimprc" <<GIMPRC
(plug-in-path "$work/plug-ins")
(temp-path "$work/tmp")
(swap-path "$work/swap")
GIMPRC
"$cli" --filter "$filter" "$input" -o "$work/cli.png"

# shellcheck source=../dialog/x_session.sh
source "$here/../dialog/x_session.sh"
gimp_pid=""
stop_gimp() {
  [ -z "$gimp_pid" ] && return 0
  kill -TERM -- "-$gimp_pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$gimp_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$gimp_pid" 2>/dev/null || true
}
trap 'stop_gimp; x_session_stop' EXIT
x_session_start "$work"  # also a private HOME, C locale, no session bus

out=$work/gimp.png
batch="(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$input\" \"$input\")))
              (display (car (gimp-display-new image))))
  (gimp-displays-flush)
  (gimp-image-clean-all image)  ; a loaded PNG counts as changed
  (let wait ((polls 0))
    (if (and (= (car (gimp-image-is-dirty image)) FALSE) (< polls 2000000))
        (wait (+ polls 1))))
  (if (= (car (gimp-image-is-dirty image)) TRUE)
      (begin (file-png-save-defaults RUN-NONINTERACTIVE image (car (gimp-image-get-active-drawable image))
                                     \"$out\" \"$out\")
             (gimp-message \"GEGL TOOL: applied, saved\"))
      (gimp-message \"GEGL TOOL: the image never changed\")))"
(
  cd "$work/tmp"
  exec env -u GEGL_PATH GIMP2_DIRECTORY="$work/config" XDG_CONFIG_HOME="$work/xdg/config" \
    XDG_CACHE_HOME="$work/xdg/cache" XDG_DATA_HOME="$work/xdg/data" XDG_RUNTIME_DIR="$work/xdg/runtime" \
    GIO_USE_VOLUME_MONITOR=unix setsid gimp-2.10 -n -d -f -s -c --stack-trace-mode=never \
    -b "$batch" -b "(gimp-quit 1)" >"$work/gimp.log" 2>&1 </dev/null
) &
gimp_pid=$!

image_window=$(wait_for_window "^\*?$(basename "$input")-" 90)
xdotool mousemove --window "$image_window" 300 300
xdotool windowfocus --sync "$image_window"
sleep 0.5
sleep 2  # the window is up before GIMP takes keys
xdotool key alt+t
sleep 0.5
xdotool key g
dialog=$(wait_for_window "^GEGL Operation$" 30)
sleep 1
# The operation list: the combo box at the dialog's top.
xdotool mousemove --window "$dialog" 185 60 click 1
sleep 1
xdotool key Home
for _ in $(seq "$position"); do xdotool key Down; sleep 0.05; done
xdotool key Return
# GIMP's on-canvas preview renders through the operation.
sleep 4
screenshot "$shot"
eval "$(xdotool getwindowgeometry --shell "$dialog")"  # WIDTH HEIGHT
xdotool mousemove --window "$dialog" $((WIDTH - 45)) $((HEIGHT - 25)) click 1  # OK
for _ in $(seq 600); do kill -0 "$gimp_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$gimp_pid" 2>/dev/null && fail "GIMP did not finish after OK: $(tail -20 "$work/gimp.log")"
gimp_pid=""
grep -q "GEGL TOOL: applied, saved" "$work/gimp.log" || fail "the image was not changed: $(tail -20 "$work/gimp.log")"
grep -i "edgewise" "$work/gimp.log" && fail "the operation logged a warning"
"$image_tool" compare "$out" "$work/cli.png" 0.00393 ||
  fail "GIMP's result is not the CLI's: the entry at position $position of the GEGL Operation list is not edgewise:$filter, or its pixels differ (see $shot)"
echo "GIMP's GEGL Operation tool applied edgewise:$filter with the CLI's pixels; screenshot $shot"
