#!/usr/bin/env bash
# A run: step of run_gimp_gui.sh (issue 37), while another dialog keeps the
# batch waiting (GIMP_GUI_DIALOG_WINDOW, GIMP's Despeckle): the Denoise
# dialog is opened as a user opens it, from the image window (GIMP's action
# search, "/", then its menu label), so it is transient for that window as
# from the menu; Alt+H opens Help. The Help window must then be above the
# dialog in the window manager's stacking order (_NET_CLIENT_LIST_STACKING
# on the root window) and be transient for the dialog (WM_TRANSIENT_FOR),
# and who has the keyboard focus is said; a click into the dialog, and activating the
# image window (the window manager then restacks the windows transient
# for it), must not bury it; closed (Escape) and opened again (Alt+H from
# the dialog), the same. Screenshots of the whole screen for people to
# look at: SHOTS/help-NAME.png (Help opened), help-NAME-after-click.png,
# help-NAME-after-parent-click.png and help-NAME-again.png. Then Help and
# the Denoise dialog are closed (Escape) and the waiting dialog gets the
# focus back.
# Usage: help_in_front.sh NAME SHOTS
set -euo pipefail
name=$1 shots=$2
title='Edgewise.*Help$'
waiting=${GIMP_GUI_DIALOG_WINDOW:?run from run_gimp_gui.sh}
mkdir -p "$shots"
fail() { echo "FAIL: $*" >&2; exit 1; }

image=$(xdotool search --onlyvisible --name " GIMP$" | head -n1 || true)
[ -n "$image" ] || fail "no GIMP image window"
xdotool windowactivate --sync "$image" 2>/dev/null || true
sleep 0.3
xdotool windowfocus --sync "$image"  # xfwm4 leaves the keyboard focus on the frame
eval "$(xdotool getwindowgeometry --shell "$image")"
xdotool mousemove --window "$image" $((WIDTH / 2)) $((HEIGHT / 2))
sleep 0.5
xdotool key slash
sleep 1.5
xdotool type --delay 60 "Denoise (Edgewise)"
sleep 1.5
xdotool key Return
dialog=""
for _ in $(seq 300); do
  dialog=$(xdotool search --onlyvisible --name "^Denoise \(Edgewise\)$" 2>/dev/null | head -n1 || true)
  [ -n "$dialog" ] && break
  sleep 0.1
done
if [ -z "$dialog" ]; then
  import -window root "PNG24:$shots/help-$name-no-dialog.png"
  fail "the Denoise dialog did not open from the image window within 30 s (screen: $shots/help-$name-no-dialog.png)"
fi
sleep 2  # its first preview
xprop -id "$dialog" WM_TRANSIENT_FOR | grep -q "window id # $(printf '0x%x' "$image")" ||
  fail "the Denoise dialog is not transient for the image window: $(xprop -id "$dialog" WM_TRANSIENT_FOR)"
xdotool windowactivate --sync "$dialog" 2>/dev/null || xdotool windowfocus --sync "$dialog"
xdotool key alt+h

stacking() { xprop -root _NET_CLIENT_LIST_STACKING | sed -E 's/.*# //; s/,//g' | tr ' ' '\n' | xargs -n1 printf '%d\n'; }
help=""
find_help() {
  help=""
  for _ in $(seq 150); do
    help=$(xdotool search --onlyvisible --name "$title" 2>/dev/null | head -n1 || true)
    [ -n "$help" ] && break
    sleep 0.1
  done
  [ -n "$help" ] || fail "no Help window ($title) within 15 s"
  sleep 1.5  # placed, mapped and drawn
}
in_front() {  # in_front WHEN
  local order dialog_at help_at focus
  order=$(stacking)
  dialog_at=$(grep -n -x "$dialog" <<<"$order" | cut -d: -f1)
  help_at=$(grep -n -x "$help" <<<"$order" | cut -d: -f1)
  echo "$name, $1: stacking bottom to top: $(tr '\n' ' ' <<<"$order"); dialog $dialog at ${dialog_at:-?}, Help $help at ${help_at:-?}"
  [ -n "$dialog_at" ] && [ -n "$help_at" ] || fail "$1: the dialog or Help is not in the window manager's client list"
  [ "$help_at" -gt "$dialog_at" ] || fail "$1: the Help window is behind the dialog"
  xprop -id "$help" WM_TRANSIENT_FOR | grep -q "window id # $(printf '0x%x' "$dialog")" ||
    fail "$1: Help is not transient for the dialog: $(xprop -id "$help" WM_TRANSIENT_FOR)"
}
# Said, not required: under Openbox 3.6 the keyboard focus stays on the
# dialog (with the modal dialog of before, Help had it but lay hidden
# behind); Help is in front and takes the focus at a click.
has_focus() {  # has_focus WHEN
  local focus
  focus=$(xdotool getwindowfocus)
  if [ "$focus" = "$help" ]; then echo "$name, $1: Help has the keyboard focus"; else
    echo "$name, $1: the keyboard focus stays on $focus (the dialog is $dialog)"; fi
}
close_help() {  # a click into its text gives it the focus under any window manager
  eval "$(xdotool getwindowgeometry --shell "$help")"
  xdotool mousemove --window "$help" $((WIDTH / 2)) $((HEIGHT / 2)) click 1
  sleep 0.5
  xdotool key Escape
  for _ in $(seq 50); do
    xdotool search --onlyvisible --name "$title" >/dev/null 2>&1 || break
    sleep 0.1
  done
  ! xdotool search --onlyvisible --name "$title" >/dev/null 2>&1 || fail "Escape did not close Help"
}
# A click on the dialog's bottom left corner (beside its Help button, on
# no control), which Help leaves free.
click_dialog() {
  eval "$(xdotool getwindowgeometry --shell "$dialog")"  # WIDTH HEIGHT
  xdotool mousemove --window "$dialog" 4 $((HEIGHT - 4)) click 1
  sleep 1
}

find_help
import -window root "PNG24:$shots/help-$name.png"
in_front "Help opened"
has_focus "Help opened"
click_dialog
import -window root "PNG24:$shots/help-$name-after-click.png"
in_front "after a click into the dialog"
# The window the dialog is transient for (GIMP's image window) activated,
# as a click on its title bar or the task bar does: the window manager
# raises it and the windows transient for it; Help must stay above the
# dialog (Openbox stacks modal windows above the other transients of
# their tree).
xdotool windowactivate --sync "$image" 2>/dev/null || true
sleep 1
import -window root "PNG24:$shots/help-$name-after-parent-click.png"
in_front "after the image window was activated"
# Help again from the dialog: shown again (it was hidden, not destroyed).
close_help
xdotool windowactivate --sync "$dialog" 2>/dev/null || xdotool windowfocus --sync "$dialog"
xdotool mousemove 5 5
sleep 0.3
xdotool key alt+h
find_help
import -window root "PNG24:$shots/help-$name-again.png"
in_front "Help opened again"
has_focus "Help opened again"
close_help
xdotool windowactivate --sync "$dialog" 2>/dev/null || xdotool windowfocus --sync "$dialog"
sleep 0.3
xdotool key Escape  # cancels the Denoise dialog
for _ in $(seq 100); do
  xdotool search --onlyvisible --name "^Denoise \(Edgewise\)$" >/dev/null 2>&1 || break
  sleep 0.1
done
xdotool windowactivate --sync "$waiting" 2>/dev/null || xdotool windowfocus --sync "$waiting"
sleep 0.3
echo "$name: Help in front: PASS"
