#!/usr/bin/env bash
# On the GPU machine, from a bundle that pack_bundle.sh made with the CLI
# (ONLY="... edgewise"): the CLI's wall time for one JPEG -> JPEG against
# its own decode and encode times (--verbose prints them), on each backend,
# three runs each (issue 17, goal 3: within 0.3 s of decode + encode).
#   tests/gpu/cli_wall.sh BUNDLE_DIR PHOTO.jpg [CLI options...]
set -uo pipefail
bundle=${1:?usage: cli_wall.sh BUNDLE_DIR PHOTO.jpg [options]}
photo=${2:?usage: cli_wall.sh BUNDLE_DIR PHOTO.jpg [options]}
shift 2
work=$(mktemp -d)
tar -C "$work" -xJf "$bundle/suite.tar.xz"
B=$work/suite
for backend in cuda cpu; do
  for run in 1 2 3; do
    start=$(date +%s.%N)
    # Each line stamped when it came: the last one's stamp to the end is the exit.
    log=$("$B/ld-linux-x86-64.so.2" --library-path "$B" "$B/edgewise" --backend "$backend" --verbose "$@" \
      "$photo" -o "$work/out.jpg" 2>&1 | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done)
    status=${PIPESTATUS[0]}
    end=$(date +%s.%N)
    last=$(tail -1 <<<"$log" | cut -d' ' -f1)
    read_s=$(grep -o 'read in [0-9.]*' <<<"$log" | awk '{print $3}')
    written_s=$(grep -o 'written in [0-9.]*' <<<"$log" | awk '{print $3}')
    filter_s=$(grep -o 'filtered in [0-9.]*' <<<"$log" | awk '{print $3}')
    awk -v b="$backend" -v r="$run" -v s="$status" -v t0="$start" -v t1="$end" -v rd="$read_s" -v wr="$written_s" \
      -v f="$filter_s" -v l="$last" 'BEGIN { w = t1 - t0; printf "%s run %d (status %d): wall %.3f s, read %.2f, filter %.2f, write %.2f, wall - read - write %.3f s, exit after the last line %.3f s\n", b, r, s, w, rd, f, wr, w - rd - wr, t1 - l }'
    [ "$run" = 1 ] && grep -v "read in\|written in" <<<"$log" | head -3
    grep "started in" <<<"$log"
  done
done
rm -rf "$work"
