#!/usr/bin/env python3
"""Trains the noise-map estimator (noise_net.py) on the photo crops of
build_dataset.py with synthetic noise (noise_batch.py). Resumable: it saves
its checkpoint (weights, optimiser, step, random state, loss curve) to
OUT/noise_net.ckpt every few hundred steps and when its time budget for this
call is spent, and starts from it when it exists, so that a run spreads over
several device calls of under 10 minutes. The schedule depends only on the
step, so a resumed run follows the same curve as an unbroken one.

  python3 training/train_noise_net.py --data training/data --out training/out --steps 16000 --minutes 8

The validation set is fixed: windows of the held-out photos (every tenth
source photo of training/manifest/crops.tsv), noise drawn from seed 99.
"""
import argparse
import csv
import json
import math
import os
import pathlib
import sys
import time

import numpy as np
import torch
from PIL import Image, features

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import crop_set  # noqa: E402
import noise_batch  # noqa: E402
import noise_net  # noqa: E402

SEED = 2026
VALIDATION_SEED = 99


def load_crops(data, manifest, scores=False):
    """(training crops, held-out crops) as uint8 tensors M x 3 x S x S; with scores, also
    each training crop's texture score (crops.tsv's mean absolute Laplacian; 1 where the
    manifest has none) as a float tensor."""
    held_sources = set()
    sources = {}
    crops_tsv = manifest / "crops.tsv"
    if crops_tsv.exists():
        with open(crops_tsv) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                sources[row[next(iter(row))]] = row
    files, name = crop_set.crop_files(data / "crops")
    if not files:
        sys.exit(f"no crops in {data / 'crops'}: run training/build_dataset.py first")
    if crop_set.SET_FORMAT[name] == "webp" and not features.check("webp"):
        sys.exit(f"this Pillow cannot read WebP: the crops of set {name} need it (or build set v1)")
    train, held, train_scores = [], [], []
    for k, path in enumerate(files):
        image = np.asarray(Image.open(path).convert("RGB"))
        source = k
        row = sources.get(path.name)
        if row:
            for key in ("source_row", "source", "photo"):
                if key in row:
                    source = int(row[key])
                    break
        (held if crop_set.held_out(source) else train).append(image)
        if not crop_set.held_out(source):
            train_scores.append(float(row["laplacian"]) if row and row.get("laplacian") else 1.0)
    to_tensor = lambda images: torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).contiguous()
    if scores:
        return to_tensor(train), to_tensor(held), torch.tensor(train_scores)
    return to_tensor(train), to_tensor(held)


def learning_rate(step, steps, peak=2e-3, warmup=300):
    if step < warmup:
        return peak * (step + 1) / warmup
    t = (step - warmup) / max(1, steps - warmup)
    return 1e-5 + (peak - 1e-5) * 0.5 * (1 + math.cos(math.pi * min(t, 1.0)))


def relative_sigma_error(log_variance, mean_square):
    """Per tile and plane at scale 0: |sqrt(mean predicted variance) / sqrt(mean square) - 1|."""
    pred = torch.exp(log_variance).mean(dim=(2, 3))
    true = mean_square.mean(dim=(2, 3))
    idx = [noise_net.OUTPUT_NAMES.index(f"{p}0") for p in noise_net.PLANES]
    ratio = torch.sqrt(pred[:, idx] / true[:, idx].clamp_min(1e-6))
    return ratio, torch.sqrt(true[:, idx])


@torch.no_grad()
def validate(model, held, device, batches=8, batch=256):
    gen = torch.Generator(device=device)
    gen.manual_seed(VALIDATION_SEED)
    model.eval()
    losses, errors = [], []
    for _ in range(batches):
        noisy, target, _ = noise_batch.make_batch(held, batch, gen)
        out = model(noisy)
        losses.append(float(noise_net.nll(out, target)))
        ratio, true_sigma = relative_sigma_error(out, target)
        # Where the noise is visible (>= 1 code value), how far the reading is off.
        visible = true_sigma >= 1.0
        errors.append((ratio[visible] - 1).abs().cpu())
    model.train()
    e = torch.cat(errors)
    return sum(losses) / len(losses), float(e.median()), float(torch.quantile(e, 0.9))


def prepare_device(name):
    """The torch device and its name for the record; TF32 and cuDNN's autotuning on."""
    device = torch.device(name)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    return device, torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


def resume(ckpt_path, model, opt, gen, device):
    """Loads a checkpoint into model, optimiser and generator where one exists:
    -> (step, history, the checkpoint's dict or None)."""
    if not ckpt_path.exists():
        return 0, [], None
    ckpt = torch.load(ckpt_path, map_location=device, weights_only=False)
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    gen.set_state(ckpt["generator"].cpu())
    print(f"resumed at step {ckpt['step']}", flush=True)
    return ckpt["step"], ckpt["history"], ckpt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=pathlib.Path, default=pathlib.Path("training/data"))
    ap.add_argument("--manifest", type=pathlib.Path, default=pathlib.Path("training/manifest"))
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("training/out"))
    ap.add_argument("--steps", type=int, default=16000, help="the whole run's steps (the schedule's length)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--minutes", type=float, default=8.0, help="stop this call after this long (checkpointed)")
    ap.add_argument("--every", type=int, default=500, help="validate and checkpoint every this many steps")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()

    started = time.time()
    device, device_name = prepare_device(args.device)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt_path = args.out / "noise_net.ckpt"

    train, held = load_crops(args.data, args.manifest)
    print(f"crops: {train.shape[0]} training, {held.shape[0]} held out, {tuple(train.shape[1:])}; device {device}"
          f" ({device_name})", flush=True)
    train, held = train.to(device), held.to(device)

    torch.manual_seed(SEED)
    model = noise_net.NoiseNet().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    gen = torch.Generator(device=device)
    gen.manual_seed(SEED)
    step, history, _ = resume(ckpt_path, model, opt, gen, device)

    def save():
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "generator": gen.get_state(),
                    "step": step, "history": history, "args": {k: str(v) for k, v in vars(args).items()},
                    "seed": SEED, "device": device_name},
                   tmp)
        os.replace(tmp, ckpt_path)
        with open(args.out / "loss_curve.csv", "w") as f:
            f.write("step,train_nll,val_nll,val_median_sigma_error,val_p90_sigma_error,lr,seconds\n")
            for h in history:
                f.write(",".join(str(h[k]) for k in ("step", "train", "val", "median", "p90", "lr", "seconds")) + "\n")

    running, count, t0 = 0.0, 0, time.time()
    while step < args.steps:
        lr = learning_rate(step, args.steps)
        for group in opt.param_groups:
            group["lr"] = lr
        noisy, target, _ = noise_batch.make_batch(train, args.batch, gen)
        loss = noise_net.nll(model(noisy), target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running += float(loss.detach()) if (step % 50 == 0) else 0.0
        count += 1 if step % 50 == 0 else 0
        step += 1
        out_of_time = time.time() - started > args.minutes * 60
        if step % args.every == 0 or step == args.steps or out_of_time:
            val, median, p90 = validate(model, held, device)
            history.append({"step": step, "train": running / max(count, 1), "val": val, "median": median,
                            "p90": p90, "lr": lr, "seconds": round(time.time() - t0, 1)})
            print(f"step {step:6d}  train {running / max(count, 1):.4f}  val {val:.4f}  "
                  f"sigma error median {100 * median:.1f}% p90 {100 * p90:.1f}%  lr {lr:.2e}  "
                  f"{time.time() - t0:.0f} s", flush=True)
            running, count = 0.0, 0
            save()
            if out_of_time:
                print(f"time budget spent at step {step}; run again to resume", flush=True)
                return
    print(f"done: {step} steps", flush=True)
    json.dump(history[-1] if history else {}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
