#!/usr/bin/env bash
# Runs a test program inside a private Xvfb display (x_session.sh).
# Usage: run_in_x.sh WORK PROGRAM [ARGS...]
set -euo pipefail
work=$1
shift
source "$(dirname "$0")/x_session.sh"
rm -rf "$work"
mkdir -p "$work"
x_session_start "$work"
"$@"
