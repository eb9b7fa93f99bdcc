#!/usr/bin/env bash
# One device call's share of training (tools' `run`, carrying training/data
# and the output folder): resumes from OUTDIR/noise_net.ckpt when it is
# there, trains for MINUTES, and copies the checkpoint, the loss curve and
# the log to $OUT/NAME (NAME: OUTDIR's last part) so that the next call (and
# the export) can take them back.
#   training/device_train.sh [STEPS] [MINUTES] [OUTDIR]
# Two runs from scratch at once, for the reproducibility check (one GPU
# holds both; each is the same command):
#   training/device_train.sh 14000 9 training/out & training/device_train.sh 14000 9 training/out-repeat; wait
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-14000}
minutes=${2:-8}
outdir=${3:-training/out}
mkdir -p "$outdir"
nvidia-smi --query-gpu=name,clocks.sm,memory.total --format=csv,noheader || true
PYTHONUNBUFFERED=1 python3 training/train_noise_net.py --data training/data --manifest training/manifest \
  --out "$outdir" --steps "$steps" --minutes "$minutes" 2>&1 | tee -a "$outdir/train.log"
if [ -n "${OUT:-}" ]; then
  name=$(basename "$outdir")
  mkdir -p "$OUT/$name"
  cp "$outdir/noise_net.ckpt" "$outdir/loss_curve.csv" "$outdir/train.log" "$OUT/$name/"
fi
