#!/usr/bin/env bash
# The preview says it is working, and its split line can be dragged (issue
# 37, items 2 and 6), in `edgewise --gui` on a real X display (Xvfb),
# driven with xdotool, read from the dialog's trace (its status line is
# traced each time its text changes):
#   1. with the slowest filter (nlbayes), the first status is "Computing
#      the preview… 0.0 s (showing the original until then)"; while it
#      computes, no status shows a time taken; when its preview is on
#      screen the status says what it took, in ms, and that it is exact;
#   2. Zoom 200% asks for a new preview: the status says computing again
#      ("showing the previous result"), never the last preview's time,
#      until the new preview is on screen and the status gives its own;
#   3. View > Split, then a drag of the split line with the mouse (from
#      the line, 80 pixels left): the traced split moves left by about
#      that much, and the view does not pan (the same image pixels shown);
#   4. Escape cancels (exit status 3).
# Screenshots for people to look at: WORK/computing.png (taken while the
# status says computing, when the machine is slow enough to catch it),
# WORK/computed.png, WORK/split-dragged.png.
# Usage: run_cli_preview_status.sh WORK CLI INPUT
set -euo pipefail
work=$1 cli=$2 input=$3
source "$(dirname "$0")/x_session.sh"
rm -rf "$work"
mkdir -p "$work"
x_session_start "$work"
export XDG_CONFIG_HOME=$work/config EDGEWISE_DIALOG_TRACE=$work/trace
field() { sed -E "s/.* $1=([^ ]*).*/\1/" <<<"$2"; }
statuses_between() {  # statuses_between FROM_LINE TO_LINE: the status texts traced between
  sed -n "$1,$2p" "$work/trace" | grep "^status " | sed 's/^status //' || true
}
line_of() { grep -n -F -x -- "$1" "$work/trace" | tail -n1 | cut -d: -f1; }
# While a preview computes every status says so; the last one before it is
# on screen is its own: what it took, as the trace's seconds give it.
check_statuses() {  # check_statuses STATUSES PREVIEW_LINE WHEN
  local took ms
  echo "statuses $3:"
  sed 's/^/  /' <<<"$1"
  ! head -n -1 <<<"$1" | grep -v -q "^Computing the preview… [0-9.]* s (" ||
    fail "$3: a status other than 'Computing the preview…' before the preview was ready"
  took=$(tail -n1 <<<"$1" | sed -n -E 's/.* · took ([0-9]+) ms.*/\1/p')
  ms=$(awk -v s="$(field seconds "$2")" 'BEGIN { printf "%.0f", s * 1000 }')
  [ -n "$took" ] && [ $((took - ms)) -le 1 ] && [ $((ms - took)) -le 1 ] ||
    fail "$3: the status once the preview is on screen is not its own time ($ms ms): $(tail -n1 <<<"$1")"
}

"$cli" --gui --filter nlbayes --backend cpu "$input" -o "$work/out.png" >"$work/gui.log" 2>&1 &
gui=$!
window=$(wait_for_window "^Edgewise" 30)
xdotool windowfocus --sync "$window"
wait_for_trace "$work/trace" "^status " 30 >/dev/null
first_status=$(grep -m1 "^status " "$work/trace")
echo "first status: $first_status"
[[ $first_status == "status Computing the preview… "*" s (showing the original until then)" ]] ||
  fail "the first status is not 'Computing the preview… N s (showing the original until then)': $first_status"
screenshot "$work/computing.png"
still=$(grep "^status " "$work/trace" | tail -n1)
[[ $still == "status Computing"* ]] || echo "(the preview was ready before the screenshot: computing.png shows the result)"
first=$(wait_for_trace "$work/trace" "^preview .*--filter nlbayes" 60)
check_statuses "$(statuses_between 1 "$(line_of "$first")")" "$first" "until the first preview"
grep "^status " "$work/trace" | tail -n1 | grep -q "^status 100%, exact pixels · " ||
  fail "the first preview's status does not say it is exact at 100%"
screenshot "$work/computed.png"

mark=$(trace_mark "$work/trace")
xdotool key alt+z Down  # Zoom: 100% -> 200%
zoomed=$(wait_for_trace "$work/trace" "^preview .* magnify=2 " 60 "$mark")
during=$(statuses_between "$((mark + 1))" "$(line_of "$zoomed")")
head -n1 <<<"$during" | grep -q "^Computing the preview… .* s (showing the previous result)$" ||
  fail "after the zoom the status did not first say it was computing: $(head -n1 <<<"$during")"
check_statuses "$during" "$zoomed" "while 200% was computed"
tail -n1 <<<"$during" | grep -q "^200%, exact pixels · " || fail "the 200% preview's status does not say 200%"

mark=$(trace_mark "$work/trace")
xdotool key alt+v Down Down  # View: Result -> Split
split=$(wait_for_trace "$work/trace" "^preview .* view=split " 10 "$mark")
IFS=, read -r px py pw ph <<<"$(field pane "$split")"
before=$(field split "$split") visible=$(field visible "$split")
line_x=$((px + pw / 2))  # the split line's x: floor(width * 0.5)
mark=$(trace_mark "$work/trace")
xdotool mousemove "$line_x" $((py + ph / 2)) mousedown 1 \
  mousemove_relative --sync -- -40 0 mousemove_relative --sync -- -40 0 mouseup 1
xdotool mousemove 1279 899  # off the preview, whose tooltip would cover it
moved=$(wait_for_trace "$work/trace" "^preview .* view=split .*split=0\.(4[0-8]|3)" 10 "$mark")
after=$(field split "$moved")
echo "split: $before -> $after (pane $pw px wide, dragged 80 px)"
awk -v a="$after" -v w="$pw" 'BEGIN { x = a * w; exit !(x > w / 2 - 84 && x < w / 2 - 76) }' ||
  fail "the split line moved to $after of $pw px, not 80 px left of the middle"
[ "$(field visible "$moved")" = "$visible" ] || fail "dragging the split line panned the view"
screenshot "$work/split-dragged.png" "$window"

xdotool key Escape
status=0
wait "$gui" || status=$?
[ "$status" -eq 3 ] || fail "Escape: expected exit status 3, got $status: $(cat "$work/gui.log")"
echo "PASS"
