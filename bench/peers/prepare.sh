#!/usr/bin/env bash
# Run on this machine before the device's bm3d-peer step (tests/gpu/run.sh;
# bench/peers/README.md): makes bench/peers/.inputs/, git-ignored, which the
# device call carries:
#   bm3d-gpu/    DawyD/bm3d-gpu's source, exported from its mirror (BSD
#                2-clause; third-party code, never committed here), with
#                COMMIT holding the commit it came from;
#   clean.ppm, noisy.ppm   the photo and its noisy copy (make_inputs.py);
#   inputs.txt   what make_inputs.py printed.
# About 28 MB, within the device tool's 64 MiB of carried paths.
#
# Usage: bench/peers/prepare.sh   (EDGEWISE_BM3D_GPU_GIT: the mirror's git
# directory, default /work/.mirror/DawyD+bm3d-gpu/repo)
set -euo pipefail
cd "$(dirname "$0")/../.."
mirror=${EDGEWISE_BM3D_GPU_GIT:-/work/.mirror/DawyD+bm3d-gpu/repo}
inputs=bench/peers/.inputs
git check-ignore -q "$inputs/clean.ppm" || { echo "prepare.sh: $inputs is not git-ignored" >&2; exit 1; }

rm -rf "$inputs"
mkdir -p "$inputs/bm3d-gpu"
git --git-dir="$mirror" archive HEAD | tar -x -C "$inputs/bm3d-gpu"
git --git-dir="$mirror" log -1 --format='%H %cs %s' HEAD > "$inputs/bm3d-gpu/COMMIT"
echo "bm3d-gpu: DawyD/bm3d-gpu $(cat "$inputs/bm3d-gpu/COMMIT")"

/usr/bin/python3 bench/peers/make_inputs.py "$inputs" | tee "$inputs/inputs.txt"
du -sh "$inputs"
echo "carry: $inputs"
