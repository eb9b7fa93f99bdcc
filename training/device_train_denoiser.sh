#!/usr/bin/env bash
# One device call's share of the learned denoiser's training (tools' `run`,
# carrying training/data and the output folder), as device_train.sh is the
# noise map's: resumes from OUTDIR/denoiser.ckpt when it is there, trains
# for MINUTES, and copies the weights without the optimiser's moments
# (denoiser.weights.pt, under the tool's 16 MiB a file), the loss curve and
# the log to $OUT/NAME (NAME: OUTDIR's last part) for the next call and the
# export. On a warm machine OUTDIR/denoiser.ckpt is still there and the run
# resumes exactly; on a fresh one it starts from WEIGHTS (carried, e.g.
# training/resume/denoiser.weights.pt), with fresh moments.
# Arguments after WEIGHTS ("" for none) go to train_denoiser.py (a later
# stage: --init-ewnn FILE --lr PEAK --texture-weight P).
#   training/device_train_denoiser.sh [STEPS] [MINUTES] [OUTDIR] [WEIGHTS] [TRAIN_DENOISER_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-40000}
minutes=${2:-8}
outdir=${3:-training/out-denoiser}
weights=${4:-}
shift $(( $# < 4 ? $# : 4 ))
mkdir -p "$outdir"
nvidia-smi --query-gpu=name,clocks.sm,memory.total --format=csv,noheader || true
PYTHONUNBUFFERED=1 python3 training/train_denoiser.py --data training/data --manifest training/manifest \
  --out "$outdir" --steps "$steps" --minutes "$minutes" \
  ${weights:+--resume-weights "$weights"} "$@" 2>&1 | tee -a "$outdir/train.log"
if [ -n "${OUT:-}" ]; then
  name=$(basename "$outdir")
  mkdir -p "$OUT/$name"
  cp "$outdir/denoiser.weights.pt" "$outdir/loss_curve.csv" "$outdir/train.log" "$OUT/$name/"
fi
