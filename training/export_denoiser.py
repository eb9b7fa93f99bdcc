#!/usr/bin/env python3
"""Exports a denoiser checkpoint to the weight file the C++ loads
(core/denoise_net.h: a network file of core/noise_net.h with model
"denoiser", its program as "layer" lines, the map's normalisation and the
noise-map network it was trained with), and records its provenance in
training/manifest/denoiser.json with the loss curve beside it.

  python3 training/export_denoiser.py --ckpt training/out-denoiser/denoiser.ckpt --to models/denoiser-v1.ewnn

--untrained SEED writes the architecture with PyTorch's initial weights
instead (no manifest): what the speed benchmarks run before training.
"""
import argparse
import datetime
import hashlib
import json
import pathlib
import shutil
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import denoise_net  # noqa: E402
import ewnn  # noqa: E402


def serialise(model, info, noise_net_sha256):
    floats = []
    for conv in model.convs:
        floats.append(conv.weight.detach().cpu().float().flatten())
        floats.append(conv.bias.detach().cpu().float().flatten())
    payload = torch.cat(floats)
    lines = [f"model {denoise_net.MODEL}", f"version {denoise_net.VERSION}", "input rgb-0.5",
             f"tile {denoise_net.TILE}", "outputs 3 R G B"]
    lines += denoise_net.program_lines(model.program)
    lines.append(f"floats {payload.numel()}")
    lines += [f"map-offset {denoise_net.MAP_OFFSET!r}", f"map-scale {denoise_net.MAP_SCALE!r}",
              f"map-cell {denoise_net.noise_net.CELL}", f"noise-net {noise_net_sha256}"]
    lines += [f"{key} {value}" for key, value in info.items()]
    return ewnn.pack(lines, payload.numpy())


def train_command(saved):
    """The training command a checkpoint's saved arguments give (the options that shape the run)."""
    words = ["--data training/data", f"--out {saved.get('out', 'training/out-denoiser')}",
             f"--steps {saved.get('steps', '?')}", f"--lr {saved.get('lr', '?')}",
             f"--batch {saved.get('batch', '?')}"]
    if saved.get("init_ewnn") not in (None, "None"):
        words.append(f"--init-ewnn {saved['init_ewnn']}")
    if saved.get("texture_weight") not in (None, "0.0"):
        words.append(f"--texture-weight {saved['texture_weight']}")
    return " ".join(words)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=pathlib.Path, default=pathlib.Path("training/out-denoiser/denoiser.ckpt"))
    ap.add_argument("--to", type=pathlib.Path, default=pathlib.Path("models/denoiser-v1.ewnn"))
    ap.add_argument("--manifest", type=pathlib.Path, default=pathlib.Path("training/manifest"))
    ap.add_argument("--untrained", type=int, metavar="SEED", help="random initial weights, for benchmarks")
    ap.add_argument("--noise-net", type=pathlib.Path, default=pathlib.Path("models/noise_net-v1.ewnn"))
    args = ap.parse_args()
    if args.untrained is not None:
        torch.manual_seed(args.untrained)
        model = denoise_net.DenoiseNet()
        torch.nn.init.normal_(model.convs[-1].weight, std=0.01)
        data = serialise(model, {"trained": "no_(benchmark_weights)"}, ewnn.read(args.noise_net)[2])
        args.to.write_bytes(data)
        print(f"{args.to}: {len(data)} bytes, untrained (seed {args.untrained})")
        return
    ckpt = torch.load(args.ckpt, map_location="cpu", weights_only=False)
    model = denoise_net.DenoiseNet()
    model.load_state_dict(ckpt["model"])
    last = ckpt["history"][-1] if ckpt["history"] else {}
    stage = f" after {ckpt['init']['trained']}" if ckpt.get("init") else ""
    info = {"trained": f"{ckpt['step']} steps, seed {ckpt['seed']}, on {ckpt['device']}{stage}".replace(" ", "_")}
    data = serialise(model, info, ckpt["noise_net_sha256"])
    args.to.parent.mkdir(parents=True, exist_ok=True)
    args.to.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    args.manifest.mkdir(parents=True, exist_ok=True)
    # A later stage (train_denoiser.py --init-ewnn) keeps the record of the weights it
    # started from: the earlier stages' records and curves stay in the manifest.
    init = ckpt.get("init")
    stages = []
    if init:
        old_path = args.manifest / "denoiser.json"
        old = json.loads(old_path.read_text()) if old_path.exists() else {}
        if old.get("sha256") != init["sha256"]:
            sys.exit(f"{old_path} does not describe {init['file']} (sha256 {init['sha256']}), "
                     "the weights this stage started from")
        stages = old.pop("stages", []) + [old]
        stage_curve = args.manifest / f"denoiser_stage{len(stages)}_loss_curve.csv"
        shutil.copy(args.manifest / "denoiser_loss_curve.csv", stage_curve)
        old["loss_curve"] = stage_curve.name  # beside this record, in the manifest folder
    curve = args.ckpt.parent / "loss_curve.csv"
    if curve.exists():
        shutil.copy(curve, args.manifest / "denoiser_loss_curve.csv")
    record = {
        "file": str(args.to), "sha256": digest, "bytes": len(data), "model": denoise_net.MODEL,
        "version": denoise_net.VERSION, "macs_per_pixel": denoise_net.macs_per_pixel(),
        "parameters": denoise_net.parameters(), "noise_net_sha256": ckpt["noise_net_sha256"],
        "steps": ckpt["step"], "seed": ckpt["seed"], "validation_seed": 99, "device": ckpt["device"],
        "train_args": ckpt.get("args", {}), "final": last, "init": init,
        "loss_curve": "denoiser_loss_curve.csv", "stages": stages,
        "crop_set": ckpt.get("crop_set", "v1"),
        "commands": [f"python3 training/build_dataset.py --set {ckpt.get('crop_set', 'v1')}",
                     "python3 training/train_denoiser.py " + train_command(ckpt.get("args", {}))
                     + "   (on the device, repeated until done: training/device_train_denoiser.sh)",
                     f"python3 training/export_denoiser.py --ckpt {args.ckpt} --to {args.to}"],
        "exported": datetime.date.today().isoformat(),
    }
    (args.manifest / "denoiser.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"{args.to}: {len(data)} bytes, sha256 {digest}")


if __name__ == "__main__":
    main()
