#!/usr/bin/env bash
# Help in front of the Denoise dialog inside the real GIMP 2.10 GUI under a
# window manager (issue 37: under Openbox it opened behind the modal
# dialog): run_gimp_gui.sh with GIMP_GUI_WM=WM on a phone JPEG, where
# help_in_front.sh opens the dialog from the image window, Alt+H opens
# Help, checks the stacking, the focus and the transient hint, and saves
# SHOTS/help-WM*.png for people to look at.
# Usage: run_gimp_help.sh WM WORK SHOTS PLUGIN DENOISE_TOOL DATA_DIR
set -euo pipefail
wm=$1 work=$2 shots=$3 plugin=$4 tool=$5 data=$6
here=$(cd "$(dirname "$0")" && pwd)
command -v "$wm" >/dev/null || { echo "FAIL: $wm not found (Debian package $wm, install/deps.sh)"; exit 1; }
rm -rf "$work" && mkdir -p "$work" "$shots"
rm -f "$shots/help-$wm"*.png
"$tool" develop "$data/astronaut.png" "$work/phone.png" 2 jpeg 1
export GIMP_GUI_WM=$wm GIMP_GUI_SETTLE=2 GIMP_GUI_TIMEOUT=200
# GIMP's Despeckle keeps the batch waiting while the Denoise dialog is
# opened from the image window, as from the menu (help_in_front.sh).
"$here/run_gimp_gui.sh" --system-plugin despeckle --cancel-ok "$work/gimp" "$work/phone.png" "$work/despeckled.png" \
  "$work/screen.png" "$plugin" "(plug-in-despeckle RUN-INTERACTIVE image drawable 3 1 7 248)" Despeckle \
  "run:$here/help_in_front.sh $wm $shots" "Escape"
for shot in "help-$wm" "help-$wm-after-click" "help-$wm-after-parent-click" "help-$wm-again"; do
  [ -s "$shots/$shot.png" ] || { echo "FAIL: no $shots/$shot.png"; exit 1; }
done
echo "PASS: Help in front under $wm"
