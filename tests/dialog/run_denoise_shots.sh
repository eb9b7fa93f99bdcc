#!/usr/bin/env bash
# Screenshots of the Denoise dialog (plug-in-edgewise-denoise) inside the
# real GIMP 2.10 GUI (run_gimp_gui.sh) for one GIMP theme: a phone JPEG
# with camera-like noise (denoise_tool develop) is opened, the dialog shows
# the recommended method, then each method of the list (Down from the
# focused Method list), Advanced closed; Advanced opened (Alt+A), each
# method again (Alt+M, Up); Escape. The shots go to OUT_DIR as
# THEME-closed-N.png and THEME-open-N.png (N: 0 Recommended, then the
# list's order) for people to look at; the test checks there is one per
# method and state, that opening Advanced changed the dialog, that no
# two methods look alike, and that the dialog follows the theme.
# Usage: run_denoise_shots.sh Dark|Light WORK OUT_DIR PLUGIN DENOISE_TOOL DATA_DIR
set -euo pipefail
theme=$1 work=$2 out=$3 plugin=$4 tool=$5 data=$6
here=$(dirname "$0")
rm -rf "$work" && mkdir -p "$work" "$out"
rm -f "$out/$theme"-*.png
"$tool" develop "$data/astronaut.png" "$work/phone.png" 2 jpeg 1
entries=$(( $("$tool" methods | wc -l) + 1 ))  # Recommended, then each method
keys=("sleep:2" "shot:$out/$theme-closed-0.png")
for ((n = 1; n < entries; n++)); do keys+=("Down" "sleep:2.5" "shot:$out/$theme-closed-$n.png"); done
keys+=("alt+a" "sleep:2" "shot:$out/$theme-open-$((entries - 1)).png")
for ((n = entries - 2; n >= 0; n--)); do keys+=("alt+m" "Up" "sleep:2.5" "shot:$out/$theme-open-$n.png"); done
keys+=("Escape")
export GIMP_GUI_DIALOG_POS=0,0 GIMP_GUI_SETTLE=2 GIMP_GUI_TIMEOUT=200
"$here/run_gimp_gui.sh" --cancel-ok --theme "$theme" "$work/gimp" "$work/phone.png" "$work/cancelled.png" \
  "$work/screen.png" "$plugin" "(plug-in-edgewise-denoise RUN-INTERACTIVE image drawable -1 1.0 1.0 1.0)" \
  "Denoise (Edgewise)" "${keys[@]}"
status=0
height() { identify -format '%h' "$1"; }
for ((n = 0; n < entries; n++)); do
  for state in closed open; do
    [ -f "$out/$theme-$state-$n.png" ] || { echo "FAIL: no $theme-$state-$n.png"; status=1; }
  done
  if compare -metric AE "$out/$theme-open-$n.png" "$out/$theme-closed-$n.png" null: 2>/dev/null; then
    echo "FAIL: $theme-open-$n.png is $theme-closed-$n.png: Advanced did not open"; status=1
  fi
  for ((m = 0; m < n; m++)); do
    if [ "$(height "$out/$theme-closed-$n.png")" = "$(height "$out/$theme-closed-$m.png")" ] &&
       compare -metric AE "$out/$theme-closed-$n.png" "$out/$theme-closed-$m.png" null: 2>/dev/null; then
      # Recommended (0) is one of the methods, whose controls it shows: only
      # its list entry's text differs, which compare still sees.
      echo "FAIL: $theme-closed-$n.png and $theme-closed-$m.png are identical: the method did not change"; status=1
    fi
  done
done
mean=$(convert "$out/$theme-closed-0.png" -colorspace Gray -format '%[fx:mean]' info:)
echo "dialog brightness $mean"
if [ "$theme" = Dark ]; then
  awk -v m="$mean" 'BEGIN { exit !(m < 0.35) }' || { echo "FAIL: the dark theme's dialog is bright ($mean)"; status=1; }
else
  awk -v m="$mean" 'BEGIN { exit !(m > 0.6) }' || { echo "FAIL: the light theme's dialog is dark ($mean)"; status=1; }
fi
exit "$status"
