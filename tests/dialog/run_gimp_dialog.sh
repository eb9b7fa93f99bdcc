#!/usr/bin/env bash
# The plug-in's dialog inside the real GIMP 2.10 GUI (run_gimp_gui.sh):
#   ok      Filters > Enhance > Edgewise Bilateral called RUN-INTERACTIVE on
#           an image with a display: the dialog appears in front of the image
#           window, the range sigma is typed in (Alt+G), Enter presses OK;
#           the image saved afterwards equals the CLI's result for the same
#           settings (within one 8-bit code value, as tests/gimp allows).
#           GIMP's theme is its default, Dark: the dialog is dark too.
#   cancel  the same, answered with Escape: the image is unchanged. GIMP's
#           theme is Light: the dialog is light.
#   adaptive  Filters > Enhance > Edgewise Adaptive: its dialog shows the
#           adaptive controls; Adaptivity (Alt+T) is set to 1.5, OK; the
#           result equals the CLI's adaptive filter.
#   combo   plug-in-edgewise-bilateral2 (what the menu entry runs): Working
#           space (Alt+W, a combo box) set to linear with Down, then Return
#           with the combo focused presses OK (it does not open the list);
#           the result equals the CLI's --working-space linear.
# Usage: run_gimp_dialog.sh ok|cancel|adaptive|combo WORK PLUGIN CLI TOOL INPUT
set -euo pipefail
case_name=$1 work=$2 plugin=$3 cli=$4 tool=$5 input=$6
here=$(dirname "$0")
call="(plug-in-edgewise-bilateral RUN-INTERACTIVE image drawable 1 3.0 0 20.0 0 1 1)"
export GIMP_GUI_DIALOG_POS=center GIMP_GUI_SETTLE=2
mkdir -p "$work"
# The dialog's mean grey level (0 black .. 1 white) against a bound.
brightness() {  # brightness SHOT below|above BOUND
  local mean
  mean=$(convert "$1" -colorspace Gray -format '%[fx:mean]' info:)
  echo "dialog brightness $mean ($2 $3 expected)"
  awk -v m="$mean" -v b="$3" -v how="$2" 'BEGIN { exit !((how == "below") ? m < b : m > b) }' ||
    { echo "FAIL: the dialog's brightness $mean is not $2 $3" >&2; exit 1; }
}
if [ "$case_name" = ok ]; then
  # The defaults (sigma-r auto: the noise the plug-in measures on the
  # drawable, as the CLI measures it on the file) with sigma-s typed.
  "$cli" --mode rgb --sigma-s 3 "$input" -o "$work/expected.png"
  "$here/run_gimp_gui.sh" --expect-change --dialog-shot "$work/dialog-dark.png" "$work/gimp" "$input" "$work/ok.png" \
    "$work/gimp-dialog.png" "$plugin" "$call" "Edgewise Bilateral" "alt+s ctrl+a" "type:3" "Tab" "sleep:1" "alt+s" \
    "Return"
  "$tool" compare "$work/ok.png" "$work/expected.png" 0.00393
  brightness "$work/dialog-dark.png" below 0.35
elif [ "$case_name" = adaptive ]; then
  "$cli" --filter adaptive --adapt-k 1.5 "$input" -o "$work/expected.png"
  "$here/run_gimp_gui.sh" --expect-change "$work/gimp" "$input" "$work/adaptive.png" "$work/gimp-adaptive.png" \
    "$plugin" "(plug-in-edgewise-adaptive RUN-INTERACTIVE image drawable 1 3.0 0 20.0 0 1 1 0.5 0.01 0.002 1.0)" \
    "Edgewise Adaptive" "alt+t ctrl+a" "type:1.5" "Tab" "sleep:1" "alt+g" "Return"
  "$tool" compare "$work/adaptive.png" "$work/expected.png" 0.00393
elif [ "$case_name" = combo ]; then
  "$cli" --working-space linear "$input" -o "$work/expected.png"  # the defaults otherwise
  "$here/run_gimp_gui.sh" --expect-change "$work/gimp" "$input" "$work/combo.png" "$work/gimp-combo.png" \
    "$plugin" "(plug-in-edgewise-bilateral2 RUN-INTERACTIVE image drawable 1 3.0 0 20.0 0 1 1 1)" \
    "Edgewise Bilateral" "alt+w" "Down" "sleep:1" "Return"
  "$tool" compare "$work/combo.png" "$work/expected.png" 0.00393
else
  "$here/run_gimp_gui.sh" --cancel-ok --theme Light --dialog-shot "$work/dialog-light.png" "$work/gimp" "$input" \
    "$work/cancelled.png" "$work/gimp-cancel.png" "$plugin" "$call" "Edgewise Bilateral" "sleep:1" "Escape"
  grep -q "CALL returned (#f)" "$work/gimp/gimp.log" || { echo "FAIL: the call did not report CANCEL" >&2; exit 1; }
  "$tool" compare "$work/cancelled.png" "$input" 0
  brightness "$work/dialog-light.png" above 0.6
fi
