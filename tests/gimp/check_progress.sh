#!/usr/bin/env bash
# Checks what the plug-in told GIMP's progress bar (EDGEWISE_PROGRESS_LOG,
# plugin/progress.h) during the runs whose progress text matches RUN_REGEX:
# each such run's updates never go back and end at 1, and each has at least
# MIN_INSIDE distinct updates strictly between 0 and 1 (the bar moved while
# the filter ran, not only at its end). Counts, never times.
# Usage: check_progress.sh LOG RUN_REGEX MIN_INSIDE
set -euo pipefail
log=$1 regex=$2 least=$3
[ -f "$log" ] || { echo "FAIL: no progress log $log"; exit 1; }
awk -v regex="$regex" -v least="$least" '
  function finish() {
    if (!inside_run) return
    runs++
    printf "%s: %d updates inside (0, 1), last %s\n", name, count, last
    if (last != "1.0000") { print "FAIL: it did not end at 1"; bad = 1 }
    if (count < least) { printf "FAIL: fewer than %d updates inside (0, 1)\n", least; bad = 1 }
    if (back) { print "FAIL: the progress went back"; bad = 1 }
  }
  /^init / {
    finish()
    name = substr($0, 6); sub(/ [0-9.]+$/, "", name); inside_run = (name ~ regex); count = 0; last = ""; previous = -1; back = 0
    delete seen
    next
  }
  inside_run && /^update / {
    value = $2 + 0
    if (value < previous) back = 1
    previous = value
    last = $2
    if (value > 0 && value < 1 && !(($2) in seen)) { seen[$2] = 1; count++ }
  }
  END {
    finish()
    if (runs == 0) { printf "FAIL: no run matching /%s/ in the log\n", regex; bad = 1 }
    exit bad
  }' "$log"
