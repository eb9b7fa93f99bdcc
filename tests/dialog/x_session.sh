# Sourced by the dialog tests: a private Xvfb display and hermetic GTK
# settings, torn down on every way out; helpers to wait for windows and
# trace lines and to take screenshots. Needs Debian's xvfb, xdotool and
# imagemagick (import).
#   x_session_start WORK    Xvfb on a free display (it picks the number
#                           itself: -displayfd), DISPLAY exported
#   wait_for_window TITLE SECONDS    prints the window id
#   trace_mark FILE                  the trace's length now, for wait_for_trace
#   wait_for_trace FILE REGEX SECONDS [MARK]
#                                    prints the last line matching REGEX
#                                    (written after MARK, when given)
#   screenshot FILE [WINDOW]         the whole screen, or one window
#   fail MESSAGE

x_session_pids=()
x_session_stop() {
  local pid
  for pid in "${x_session_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${x_session_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap x_session_stop EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

x_session_start() {
  local work=$1 display="" dfd program
  for program in Xvfb xdotool import; do
    command -v "$program" >/dev/null || fail "$program not found (Debian packages xvfb, xdotool, imagemagick)"
  done
  exec {dfd}>"$work/display"
  Xvfb -displayfd "$dfd" -nolisten tcp -screen 0 1280x900x24 -noreset >"$work/xvfb.log" 2>&1 &
  x_session_pids+=($!)
  exec {dfd}>&-
  for _ in $(seq 100); do
    display=$(head -n1 "$work/display" 2>/dev/null || true)
    [ -n "$display" ] && break
    sleep 0.1
  done
  [ -n "$display" ] || fail "Xvfb did not start: $(cat "$work/xvfb.log")"
  export DISPLAY=:$display
  # English labels, no session bus, accessibility bridge or user settings:
  # the dialog looks the same on every machine.
  mkdir -p "$work/home" "$work/runtime"
  chmod 700 "$work/runtime"
  export HOME=$work/home XDG_RUNTIME_DIR=$work/runtime LC_ALL=C.UTF-8 LANGUAGE=C NO_AT_BRIDGE=1 GTK_A11Y=none
  export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-session-bus" GIO_USE_VFS=local
  echo "Xvfb on $DISPLAY"
}

wait_for_window() {
  local title=$1 deadline=$(( $(date +%s) + $2 )) id
  while [ "$(date +%s)" -lt "$deadline" ]; do
    id=$(xdotool search --onlyvisible --name "$title" 2>/dev/null | head -n1 || true)
    if [ -n "$id" ]; then echo "$id"; return 0; fi
    sleep 0.2
  done
  fail "no window \"$title\" within $2 s"
}

trace_mark() { wc -l <"$1" 2>/dev/null || echo 0; }

wait_for_trace() {
  local file=$1 regex=$2 deadline=$(( $(date +%s) + $3 )) after=${4:-0} line
  while [ "$(date +%s)" -lt "$deadline" ]; do
    line=$(tail -n +$((after + 1)) "$file" 2>/dev/null | grep -E -- "$regex" | tail -n1 || true)
    if [ -n "$line" ]; then echo "$line"; return 0; fi
    sleep 0.1
  done
  echo "trace so far:" >&2
  cat "$file" >&2 2>/dev/null || true
  fail "no trace line matching /$regex/ within $3 s"
}

screenshot() {
  # PNG24: true colour even when the screen has few colours.
  timeout 30 import -window "${2:-root}" "PNG24:$1" || fail "screenshot $1 failed"
}
