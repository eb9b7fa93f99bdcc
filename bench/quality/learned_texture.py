#!/usr/bin/env python3
"""The learned denoiser against BM3D and nlbayes on photos outside the
quality and training sets (issue 35): OpenCV's sample photos, the same six
and the same noise as nlbayes_texture.py (white sigma 10/20/30, seed 1000 +
sigma, rounded and clipped), plus Poisson-Gaussian noise (variance
a * x + b^2 in code values, x the clean value; a = sigma / 10, b = sigma / 2,
seed 2000 + sigma). Methods: BM3D (PyPI bm3d 4.0.3, bm3d_rgb given the true
sigma; on Poisson-Gaussian noise the photo's RMS noise), nlbayes given the
same sigma at one scale, nlbayes blind (its defaults, auto), the learned
denoiser given the white-noise map of that sigma and blind (its noise-map
network's reading). PSNR against the photo as the JPEG decodes.

  /tmp/bm3d-venv/bin/python bench/quality/learned_texture.py OPENCV_DOC_ROOT build/cli/edgewise \\
      build/bench/learned_denoise_file 10,20,30 docs/learned_texture.csv

With a sixth argument, an earlier run's CSV, BM3D and nlbayes are not run
again: their PSNRs are read from it (the noise is the same by its seeds),
and only the learned denoiser is measured (new weights, the same photos;
its difference to BM3D is taken from BM3D's PSNR as that CSV rounds it):

  python3 bench/quality/learned_texture.py OPENCV_DOC_ROOT build/cli/edgewise \\
      build/bench/learned_denoise_file 10,20,30 /tmp/learned_texture.csv docs/learned_texture.csv

OPENCV_DOC_ROOT holds usr/share/doc/opencv-doc/examples (apt-get download
opencv-doc && dpkg-deb -x; training/cache/root/opencv-doc after
training/build_dataset.py). One CSV row per photo, noise and method.
"""
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nlbayes_texture import PHOTOS, psnr, white_noisy  # noqa: E402


def noisy_versions(clean, sigma):
    """(noise name, noisy uint8, deviation given to the methods told the noise)"""
    yield f"white {sigma}", white_noisy(clean, sigma), float(sigma)
    rng = np.random.default_rng(2000 + sigma)
    x = clean.astype(np.float64)
    std = np.sqrt(sigma / 10.0 * x + (sigma / 2.0) ** 2)
    pg = np.clip(np.round(x + rng.normal(0, 1, clean.shape) * std), 0, 255).astype(np.uint8)
    rms = float(np.sqrt(np.mean((pg.astype(np.float64) - x) ** 2)))
    yield f"poisson-gaussian {sigma}", pg, rms


def earlier_scores(path):
    """{(image, noise, method): (psnr, minus_bm3d)} from an earlier run's CSV (its per-case
    rows; the difference as that run computed it, before rounding)."""
    with open(path, newline="") as f:
        return {(r["image"], r["noise"], r["method"]): (float(r["psnr"]), r["minus_bm3d"])
                for r in csv.DictReader(f) if r["image"] != "mean"}


def main(root, cli, learned, sigmas, out_csv, reuse=None):
    earlier = earlier_scores(reuse) if reuse else None
    if earlier is None:
        import bm3d  # noqa: F401  (only needed when BM3D runs)
    examples = os.path.join(root, "usr/share/doc/opencv-doc/examples")
    methods = ["bm3d", "nlbayes", "nlbayes blind", "learned", "learned blind"]
    print(f"{'photo':10s} {'noise':22s} {'noisy':>6s} " + " ".join(f"{m:>13s}" for m in methods), flush=True)
    with open(out_csv, "w", newline="") as f:  # a row per case as it is measured
        csv.writer(f).writerow(["image", "noise", "sigma_given", "method", "noisy", "psnr", "minus_bm3d"])
    with tempfile.TemporaryDirectory() as tmp:
        noisy_path, out = os.path.join(tmp, "noisy.png"), os.path.join(tmp, "out.png")
        for name, path in PHOTOS.items():
            clean = np.asarray(Image.open(os.path.join(examples, path)).convert("RGB"))
            for sigma in sigmas:
                for noise, noisy, given in noisy_versions(clean, sigma):
                    Image.fromarray(noisy).save(noisy_path)
                    scores, minus = {}, {}
                    if earlier is not None:
                        for method in ("bm3d", "nlbayes", "nlbayes blind"):
                            scores[method], minus[method] = earlier[(name, noise, method)]
                    else:
                        import bm3d
                        peer = bm3d.bm3d_rgb(noisy.astype(np.float64) / 255, given / 255)
                        scores["bm3d"] = psnr(np.clip(np.round(peer * 255), 0, 255), clean)
                    for method, args in (("nlbayes", ["--sigma-n", f"{given:.3f}", "--scales", "1"]),
                                         ("nlbayes blind", [])):
                        if earlier is not None:
                            continue
                        subprocess.run([cli, "--filter", "nlbayes", *args, noisy_path, "-o", out, "--overwrite"],
                                       check=True, capture_output=True)
                        scores[method] = psnr(np.asarray(Image.open(out).convert("RGB")), clean)
                    for method, args in (("learned", ["--sigma", f"{given:.3f}"]), ("learned blind", [])):
                        subprocess.run([learned, *args, noisy_path, out], check=True, capture_output=True)
                        scores[method] = psnr(np.asarray(Image.open(out).convert("RGB")), clean)
                    noisy_psnr = psnr(noisy, clean)
                    print(f"{name:10s} {noise:22s} {noisy_psnr:6.2f} " +
                          " ".join(f"{scores[m]:13.2f}" for m in methods), flush=True)
                    with open(out_csv, "a", newline="") as f:
                        csv.writer(f).writerows(
                            [name, noise, f"{given:.2f}", m, f"{noisy_psnr:.2f}", f"{scores[m]:.2f}",
                             minus.get(m, f"{scores[m] - scores['bm3d']:.2f}")] for m in methods)
    append_means(out_csv)


def append_means(out_csv):
    """Rows "mean" (image) per noise kind ("white", "poisson-gaussian") and
    level and method: the means docs/quality.md prints, kept in the CSV."""
    with open(out_csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["image"] != "mean"]
    groups = {}
    for r in rows:
        groups.setdefault((r["noise"], r["method"]), []).append(r)
    with open(out_csv, "a", newline="") as f:
        w = csv.writer(f)
        for (noise, method), members in sorted(groups.items()):
            mean = lambda key: sum(float(m[key]) for m in members) / len(members)  # noqa: E731
            w.writerow(["mean", noise, "", method, f"{mean('noisy'):.2f}", f"{mean('psnr'):.2f}",
                        f"{mean('minus_bm3d'):.2f}"])


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4].split(",")], sys.argv[5],
         sys.argv[6] if len(sys.argv) == 7 else None)
