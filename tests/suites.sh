#!/usr/bin/env bash
# What CI checks about the test suites themselves (install/test.sh):
#
#   tests/suites.sh floors BUILD_DIR [LABEL...]
#     Each label (default: every label of tests/label_floors.txt) registers
#     at least its floor of tests in BUILD_DIR, and no test is without a
#     label. Prints one line per label; exits 1 if any is short.
#
#   tests/suites.sh skips BUILD_DIR CTEST_OUTPUT [ALLOWED_LABEL...]
#     Lists every test that BUILD_DIR's last ctest run skipped (its stdout
#     saved in CTEST_OUTPUT), each with its reason (the message of
#     GTEST_SKIP, or a line "SKIP: ..." of a script), and exits 1 if any
#     skipped test lacks every ALLOWED_LABEL (CI allows gpu only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

count() {  # count BUILD_DIR LABEL_ARGS...: tests ctest registers
  ctest --test-dir "$1" -N "${@:2}" | sed -n 's/^Total Tests: //p'
}

floors() {
  local build=$1 status=0 label floor have
  shift
  local wanted=("$@")
  while read -r label floor; do
    [ -z "$label" ] || [ "${label:0:1}" = "#" ] && continue
    if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $label "* ]]; then continue; fi
    have=$(count "$build" -L "^${label}\$")
    if [ "${have:-0}" -lt "$floor" ]; then
      echo "suite $label: $have tests registered, fewer than its floor of $floor (tests/label_floors.txt)"
      status=1
    else
      echo "suite $label: $have tests (floor $floor)"
    fi
  done <"$here/label_floors.txt"
  have=$(count "$build" -LE '.')
  if [ "${have:-0}" -gt 0 ]; then
    echo "tests without a label (each needs one of tests/label_floors.txt):"
    ctest --test-dir "$build" -N -LE '.' | grep -E '^ +Test +#' || true
    status=1
  fi
  return $status
}

# The reason a skipped test gave, from a copy of ctest's log of its output
# (taken first: ctest -N writes a new, empty log).
reason() {
  awk -v name="$2" '
    $0 ~ ("Testing: " name "$") { inside = 1; next }
    inside && /^<end of output>/ { exit }
    inside && after_skipped { print; found = 1; exit }
    inside && /: Skipped$/ { after_skipped = 1; next }
    inside && /^SKIP: / { sub(/^SKIP: /, ""); print; found = 1; exit }
  ' "$1"
}

skips() {
  local build=$1 output=$2 status=0 name allowed label why
  shift 2
  local allowed_labels=("$@")
  local names=()
  mapfile -t names < <(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$output")
  if [ ${#names[@]} -eq 0 ]; then
    echo "skipped tests in $build: none"
    return 0
  fi
  echo "skipped tests in $build: ${#names[@]}"
  local log
  log=$(mktemp)
  cp "$build/Testing/Temporary/LastTest.log" "$log"
  for name in "${names[@]}"; do
    allowed=no
    for label in "${allowed_labels[@]}"; do
      # ctest -R takes a regular expression: escape the name's dots.
      if [ "$(count "$build" -L "^${label}\$" -R "^${name//./\\.}\$")" = 1 ]; then allowed=yes; fi
    done
    why=$(reason "$log" "$name")
    if [ "$allowed" = yes ]; then
      echo "  skipped: $name: ${why:-(no reason printed)}"
    else
      echo "  SKIPPED, NOT ALLOWED (only ${allowed_labels[*]:-no} tests may skip): $name: ${why:-(no reason printed)}"
      status=1
    fi
  done
  rm -f "$log"
  return $status
}

case ${1:-} in
  floors) shift; floors "$@" ;;
  skips) shift; skips "$@" ;;
  *) sed -n '2,15p' "$0" >&2; exit 2 ;;
esac
