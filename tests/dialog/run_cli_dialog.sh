#!/usr/bin/env bash
# `edgewise --gui` in a real X display (Xvfb), driven like a user would with
# xdotool, checked through screenshots of the screen:
#   1. the first preview on screen equals the CLI's result for the same
#      settings (exact pixels at 100%);
#   2. typing a new range sigma (Alt+G, the field's access key) updates the
#      preview: its pixels change, and equal the CLI's result for that sigma;
#   3. View > Original shows the input's pixels; 200% shows the result
#      magnified; dragging pans, and the moved preview is exact too;
#   4. the window made wider and View set to split, Return with the View
#      combo focused presses OK (it does not open the list): the output file
#      equals the CLI's, and the values are kept for the next run, with the
#      window's size, the View choice and the zoom;
#   5. the next run starts from them (same size, split view); Help opens the
#      help window (the README's section) and Escape closes it; Reset
#      restores the defaults; choosing the adaptive filter previews exactly
#      what the CLI's adaptive filter gives; Escape cancels: exit status 3,
#      nothing written.
# Usage: run_cli_dialog.sh WORK CLI TOOL INPUT   (TOOL: image_test_tool)
set -euo pipefail
work=$1 cli=$2 tool=$3 input=$4
source "$(dirname "$0")/x_session.sh"
rm -rf "$work"
mkdir -p "$work/out" "$work/ref"
x_session_start "$work"
export XDG_CONFIG_HOME=$work/config EDGEWISE_DIALOG_TRACE=$work/trace
common=(--mode rgb --sigma-s 2 --sigma-r 20 --backend cpu)

# The CLI's results: what the preview and the output must equal.
"$cli" "${common[@]}" "$input" -o "$work/ref/sigma20.png"
"$cli" "${common[@]}" --sigma-r 60 "$input" -o "$work/ref/sigma60.png"
"$cli" --filter adaptive --backend cpu "$input" -o "$work/ref/adaptive.png"  # the defaults

check_preview() {  # check_preview TRACE_LINE EXPECTED NAME: exact, with a few looks while the frame lands
  local line=$1 expected=$2 name=$3
  for attempt in 1 2 3; do
    screenshot "$work/$name.png"
    if "$tool" preview "$work/$name.png" "$line" "$expected" 0; then return 0; fi
    sleep 0.5
  done
  fail "$name: the preview on screen differs from $expected"
}
field() { sed -E "s/.* $1=([^ ]*).*/\1/" <<<"$2"; }

echo "== run 1: preview, change, OK"
"$cli" --gui "${common[@]}" "$input" -o "$work/out/ok.png" >"$work/run1.log" 2>&1 &
gui=$!
window=$(wait_for_window "^Edgewise" 30)
xdotool windowfocus --sync "$window"
first=$(wait_for_trace "$work/trace" "^preview .*--sigma-r 20 " 30)
check_preview "$first" "$work/ref/sigma20.png" shot-first

mark=$(trace_mark "$work/trace")
xdotool key alt+g ctrl+a && xdotool type --delay 50 60 && xdotool key Tab
changed=$(wait_for_trace "$work/trace" "^preview .*--sigma-r 60 " 30 "$mark")
check_preview "$changed" "$work/ref/sigma60.png" shot-changed
screen=$(field screen "$changed")
"$tool" differ "$work/shot-first.png" "$work/shot-changed.png" ${screen//,/ } 0.5 ||
  fail "the preview did not change with the range sigma"

mark=$(trace_mark "$work/trace")
xdotool key alt+v Down  # View: Result -> Original
original=$(wait_for_trace "$work/trace" "^preview .* view=original " 10 "$mark")
check_preview "$original" "$input" shot-original
mark=$(trace_mark "$work/trace")
xdotool key Up           # back to the result
wait_for_trace "$work/trace" "^preview .* view=result " 10 "$mark" >/dev/null

mark=$(trace_mark "$work/trace")
xdotool key alt+z Down   # Zoom: 100% -> 200%
zoomed=$(wait_for_trace "$work/trace" "^preview .* view=result .* magnify=2 " 30 "$mark")
check_preview "$zoomed" "$work/ref/sigma60.png" shot-zoomed
IFS=, read -r sx sy sw sh <<<"$(field screen "$zoomed")"
before=$(field visible "$zoomed")
mark=$(trace_mark "$work/trace")
xdotool mousemove $((sx + sw / 2)) $((sy + sh / 2)) mousedown 1 \
  mousemove_relative --sync -- -60 -50 mousemove_relative --sync -- -60 -50 mouseup 1
panned=$(wait_for_trace "$work/trace" "^preview .* magnify=2 visible=" 30 "$mark")
# The pointer leaves the preview, whose tooltip would cover it; then the
# last preview traced is the one on screen (the drag's last step may have
# been on its way).
xdotool mousemove 1279 899
sleep 0.5
panned=$(wait_for_trace "$work/trace" "^preview .* magnify=2 visible=" 30 "$mark")
[ "$(field visible "$panned")" != "$before" ] || fail "dragging did not move the preview (visible $before)"
echo "dragged: visible $before -> $(field visible "$panned")"
check_preview "$panned" "$work/ref/sigma60.png" shot-panned
mark=$(trace_mark "$work/trace")
xdotool key alt+z Up     # back to 100% for the screenshot in docs/
wait_for_trace "$work/trace" "^preview .* magnify=1 .*--sigma-r 60 " 30 "$mark" >/dev/null
screenshot "$work/dialog.png" "$window"

eval "$(xdotool getwindowgeometry --shell "$window")"  # WIDTH HEIGHT
wider=$((WIDTH + 120))x$HEIGHT
xdotool windowsize --sync "$window" $((WIDTH + 120)) "$HEIGHT"
mark=$(trace_mark "$work/trace")
xdotool key alt+v Down Down  # View: Result -> Split
wait_for_trace "$work/trace" "^preview .* view=split " 10 "$mark" >/dev/null
xdotool key Return  # the View combo has the focus: Return presses OK
status=0
wait "$gui" || status=$?
cat "$work/run1.log"
[ "$status" -eq 0 ] || fail "OK: edgewise exited with $status"
grep -q -E "^response ok .*--sigma-r 60 .*--backend cpu --dialog-size $wider --dialog-view split --dialog-zoom 100%$" \
  "$work/trace" || fail "no OK response with the settings chosen (size $wider, split view, 100%) in the trace"
"$tool" compare "$work/out/ok.png" "$work/ref/sigma60.png" 0 || fail "the output differs from the CLI's"
grep -q -- "--sigma-r 60 .*--dialog-size $wider --dialog-view split --dialog-zoom 100%" \
  "$XDG_CONFIG_HOME/edgewise/dialog.args" || fail "the last values were not kept"

echo "== run 2: last values, Reset, Escape"
export EDGEWISE_DIALOG_TRACE=$work/trace2
"$cli" --gui --backend cpu "$input" -o "$work/out/cancelled.png" >"$work/run2.log" 2>&1 &
gui=$!
window=$(wait_for_window "^Edgewise" 30)
xdotool windowfocus --sync "$window"
wait_for_trace "$work/trace2" "^shown .*--sigma-s 2 --radius 0 --sigma-r 60 .*--dialog-view split" 10 >/dev/null ||
  fail "the second run did not start from the last values"
wait_for_trace "$work/trace2" "^preview .* view=split .*--sigma-r 60 " 30 >/dev/null
eval "$(xdotool getwindowgeometry --shell "$window")"
[ "${WIDTH}x$HEIGHT" = "$wider" ] || fail "the window is ${WIDTH}x$HEIGHT, not the ${wider} it was left at"
xdotool key alt+h  # Help
help=$(wait_for_window "^Edgewise .* Help$" 10)
screenshot "$work/help.png" "$help"
xdotool windowfocus --sync "$help" key Escape
for _ in $(seq 50); do
  xdotool search --onlyvisible --name "^Edgewise .* Help$" >/dev/null 2>&1 || break
  sleep 0.1
done
! xdotool search --onlyvisible --name "^Edgewise .* Help$" >/dev/null 2>&1 || fail "Escape did not close the help"
xdotool windowfocus --sync "$window"
mark=$(trace_mark "$work/trace2")
xdotool key alt+v Up Up  # back to the result, for the exact checks below
wait_for_trace "$work/trace2" "^preview .* view=result " 10 "$mark" >/dev/null
xdotool key alt+r  # Reset
wait_for_trace "$work/trace2" "^preview .*--sigma-s 1.5 --radius 0 --sigma-r auto " 30 >/dev/null
mark=$(trace_mark "$work/trace2")
xdotool key alt+f Down  # Filter: bilateral -> adaptive
adaptive=$(wait_for_trace "$work/trace2" "^preview .*--filter adaptive " 30 "$mark")
check_preview "$adaptive" "$work/ref/adaptive.png" shot-adaptive
xdotool key Escape
status=0
wait "$gui" || status=$?
cat "$work/run2.log"
[ "$status" -eq 3 ] || fail "Escape: expected exit status 3, got $status"
grep -q "^response cancel" "$work/trace2" || fail "no cancel response in the trace"
[ -z "$(ls -A "$work/out" | grep -v '^ok.png$')" ] || fail "Cancel left files behind: $(ls "$work/out")"
grep -q -- "--sigma-r 60 " "$XDG_CONFIG_HOME/edgewise/dialog.args" || fail "Cancel changed the last values"
echo "PASS"
