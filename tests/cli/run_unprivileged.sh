#!/usr/bin/env bash
# Runs test_cli's tests of permission errors as a user without root's
# powers: root reads unreadable files and writes into read-only folders,
# so as root those tests skip, and CI runs as root.
#
# Usage: run_unprivileged.sh TEST_CLI EDGEWISE DATA_DIR GTEST_FILTER
#
# Not root: runs them as this user. Root: as $EDGEWISE_TEST_USER (default
# edgewise-ci, which install/test.sh creates), from copies of the two
# programs and the test photos in a private folder that user owns (the
# build tree may sit where that user cannot reach, as /root). Root without
# that user: exit 77, which ctest reports as skipped, with the reason.
set -euo pipefail
test_cli=$1 edgewise=$2 data=$3 filter=$4
if [ "$(id -u)" -ne 0 ]; then
  exec "$test_cli" --gtest_filter="$filter"
fi
user=${EDGEWISE_TEST_USER:-edgewise-ci}
if ! id -u "$user" >/dev/null 2>&1; then
  echo "SKIP: running as root and no user $user to drop to (install/test.sh creates it; or set EDGEWISE_TEST_USER)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/data" "$work/tmp"
cp "$test_cli" "$edgewise" "$work/"
cp "$data/astronaut.png" "$data/camera.png" "$work/data/"
chown -R "$user" "$work"
chmod 700 "$work"
echo "running as $user from $work"
# A login environment would lose ctest's; keep it, with a temporary folder
# of the user's own.
setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
  env TMPDIR="$work/tmp" EDGEWISE_TEST_CLI="$work/$(basename "$edgewise")" EDGEWISE_TEST_DATA_DIR="$work/data" \
  "$work/$(basename "$test_cli")" --gtest_filter="$filter"
