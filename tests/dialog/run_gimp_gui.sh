#!/usr/bin/env bash
# Runs a plug-in's dialog inside the real GIMP 2.10 GUI (gimp-2.10, not
# gimp-console) on a private Xvfb, answers it with xdotool and saves the
# result:
#   1. a private GIMP2_DIRECTORY in WORK whose plug-in path holds only
#      script-fu, file-png, the plug-in under test (PROCEDURE's executable,
#      given as PLUGIN) and what --system-plugin names;
#   2. Xvfb on a free display (Xvfb -displayfd picks it);
#   3. gimp-2.10 with one script-fu batch command: load INPUT, open a display
#      for it, evaluate CALL (RUN-INTERACTIVE, so the dialog opens), save the
#      active drawable to OUTPUT; a second batch command quits (forced, no
#      "unsaved changes" prompt) whatever became of the first;
#   4. meanwhile: wait for a visible window titled DIALOG, take a screenshot
#      of the whole X screen (the image window with the dialog in front),
#      give the dialog the keyboard focus, send KEYS, wait for the dialog to
#      close and for GIMP to exit; then check OUTPUT is a PNG.
# Exits 0 on success; otherwise non-zero with an "error:" line on stderr and
# GIMP's log (WORK/gimp.log) printed.
#
# Usage:
#   run_gimp_gui.sh [OPTIONS] WORK INPUT_PNG OUTPUT_PNG \
#                   SCREENSHOT_PNG PLUGIN CALL DIALOG [KEYS...]
#   WORK        scratch folder, deleted and re-created (config, logs, tmp)
#   PLUGIN      the plug-in under test: its executable, or a folder holding
#               it (every executable directly in that folder is linked as a
#               plug-in, so keep it to the plug-in: build/plugin is fine),
#               or "" for none (a GIMP plug-in then comes with
#               --system-plugin)
#   CALL        a script-fu expression evaluated with `image`, `drawable`
#               (its active drawable) and `display` bound, e.g.
#               "(plug-in-despeckle RUN-INTERACTIVE image drawable 3 1 7 248)"
#   DIALOG      the dialog's exact window title, e.g. "Despeckle" (matched
#               case-insensitively, whole title); GIMP runs with LC_ALL=C so
#               titles are English
#   OUTPUT_PNG  gets the image's active drawable after CALL (file-png)
#   KEYS        what to send to the dialog, each argument one step, in order:
#                 "Tab Tab Return"  keysyms for one `xdotool key` (default:
#                                   "Return", which presses OK)
#                 "type:3.5"        text typed with `xdotool type`
#                 "sleep:0.5"       a pause, in seconds
#                 "shot:FILE"       a screenshot of the dialog window alone
#                 "run:COMMAND"     a shell command, run with the dialog's
#                                   window id in GIMP_GUI_DIALOG_WINDOW
#                                   (a check of the screen: it fails the
#                                   run when it fails)
#                 "trace:REGEX"     wait (up to 30 s) for a line matching
#                                   REGEX in $EDGEWISE_DIALOG_TRACE written
#                                   after the previous key step (the
#                                   plug-in's dialog trace, dialog_trace.h)
# Options:
#   --system-plugin NAME  also link GIMP's own plug-in NAME (a folder in
#               GIMP's plug-in directory, e.g. despeckle, blinds)
#   --expect-change  fail unless OUTPUT's pixels differ from INPUT's
#               (ImageMagick compare)
#   --cancel-ok  accept CALL returning (#f), which is what script-fu makes
#               of a procedure that returns only a status and that status
#               is CANCEL (or a failure without an error); by default that
#               fails. OUTPUT is saved either way.
#   --theme NAME  GIMP's theme (gimprc "theme": Dark, Gray, Light, System);
#               default GIMP's own default, Dark
#   --dialog-shot FILE  also a screenshot of the dialog window alone, taken
#               with the whole screen's
# Environment (optional):
#   GIMP_GUI_TIMEOUT=180        seconds for everything; then all is killed
#   GIMP_GUI_DIALOG_TIMEOUT=90  seconds for the dialog to appear
#   GIMP_GUI_CLOSE_TIMEOUT=60   seconds for the dialog to close after KEYS
#                               and for GIMP to finish and exit
#   GIMP_GUI_SETTLE=1           seconds between the dialog appearing and the
#                               screenshot (lets GTK draw it and its preview)
#   GIMP_GUI_DIALOG_POS=X,Y     move the dialog there before the screenshot
#                               ("center": the middle of the screen)
#   GIMP_GUI_SCREEN=1280x1024x24  Xvfb's screen
#   GIMP_GUI_BINARY=gimp-2.10
#   GIMP_GUI_WM=openbox|xfwm4   a window manager on the display (default
#                               none), started before GIMP
# Example (GIMP's own despeckle):
#   tests/dialog/run_gimp_gui.sh --system-plugin despeckle /tmp/gui \
#     tests/data/astronaut.png /tmp/gui-out.png /tmp/gui-shot.png "" \
#     "(plug-in-despeckle RUN-INTERACTIVE image drawable 3 1 7 248)" Despeckle Return
# Needs (Debian 12): gimp, xvfb, xdotool, imagemagick (import, for the
# screenshot); no window manager (openbox or xfwm4 with GIMP_GUI_WM), no
# D-Bus session.
set -euo pipefail

# One global limit, so CI never hangs: the script runs again under timeout,
# whose TERM reaches the trap below (which kills GIMP and Xvfb); KILL follows
# 20 s later if that cleanup itself hangs. timeout runs in a process group of
# its own, which a terminal's Ctrl-C does not reach: signals to this outer
# script are passed on.
if [ -z "${GIMP_GUI_UNDER_TIMEOUT:-}" ]; then
  export GIMP_GUI_UNDER_TIMEOUT=1
  timeout --kill-after=20 "${GIMP_GUI_TIMEOUT:-180}" bash "${BASH_SOURCE[0]}" "$@" &
  timeout_pid=$!
  trap 'kill -TERM "$timeout_pid" 2>/dev/null' INT TERM HUP
  rc=0
  wait "$timeout_pid" || rc=$?
  # A trapped signal ends the first wait early; the second waits for the end.
  while kill -0 "$timeout_pid" 2>/dev/null; do wait "$timeout_pid" || rc=$?; done
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "error: run_gimp_gui.sh: stopped by the global timeout (${GIMP_GUI_TIMEOUT:-180} s) or a signal" >&2
  fi
  exit "$rc"
fi

me=run_gimp_gui.sh
usage() { sed -n '/^# Usage:/,/^# Needs/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
system_extra=() expect_change=0 cancel_ok=0 theme="" dialog_shot=""
while [ $# -gt 0 ]; do
  case $1 in
    --system-plugin) [ $# -ge 2 ] || usage; system_extra+=("$2"); shift 2 ;;
    --expect-change) expect_change=1; shift ;;
    --cancel-ok) cancel_ok=1; shift ;;
    --theme) [ $# -ge 2 ] || usage; theme=$2; shift 2 ;;
    --dialog-shot) [ $# -ge 2 ] || usage; dialog_shot=$(realpath -m -- "$2"); shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "$me: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 7 ] || usage
work=$1 input=$2 output=$3 shot=$4 plugin=$5 call=$6 dialog=$7
if [ -z "$work" ] || [ -z "$call" ] || [ -z "$dialog" ]; then usage; fi
shift 7
keys=("$@")
[ ${#keys[@]} -gt 0 ] || keys=(Return)

dialog_timeout=${GIMP_GUI_DIALOG_TIMEOUT:-90}
close_timeout=${GIMP_GUI_CLOSE_TIMEOUT:-60}
settle=${GIMP_GUI_SETTLE:-1}
screen=${GIMP_GUI_SCREEN:-1280x1024x24}
gimp=${GIMP_GUI_BINARY:-gimp-2.10}

t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "[$me $(elapsed)s] $*"; }

for tool in "$gimp" Xvfb xdotool import timeout setsid; do
  command -v "$tool" >/dev/null || { echo "error: $me: $tool not found (Debian packages: gimp xvfb xdotool imagemagick)" >&2; exit 1; }
done
[ -r "$input" ] || { echo "error: $me: input $input not readable" >&2; exit 1; }
if [ -n "$plugin" ] && [ ! -e "$plugin" ]; then
  echo "error: $me: plug-in $plugin not found" >&2; exit 1
fi
# GIMP runs in WORK/tmp: every path it sees is made absolute.
abs() { realpath -m -- "$1"; }
input=$(abs "$input") output=$(abs "$output") shot=$(abs "$shot") work=$(abs "$work")
[ -z "$plugin" ] || plugin=$(abs "$plugin")
[ "$work" != / ] || { echo "error: $me: WORK is deleted first: not /" >&2; exit 1; }
mkdir -p "$(dirname "$output")" "$(dirname "$shot")" 2>/dev/null ||
  { echo "error: $me: cannot create the folders of $output and $shot" >&2; exit 1; }
rm -f "$output" "$shot"

# --- cleanup on every exit path ----------------------------------------------
gimp_pid="" xvfb_pid="" reaper_pid="" failed=1
stop() {  # stop PID [GROUP]: TERM, up to 3 s, then KILL
  local pid=$1 target=$1
  [ -n "${2:-}" ] && target=-$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "$target" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "$target" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  [ -z "$reaper_pid" ] || kill "$reaper_pid" 2>/dev/null || true
  # GIMP runs in its own process group (setsid), its plug-ins with it.
  [ -z "$gimp_pid" ] || stop "$gimp_pid" group
  [ -z "${wm_pid:-}" ] || stop "$wm_pid"
  [ -z "$xvfb_pid" ] || stop "$xvfb_pid"
  if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
    for log in "$work/xvfb.log" "$work/gimp.log"; do
      [ -s "$log" ] && { echo "----- $log -----"; cat "$log"; echo "----- end of $log -----"; } >&2
    done
    [ "$rc" -ne 0 ] || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "error: $me: terminated by a signal (or the global timeout) after $(elapsed) s" >&2; exit 124' INT TERM HUP
fail() { echo "error: $me: $*" >&2; exit 1; }

# --- private GIMP configuration (as tests/gimp/run_gimp.sh) -------------------
rm -rf "$work"
mkdir -p "$work"/{config,plug-ins,tmp,swap,home,xdg/config,xdg/cache,xdg/data,xdg/runtime}
chmod 700 "$work/xdg/runtime"
# The folders GIMP writes its data to must exist, or it complains on exit.
mkdir -p "$work"/config/{brushes,dynamics,gradients,palettes,patterns,tool-presets,fonts}
# Without it GIMP prints "Failed to parse tag cache".
echo '<?xml version="1.0" encoding="UTF-8"?><tags></tags>' > "$work/config/tags.xml"
# A first start queries every plug-in on the path (about 30 s for all of
# GIMP's): only those needed are linked.
system_plug_ins=$(pkg-config --variable=gimplibdir gimp-2.0 2>/dev/null || echo /usr/lib/gimp/2.0)/plug-ins
[ -d "$system_plug_ins/script-fu" ] || system_plug_ins=/usr/lib/gimp/2.0/plug-ins
for needed in script-fu file-png "${system_extra[@]}"; do
  [ -e "$system_plug_ins/$needed" ] || fail "GIMP plug-in $system_plug_ins/$needed not found"
  ln -s "$system_plug_ins/$needed" "$work/plug-ins/$needed"
done
# GIMP 2.10.34 takes from each subfolder NAME of the plug-in path only the
# executable NAME (or NAME.ext): a plug-in file gets a subfolder of its own,
# as gimptool-2.0 --install-bin would make; a folder is linked once under the
# name of each executable in it (so files beside it stay reachable).
link_plug_in() {  # link_plug_in EXECUTABLE FOLDER_TO_LINK_OR_EMPTY
  local base=${1##*/}
  base=${base%.*}
  [ ! -e "$work/plug-ins/$base" ] || fail "two plug-ins named $base"
  if [ -n "$2" ]; then
    ln -s "$2" "$work/plug-ins/$base"
  else
    mkdir "$work/plug-ins/$base"
    ln -s "$1" "$work/plug-ins/$base/${1##*/}"
  fi
  say "plug-in under test: $1"
}
if [ -n "$plugin" ]; then
  if [ -d "$plugin" ]; then
    found=0
    for exe in "$plugin"/*; do
      if [ -f "$exe" ] && [ -x "$exe" ]; then
        link_plug_in "$exe" "$plugin"; found=1
      fi
    done
    [ "$found" -eq 1 ] || fail "no executable in the plug-in folder $plugin"
  else
    [ -x "$plugin" ] || fail "plug-in $plugin is not executable"
    link_plug_in "$plugin" ""
  fi
fi
# babl's conversion cache saves GIMP 1.3 s of its start: a copy of the
# user's (gimp-console tests leave one there) if there is one.
user_babl=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/babl/babl-fishes
if [ -f "$user_babl" ]; then
  mkdir -p "$work/xdg/cache/babl"
  cp "$user_babl" "$work/xdg/cache/babl/" || true
fi
cat > "$work/config/gimprc" <<GIMPRC
(plug-in-path "$work/plug-ins")
(temp-path "$work/tmp")
(swap-path "$work/swap")
GIMPRC
[ -z "$theme" ] || printf '(theme "%s")\n' "$theme" >> "$work/config/gimprc"

# --- Xvfb ---------------------------------------------------------------------
# -displayfd: the server picks a free display number itself and writes it
# once it accepts connections (no race with other servers or parallel runs).
exec {dfd}>"$work/display"
Xvfb -displayfd "$dfd" -nolisten tcp -screen 0 "$screen" -noreset >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
exec {dfd}>&-
display=""
for _ in $(seq 200); do
  display=$(head -n1 "$work/display" 2>/dev/null || true)
  [ -n "$display" ] && break
  kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited before accepting connections"
  sleep 0.1
done
[ -n "$display" ] || fail "Xvfb did not start within 20 s"
export DISPLAY=:$display
xdotool getdisplaygeometry >/dev/null 2>&1 || fail "cannot connect to Xvfb at $DISPLAY"
say "Xvfb on $DISPLAY ($screen)"

# --- a window manager, when asked for ---------------------------------------------
wm_pid=""
case ${GIMP_GUI_WM:-} in
  "") ;;
  openbox) openbox --sm-disable >"$work/wm.log" 2>&1 & wm_pid=$! ;;
  # xfwm4 reads its settings through xfconfd, on a session bus of its own.
  xfwm4) NO_AT_BRIDGE=1 dbus-run-session -- xfwm4 --compositor=off >"$work/wm.log" 2>&1 & wm_pid=$! ;;
  *) fail "GIMP_GUI_WM must be openbox or xfwm4" ;;
esac
if [ -n "$wm_pid" ]; then
  command -v xprop >/dev/null || fail "xprop not found (Debian x11-utils)"
  for _ in $(seq 100); do  # up once it names itself on the root window
    xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id" && break
    sleep 0.1
  done
  xprop -root _NET_SUPPORTING_WM_CHECK | grep -q "window id" || fail "$GIMP_GUI_WM did not start: $(cat "$work/wm.log")"
  say "window manager: $GIMP_GUI_WM"
fi

# --- GIMP -----------------------------------------------------------------------
scm_string() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
in_s=$(scm_string "$input") out_s=$(scm_string "$output")
batch="(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE $in_s $in_s)))
       (drawable (car (gimp-image-get-active-drawable image)))
       (display (car (gimp-display-new image))))
  (gimp-displays-flush)
  (let ((result $call))
    (gimp-displays-flush)
    ; A PDB call returning only a status gives (#t), or (#f) when cancelled
    ; or failed without an error (GIMP's own plug-ins often say SUCCESS
    ; even when cancelled).
    (gimp-message (if (and (pair? result) (eq? (car result) #f))
                      \"run_gimp_gui: CALL returned (#f)\"
                      \"run_gimp_gui: CALL returned\")))
  (file-png-save-defaults RUN-NONINTERACTIVE image
    (car (gimp-image-get-active-drawable image)) $out_s $out_s))"

# Private and hermetic: English titles, no session bus (GIMP's own D-Bus
# service and GLib's autolaunch), no gvfs, no accessibility bus, HOME and
# the XDG folders in WORK (babl, GEGL and GTK write there).
env_vars=(
  GIMP2_DIRECTORY="$work/config"
  HOME="$work/home"
  XDG_CONFIG_HOME="$work/xdg/config" XDG_CACHE_HOME="$work/xdg/cache"
  XDG_DATA_HOME="$work/xdg/data" XDG_RUNTIME_DIR="$work/xdg/runtime"
  LC_ALL=C.UTF-8 LANGUAGE=C
  DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-session-bus"
  GIO_USE_VFS=local GIO_USE_VOLUME_MONITOR=unix
  NO_AT_BRIDGE=1 GTK_A11Y=none
)
# -n: a new instance, never handing the batch to a GIMP already running;
# -d -f -s: no data, fonts or splash (seconds saved); -c: messages to the
# log instead of "GIMP Message" dialogs; no crash prompt on the terminal.
gimp_args=(-n -d -f -s -c --stack-trace-mode=never
           -b "$batch" -b "(gimp-quit 1)")
printf '%s\n' "$batch" > "$work/batch.scm"
(
  cd "$work/tmp"
  exec env "${env_vars[@]}" setsid "$gimp" "${gimp_args[@]}" >"$work/gimp.log" 2>&1 </dev/null
) &
gimp_pid=$!
# If this script is killed with KILL (no trap runs), a reaper still stops
# GIMP and Xvfb once it is gone.
( trap - EXIT INT TERM HUP
  while kill -0 $$ 2>/dev/null; do sleep 1; done
  kill -KILL -- "-$gimp_pid" "$xvfb_pid" 2>/dev/null ) >/dev/null 2>&1 </dev/null &
reaper_pid=$!
say "GIMP started (pid $gimp_pid), waiting for the window \"$dialog\""

# --- the dialog -------------------------------------------------------------------
# Found by its title among viewable windows; no window manager is needed:
# without one, windows keep the stacking order they are mapped in (the
# dialog, mapped last, is in front) and XSetInputFocus works directly.
# shellcheck disable=SC2016 # a sed expression, not a shell one
name_re=$(printf '%s' "$dialog" | sed 's/[][\.*^$(){}+?|]/\\&/g')
deadline=$(( $(date +%s) + dialog_timeout ))
win=""
while :; do
  if ! kill -0 "$gimp_pid" 2>/dev/null; then
    rc=0; wait "$gimp_pid" || rc=$?; gimp_pid=""
    fail "GIMP exited (status $rc) before the window \"$dialog\" appeared"
  fi
  win=$(xdotool search --onlyvisible --name "^$name_re\$" 2>/dev/null | head -n1 || true)
  [ -n "$win" ] && break
  [ "$(date +%s)" -lt "$deadline" ] || fail "no window \"$dialog\" appeared within $dialog_timeout s"
  sleep 0.2
done
owner=$(xdotool getwindowpid "$win" 2>/dev/null || echo "?")
owner_name=$(cat "/proc/$owner/comm" 2>/dev/null || echo "?")
say "dialog \"$dialog\" is up: window $win, pid $owner ($owner_name), $(xdotool getwindowgeometry "$win" | tr -s ' \n' ' ')"

sleep "$settle"
# Without a WM a dialog that is not transient for GIMP's window (a GTK 3
# one) opens at 0,0; GIMP_GUI_DIALOG_POS moves it.
case ${GIMP_GUI_DIALOG_POS:-} in
  "") ;;
  center)
    eval "$(xdotool getwindowgeometry --shell "$win")"   # WIDTH HEIGHT
    read -r screen_w screen_h < <(xdotool getdisplaygeometry)
    timeout 10 xdotool windowmove "$win" $(( (screen_w - WIDTH) / 2 )) $(( (screen_h - HEIGHT) / 2 )) || true
    sleep 0.3 ;;
  *,*)
    timeout 10 xdotool windowmove "$win" "${GIMP_GUI_DIALOG_POS%,*}" "${GIMP_GUI_DIALOG_POS#*,}" || true
    sleep 0.3 ;;
  *) fail "GIMP_GUI_DIALOG_POS must be X,Y or center" ;;
esac
timeout 30 import -window root "$shot" || fail "screenshot with import failed"
say "screenshot: $shot"
if [ -n "$dialog_shot" ]; then
  timeout 30 import -window "$win" "PNG24:$dialog_shot" || fail "screenshot of the dialog with import failed"
  say "screenshot of the dialog: $dialog_shot"
fi

# Keyboard focus: no WM, so the X server's focus is PointerRoot (keys go to
# whatever is under the pointer); set it on the dialog and put the pointer
# there too. Then XTEST key events (xdotool key without --window) reach it as
# real typing would.
timeout 10 xdotool mousemove --window "$win" 5 5 >/dev/null 2>&1 || true
[ -z "$wm_pid" ] || timeout 10 xdotool windowactivate --sync "$win" || true  # a WM gives the focus itself
timeout 10 xdotool windowfocus --sync "$win" || fail "could not give the dialog the keyboard focus"
sleep 0.3
trace_lines=0
trace_count() { if [ -n "${EDGEWISE_DIALOG_TRACE:-}" ] && [ -f "$EDGEWISE_DIALOG_TRACE" ]; then wc -l <"$EDGEWISE_DIALOG_TRACE"; else echo 0; fi; }
for step in "${keys[@]}"; do
  case $step in
    sleep:*) sleep "${step#sleep:}" ;;
    shot:*)
      timeout 30 import -window "$win" "PNG24:$(abs "${step#shot:}")" || fail "screenshot ${step#shot:} failed"
      say "screenshot of the dialog: ${step#shot:}" ;;
    run:*)
      GIMP_GUI_DIALOG_WINDOW=$win bash -c "${step#run:}" || fail "the check ${step#run:} failed"
      say "check passed: ${step#run:}" ;;
    trace:*)
      [ -n "${EDGEWISE_DIALOG_TRACE:-}" ] || fail "trace: steps need EDGEWISE_DIALOG_TRACE"
      found=0
      for _ in $(seq 300); do
        if tail -n +"$((trace_lines + 1))" "$EDGEWISE_DIALOG_TRACE" 2>/dev/null | grep -q -E -- "${step#trace:}"; then
          found=1; break
        fi
        sleep 0.1
      done
      [ "$found" -eq 1 ] || fail "no trace line matching ${step#trace:} within 30 s"
      trace_lines=$(trace_count) ;;
    type:*) trace_lines=$(trace_count)
            timeout 30 xdotool type --delay 50 -- "${step#type:}" || fail "xdotool type failed" ;;
    *) # shellcheck disable=SC2086 # one keysym per word
       trace_lines=$(trace_count)
       timeout 30 xdotool key --delay 100 $step || fail "xdotool key $step failed" ;;
  esac
done
say "sent: ${keys[*]}"

# The dialog closes (destroyed or unmapped) once the keys answered it.
deadline=$(( $(date +%s) + close_timeout ))
dialog_visible() {  # (not a pipe into grep -q: with pipefail, SIGPIPE would end the wait)
  xdotool search --onlyvisible --name "^$name_re\$" >"$work/windows" 2>/dev/null || true
  grep -qx "$win" "$work/windows"
}
while dialog_visible; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "the dialog \"$dialog\" was still open $close_timeout s after the keys"
  sleep 0.2
done
say "dialog closed"

# --- GIMP finishes the batch and quits ----------------------------------------
deadline=$(( $(date +%s) + close_timeout ))
while kill -0 "$gimp_pid" 2>/dev/null; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "GIMP did not exit within $close_timeout s after the dialog closed"
  sleep 0.2
done
rc=0; wait "$gimp_pid" || rc=$?; gimp_pid=""
say "GIMP exited with status $rc"
grep -q "batch command experienced an execution error" "$work/gimp.log" &&
  fail "the batch command failed (see the log)"
[ "$rc" -eq 0 ] || fail "GIMP exited with status $rc"
[ -s "$output" ] || fail "no output written to $output"
[ "$(head -c 8 "$output" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "$output is not a PNG file"
if grep -q "run_gimp_gui: CALL returned (#f)" "$work/gimp.log"; then
  [ "$cancel_ok" -eq 1 ] || fail "CALL returned (#f): the dialog was cancelled or the procedure failed"
  say "CALL returned (#f) (cancelled), accepted (--cancel-ok)"
fi
if [ "$expect_change" -eq 1 ]; then
  differing=$(compare -metric AE "$input" "$output" null: 2>&1 || true)
  case $differing in
    0) fail "$output has the same pixels as $input (--expect-change)" ;;
    *[!0-9.e+]*|"") fail "compare $input $output failed: $differing" ;;
  esac
  say "$differing pixels differ from the input"
fi
failed=0
say "done: $output"
