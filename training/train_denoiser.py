#!/usr/bin/env python3
"""Trains the learned denoiser (denoise_net.py) on the photo crops of
build_dataset.py with the noise-map network's synthetic noise
(denoise_batch.py), conditioned on the shipped noise-map network's reading.
Resumable like train_noise_net.py: OUT/denoiser.ckpt holds the weights, the
optimiser, the step, the random state and the curve, saved every few hundred
steps and when this call's minutes are spent; the schedule depends only on
the step, so a run spread over several device calls follows one curve.

Beside it, OUT/denoiser.weights.pt holds all of that but the optimiser's
moments (11 MB against 34: a device call brings back files of at most
16 MiB and carries 64 MiB with the 39 MB of crops). A call that finds no
denoiser.ckpt but a --resume-weights file starts from those weights with
fresh moments and re-warms the learning rate over REWARM steps, so
that Adam's first steps, taken on moments of a few batches, stay small.

  python3 training/train_denoiser.py --data training/data --out training/out-denoiser --steps 40000 --minutes 8

A later stage starts from shipped weights instead (--init-ewnn, e.g.
models/denoiser-v1.ewnn) with a schedule of its own (its steps count from
0, warm-up then cosine from --lr) and may draw the crops in proportion to
their texture score to the power --texture-weight (crops.tsv's mean
absolute Laplacian; 0 draws them uniformly, as the first stage did): the
first weights lose to BM3D on fine texture under light noise, and most
crops are smooth wallpaper. Validation stays uniform over the held-out
crops, so the stages' curves compare.

Loss: L1 on 0..1 samples (DRUNet's choice; less swayed by the rare clipped
tile than L2). Validation: tiles of the held-out photos (every tenth source,
as for the noise map) with noise from seed 99, PSNR per kind of noise.
"""
import argparse
import json
import math
import os
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import crop_set  # noqa: E402
import denoise_batch  # noqa: E402
import denoise_net  # noqa: E402
import ewnn  # noqa: E402
from train_noise_net import learning_rate, load_crops, prepare_device, resume  # noqa: E402

SEED = 2027
VALIDATION_SEED = 99
REWARM = 200
KINDS = [name for name, _ in denoise_batch.noise_batch.KINDS]


def psnr(out, ref):
    mse = ((out.clamp(0, 1) - ref) ** 2).mean(dim=(1, 2, 3)).clamp_min(1e-10)
    return -10 * torch.log10(mse)


@torch.no_grad()
def validate(model, held, noise_map, device, batches, batch):
    gen = torch.Generator(device=device)
    gen.manual_seed(VALIDATION_SEED)
    model.eval()
    loss, gains, values = 0.0, {k: [] for k in KINDS}, {k: [] for k in KINDS}
    for _ in range(batches):
        noisy, ref, nmap, groups = denoise_batch.make_batch(held, batch, gen, noise_map)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            out = model(noisy, nmap).float()
        loss += float((out - ref).abs().mean())
        p_out, p_in = psnr(out, ref), psnr(noisy, ref)
        for name, sel in groups.items():
            values[name] += p_out[sel].tolist()
            gains[name] += (p_out[sel] - p_in[sel]).tolist()
    model.train()
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    return loss / batches, {k: mean(values[k]) for k in KINDS}, {k: mean(gains[k]) for k in KINDS}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=pathlib.Path, default=pathlib.Path("training/data"))
    ap.add_argument("--manifest", type=pathlib.Path, default=pathlib.Path("training/manifest"))
    ap.add_argument("--noise-net", type=pathlib.Path, default=pathlib.Path("models/noise_net-v1.ewnn"))
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("training/out-denoiser"))
    ap.add_argument("--steps", type=int, default=40000, help="the whole run's steps (the schedule's length)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-4, help="the schedule's peak")
    ap.add_argument("--minutes", type=float, default=8.0, help="stop this call after this long (checkpointed)")
    ap.add_argument("--every", type=int, default=1000, help="validate and checkpoint every this many steps")
    ap.add_argument("--val-batches", type=int, default=8)
    ap.add_argument("--resume-weights", type=pathlib.Path, default=None,
                    help="a denoiser.weights.pt to start from when OUT holds no denoiser.ckpt")
    ap.add_argument("--init-ewnn", type=pathlib.Path, default=None,
                    help="a later stage: start from this exported denoiser when OUT holds no checkpoint")
    ap.add_argument("--texture-weight", type=float, default=0.0,
                    help="draw training crops in proportion to texture score ** this (0: uniformly)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()

    started = time.time()
    device, device_name = prepare_device(args.device)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt_path = args.out / "denoiser.ckpt"
    weights_path = args.out / "denoiser.weights.pt"

    train, held, scores = load_crops(args.data, args.manifest, scores=True)
    crops_name = crop_set.crop_files(args.data / "crops")[1]  # build_dataset.py --set
    weights = scores.clamp_min(1e-3) ** args.texture_weight if args.texture_weight else None
    print(f"crops: {train.shape[0]} training, {held.shape[0]} held out; device {device} ({device_name}); "
          f"{denoise_net.parameters()} weights, {denoise_net.macs_per_pixel():.0f} MAC/px", flush=True)
    train, held = train.to(device), held.to(device)
    if weights is not None:
        share = weights / weights.sum()
        print(f"crops drawn by texture score ** {args.texture_weight}: the most textured quarter "
              f"{float(share.sort(descending=True).values[:len(share) // 4].sum()):.2f} of draws", flush=True)
        weights = weights.to(device)
    noise_map = denoise_net.NoiseMap(args.noise_net).to(device)

    torch.manual_seed(SEED)
    model = denoise_net.DenoiseNet().to(device).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    gen = torch.Generator(device=device)
    gen.manual_seed(SEED)
    step, history, ckpt = resume(ckpt_path, model, opt, gen, device)
    rewarm_from = None
    if ckpt is None and args.resume_weights is not None:
        ckpt = torch.load(args.resume_weights, map_location=device, weights_only=False)
        model.load_state_dict(ckpt["model"])
        gen.set_state(ckpt["generator"].cpu())
        step, history, rewarm_from = ckpt["step"], ckpt["history"], ckpt["step"]
        print(f"resumed at step {step} from {args.resume_weights} (fresh optimiser moments, "
              f"{REWARM} steps of re-warming)", flush=True)
    init = None
    if ckpt is None and args.init_ewnn is not None:
        lines, payload, digest = ewnn.read(args.init_ewnn)
        model.load_state_dict(ewnn.conv_state(lines, payload))
        given = dict((w[0], w[1]) for w in lines if len(w) == 2)
        if given.get("noise-net") != noise_map.sha256:
            sys.exit(f"{args.init_ewnn} was trained with another noise-map network ({given.get('noise-net')})")
        init = {"file": str(args.init_ewnn), "sha256": digest, "trained": given.get("trained", "?")}
        print(f"stage starts from {args.init_ewnn} (sha256 {digest[:16]}..., {init['trained']})", flush=True)
        # The starting point on this stage's validation tiles: the stage's gain is measured from
        # here (and a changed crop set that kept the held-out crops must give the last stage's figure).
        val, values, _ = validate(model, held, noise_map, device, args.val_batches, args.batch)
        init["val_l1"], init["val_psnr"] = val, values
        print(f"stage start: val {val:.5f}  " + " ".join(f"{k} {values[k]:.2f}" for k in KINDS), flush=True)
    elif ckpt is not None:
        init = ckpt.get("init")
    if ckpt and ckpt.get("noise_net_sha256") != noise_map.sha256:
        sys.exit(f"{ckpt_path} was trained with another noise-map network ({ckpt.get('noise_net_sha256')})")

    def save():
        state = {"model": model.state_dict(), "generator": gen.get_state(),
                 "step": step, "history": history, "args": {k: str(v) for k, v in vars(args).items()},
                 "seed": SEED, "device": device_name, "noise_net_sha256": noise_map.sha256,
                 "init": init, "crop_set": crops_name}
        for path, extra in ((ckpt_path, {"optimizer": opt.state_dict()}), (weights_path, {})):
            tmp = path.with_suffix(".tmp")
            torch.save({**state, **extra}, tmp)
            os.replace(tmp, path)
        with open(args.out / "loss_curve.csv", "w") as f:
            f.write("step,train_l1,val_l1," + ",".join(f"val_psnr_{k}" for k in KINDS) + ",lr,seconds\n")
            for h in history:
                f.write(",".join([str(h["step"]), f"{h['train']:.6f}", f"{h['val']:.6f}"]
                                 + [f"{h['psnr'][k]:.3f}" for k in KINDS] + [f"{h['lr']:.3e}", str(h["seconds"])])
                        + "\n")

    running, count, t0 = 0.0, 0, time.time()
    while step < args.steps:
        lr = learning_rate(step, args.steps, peak=args.lr, warmup=500)
        if rewarm_from is not None:
            lr *= min(1.0, (step - rewarm_from + 1) / REWARM)
        for group in opt.param_groups:
            group["lr"] = lr
        noisy, ref, nmap, _ = denoise_batch.make_batch(train, args.batch, gen, noise_map, weights)
        noisy = noisy.contiguous(memory_format=torch.channels_last)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            out = model(noisy, nmap)
        loss = (out.float() - ref).abs().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        if step % 50 == 0:
            running, count = running + float(loss.detach()), count + 1
        step += 1
        out_of_time = time.time() - started > args.minutes * 60
        if step % args.every == 0 or step == args.steps or out_of_time:
            val, values, gains = validate(model, held, noise_map, device, args.val_batches, args.batch)
            history.append({"step": step, "train": running / max(count, 1), "val": val, "psnr": values,
                            "gain": gains, "lr": lr, "seconds": round(time.time() - t0, 1)})
            print(f"step {step:6d}  train {running / max(count, 1):.5f}  val {val:.5f}  "
                  + " ".join(f"{k} {values[k]:.2f}(+{gains[k]:.2f})" for k in KINDS)
                  + f"  lr {lr:.2e}  {time.time() - t0:.0f} s", flush=True)
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
