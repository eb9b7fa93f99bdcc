#!/usr/bin/env python3
"""The learned denoiser on OpenCV's six sample photos halved (each 2 x 2
block's mean: no JPEG 8 x 8 blocks, no halved chroma), white sigma
10/20/30 with nlbayes_texture.py's noise (seed 1000 + sigma), beside BM3D
given the true sigma and nlbayes given it at one scale, both read from
nlbayes_texture.py's CSV (its rows with clean "half" and setting
"default": the same clean images and noise). Three of the six photos are
quality-75 4:2:0 JPEGs, whose decoded pixels favour BM3D's 8 x 8 DCT
(docs/quality.md, "nlbayes against BM3D on photos outside this set"); the
halved photos measure denoising without that bias.

  python3 bench/quality/learned_half.py OPENCV_DOC_ROOT build/bench/learned_denoise_file \\
      docs/nlbayes_texture.csv docs/learned_half.csv

One CSV row per photo, sigma and method (learned given sigma, learned
blind), with BM3D's and nlbayes's PSNR beside it.
"""
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nlbayes_texture import PHOTOS, clean_image, psnr, white_noisy  # noqa: E402


def peers(path):
    """{(image, sigma): (bm3d, nlbayes)} from nlbayes_texture.py's rows on halved photos."""
    with open(path, newline="") as f:
        return {(r["image"], int(r["sigma"])): (float(r["bm3d"]), float(r["nlbayes"]))
                for r in csv.DictReader(f) if r["clean"] == "half" and r["setting"] == "default"}


def main(root, learned, peers_csv, out_csv):
    known = peers(peers_csv)
    examples = os.path.join(root, "usr/share/doc/opencv-doc/examples")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        noisy_path, out = os.path.join(tmp, "noisy.png"), os.path.join(tmp, "out.png")
        for name, path in PHOTOS.items():
            clean = clean_image(np.asarray(Image.open(os.path.join(examples, path)).convert("RGB")), "half")
            for sigma in (10, 20, 30):
                if (name, sigma) not in known:
                    sys.exit(f"{peers_csv} has no halved {name} at sigma {sigma}")
                bm3d, nlbayes = known[(name, sigma)]
                noisy = white_noisy(clean, sigma)
                Image.fromarray(noisy).save(noisy_path)
                for method, args in (("learned", ["--sigma", str(sigma)]), ("learned blind", [])):
                    subprocess.run([learned, *args, noisy_path, out], check=True, capture_output=True)
                    value = psnr(np.asarray(Image.open(out).convert("RGB")), clean)
                    rows.append([name, sigma, method, f"{psnr(noisy, clean):.2f}", f"{bm3d:.2f}", f"{nlbayes:.2f}",
                                 f"{value:.2f}", f"{value - bm3d:.2f}"])
                    print(f"{name:10s} sigma {sigma:2d} {method:14s} bm3d {bm3d:6.2f} nlbayes {nlbayes:6.2f} "
                          f"learned {value:6.2f} ({value - bm3d:+.2f})", flush=True)
    for method in ("learned", "learned blind"):
        for sigma in (10, 20, 30):
            sel = [r for r in rows if r[2] == method and r[1] == sigma]
            mean = lambda k: sum(float(r[k]) for r in sel) / len(sel)  # noqa: E731
            rows.append(["mean", sigma, method] + [f"{mean(k):.2f}" for k in range(3, 8)])
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "sigma", "method", "noisy", "bm3d", "nlbayes", "learned", "learned_minus_bm3d"])
        w.writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
