#!/usr/bin/env python3
"""Exports a training checkpoint to the weight file the C++ loads
(core/noise_net.h: magic "EWNN", format 1, a text header with the model,
its version and every layer, float32 weights in PyTorch's layout, the
SHA-256 of all before it), and records its provenance in
training/manifest/noise_net.json (file hash, steps, seeds, device,
commands, final validation figures) and the loss curve beside it.

  python3 training/export_noise_net.py --ckpt training/out/noise_net.ckpt --to models/noise_net-v1.ewnn
"""
import argparse
import csv
import datetime
import hashlib
import json
import pathlib
import shutil
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ewnn  # noqa: E402
import noise_net  # noqa: E402


def serialise(state, info):
    floats = []
    for k in range(len(noise_net.LAYERS)):
        floats.append(state[f"convs.{k}.weight"].detach().cpu().float().flatten())
        floats.append(state[f"convs.{k}.bias"].detach().cpu().float().flatten())
    payload = torch.cat(floats)
    lines = [f"model {noise_net.MODEL}", f"version {noise_net.VERSION}", "input rgb-0.5",
             f"tile {noise_net.TILE}", f"outputs {len(noise_net.OUTPUT_NAMES)} " + " ".join(noise_net.OUTPUT_NAMES)]
    for (i, o, k, s, relu) in noise_net.LAYERS:
        lines.append(f"layer conv {i} {o} {k} {s} {'relu' if relu else 'none'}")
    lines.append(f"floats {payload.numel()}")
    lines += [f"{key} {value}" for key, value in info.items()]
    return ewnn.pack(lines, payload.numpy())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=pathlib.Path, default=pathlib.Path("training/out/noise_net.ckpt"))
    ap.add_argument("--to", type=pathlib.Path, default=pathlib.Path("models/noise_net-v1.ewnn"))
    ap.add_argument("--manifest", type=pathlib.Path, default=pathlib.Path("training/manifest"))
    args = ap.parse_args()
    ckpt = torch.load(args.ckpt, map_location="cpu", weights_only=False)
    last = ckpt["history"][-1] if ckpt["history"] else {}
    info = {"trained": f"{ckpt['step']} steps, seed {ckpt['seed']}, on {ckpt['device']}".replace(" ", "_"),
            "validation": f"median_sigma_error_{100 * last.get('median', float('nan')):.1f}%"}
    data = serialise(ckpt["model"], info)
    args.to.parent.mkdir(parents=True, exist_ok=True)
    args.to.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    args.manifest.mkdir(parents=True, exist_ok=True)
    curve = args.ckpt.parent / "loss_curve.csv"
    if curve.exists():
        shutil.copy(curve, args.manifest / "noise_net_loss_curve.csv")
    record = {
        "file": str(args.to), "sha256": digest, "bytes": len(data), "model": noise_net.MODEL,
        "version": noise_net.VERSION, "macs_per_pixel": noise_net.macs_per_pixel(),
        "parameters": sum(v.numel() for v in ckpt["model"].values()),
        "steps": ckpt["step"], "seed": ckpt["seed"], "validation_seed": 99, "device": ckpt["device"],
        "train_args": ckpt.get("args", {}), "final": last,
        "commands": ["python3 training/build_dataset.py --set v1",
                     "python3 training/train_noise_net.py --data training/data --out training/out "
                     f"--steps {ckpt.get('args', {}).get('steps', '?')} --minutes 8   (on the device, repeated until done: "
                     "training/device_train.sh)",
                     f"python3 training/export_noise_net.py --ckpt {args.ckpt} --to {args.to}"],
        "exported": datetime.date.today().isoformat(),
    }
    (args.manifest / "noise_net.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"{args.to}: {len(data)} bytes, sha256 {digest}")


if __name__ == "__main__":
    main()
