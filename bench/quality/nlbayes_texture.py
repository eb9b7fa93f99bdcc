#!/usr/bin/env python3
"""nlbayes against BM3D on textured photos outside the quality set and the
training set (issue 39): OpenCV's sample photos (Debian's opencv-doc, kept
out of training as evaluation images; none of them in docs/quality.md's
set), white noise of sigma 10/20/30 added to the 8-bit photo (seed 1000 +
sigma, rounded and clipped), BM3D (PyPI bm3d 4.0.3, bm3d_rgb given the true
sigma, its default profile) and Edgewise's nlbayes given the same sigma at
one scale, at its defaults and with any other options. PSNR against the
photo as the JPEG decodes (its own artefacts are the "clean" image: both
methods see the same), or against the clean image --clean makes.

  apt-get download opencv-doc && dpkg-deb -x opencv-doc_*.deb /tmp/opencv-doc
  python3 -m venv /tmp/bm3d-venv && /tmp/bm3d-venv/bin/pip install bm3d==4.0.3 pillow
  /tmp/bm3d-venv/bin/python bench/quality/nlbayes_texture.py /tmp/opencv-doc build/cli/edgewise \\
      10,20,30 docs/nlbayes_texture.csv default "--patch-size 4"

Each further argument is one nlbayes setting ("default": no option). The
CSV has one row per photo, sigma and setting; the table prints them.

Options before the positional arguments:
  --bm3d-from CSV   BM3D's PSNR from a CSV of learned_texture.py's
                    (docs/learned_texture.csv: the same photos, noise and
                    seeds, method "bm3d", noise "white SIGMA") instead of
                    running BM3D again (minutes per photo on 2 cores); the
                    bm3d package is then not needed.
  --photos a,b,...  only these photos (names in PHOTOS).
  --env NAME=VALUE  set in nlbayes's environment (repeatable; for
                    experiments with a build that reads it).
  --clean KIND      the clean image the noise is added to and PSNR is
                    measured against (clean_image): "decoded" (the default,
                    the photo as its JPEG decodes), "half" (its 2 x 2 means,
                    rounded: a photo with no trace of the JPEG's 8 x 8 blocks
                    or halved chroma), "jpeg75" (the decoded photo saved
                    again by Pillow at quality 75 with 4:2:0 chroma, as
                    building, home and butterfly are, and decoded),
                    "jpeg75-444" (the same without chroma subsampling).
                    BM3D's cache holds "decoded" only.
  --append          add the rows to the CSV (its header when it is new)
                    instead of replacing it.

docs/nlbayes_texture.csv (docs/quality.md, issue 39) is these four runs:

  T="/tmp/bm3d-venv/bin/python bench/quality/nlbayes_texture.py"; C=docs/nlbayes_texture.csv
  $T --bm3d-from docs/learned_texture.csv /tmp/opencv-doc build/cli/edgewise 10,20,30 $C \
      default "--patch-size 4" "--scales 2"
  $T --append --clean half /tmp/opencv-doc build/cli/edgewise 10,20,30 $C default "--patch-size 4"
  $T --append --clean jpeg75 --photos baboon,fruits,plant /tmp/opencv-doc build/cli/edgewise 10,20,30 $C \
      default "--patch-size 4"
  $T --append --clean jpeg75-444 --photos plant /tmp/opencv-doc build/cli/edgewise 10,20,30 $C \
      default "--patch-size 4"

A setting is passed after "--sigma-n SIGMA --scales 1", so "--scales 2"
overrides the one scale (the CLI takes an option's last value).
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

# name: path under usr/share/doc/opencv-doc/examples, what makes it hard,
# and how the file was compressed (its quantisation tables and sampling
# factors, read with Pillow): that decides BM3D's lead (docs/quality.md).
PHOTOS = {
    "baboon": "data/baboon.jpg",            # fur; JPEG quality 90, 4:2:2
    "fruits": "data/fruits.jpg",            # fine surface texture; quality 90, 4:2:2
    "building": "data/building.jpg",        # flat walls and sky, fine regular structure; quality 75, 4:2:0
    "plant": "alphamat/input_images/plant.jpg",  # foliage; quality 100, 4:4:4
    "home": "data/home.jpg",                # fabric, wood, small detail; quality 75, 4:2:0
    "butterfly": "data/butterfly.jpg",      # wing patterns, smooth background; quality 75, 4:2:0
}


def clean_image(photo, kind):
    """The clean image of `kind` (--clean) from the decoded photo (uint8 RGB)."""
    if kind == "decoded":
        return photo
    if kind == "half":
        h, w = photo.shape[0] // 2 * 2, photo.shape[1] // 2 * 2
        blocks = photo[:h, :w].astype(np.float64).reshape(h // 2, 2, w // 2, 2, 3).mean(axis=(1, 3))
        return np.clip(np.round(blocks), 0, 255).astype(np.uint8)
    if kind in ("jpeg75", "jpeg75-444"):
        buffer = io.BytesIO()
        Image.fromarray(photo).save(buffer, "JPEG", quality=75, subsampling=2 if kind == "jpeg75" else 0)
        return np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
    raise ValueError(f"no clean kind {kind!r}")


def psnr(a, b):
    return 10 * np.log10(255.0 ** 2 / np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))


def white_noisy(clean, sigma):
    """The photo with white noise of sigma (seed 1000 + sigma), rounded and clipped to 8 bits."""
    rng = np.random.default_rng(1000 + sigma)
    return np.clip(np.round(clean + rng.normal(0, sigma, clean.shape)), 0, 255).astype(np.uint8)


def cached_bm3d(path):
    """{(photo, sigma): PSNR} of BM3D on white noise from learned_texture.py's CSV."""
    cache = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["method"] == "bm3d" and row["noise"].startswith("white ") and row["image"] != "mean":
                cache[(row["image"], int(row["noise"].split()[1]))] = float(row["psnr"])
    return cache


def bm3d_psnr(cache, name, sigma, noisy, clean):
    if cache is not None:
        return cache[(name, sigma)]
    import bm3d  # only when BM3D runs
    peer = bm3d.bm3d_rgb(noisy.astype(np.float64) / 255, sigma / 255)
    return psnr(np.clip(np.round(peer * 255), 0, 255), clean)


def main(root, cli, sigmas, out_csv, settings, cache=None, photos=None, env=None, clean_kind="decoded",
         append=False):
    if cache is not None and clean_kind != "decoded":
        sys.exit("BM3D's cache holds the decoded photos only")
    examples = os.path.join(root, "usr/share/doc/opencv-doc/examples")
    rows = []
    run_env = dict(os.environ, **(env or {}))
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in PHOTOS.items():
            if photos and name not in photos:
                continue
            clean = clean_image(np.asarray(Image.open(os.path.join(examples, path)).convert("RGB")), clean_kind)
            for sigma in sigmas:
                noisy = white_noisy(clean, sigma)
                noisy_path = os.path.join(tmp, "noisy.png")
                Image.fromarray(noisy).save(noisy_path)
                reference = bm3d_psnr(cache, name, sigma, noisy, clean)
                line = f"{name:10s} sigma {sigma:2d}  noisy {psnr(noisy, clean):6.2f}  bm3d {reference:6.2f} |"
                for setting in settings:
                    out = os.path.join(tmp, "out.png")
                    extra = [] if setting == "default" else setting.split()
                    subprocess.run([cli, "--filter", "nlbayes", "--sigma-n", str(sigma), "--scales", "1", *extra,
                                    noisy_path, "-o", out, "--overwrite"], check=True, capture_output=True, env=run_env)
                    value = psnr(np.asarray(Image.open(out)), clean)
                    rows.append([name, clean_kind, sigma, setting, f"{psnr(noisy, clean):.2f}", f"{reference:.2f}", f"{value:.2f}",
                                 f"{value - reference:.2f}"])
                    line += f"  {value:6.2f} ({value - reference:+.2f})"
                print(line, flush=True)
    new = not append or not os.path.exists(out_csv)
    with open(out_csv, "w" if new else "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["image", "clean", "sigma", "setting", "noisy", "bm3d", "nlbayes", "nlbayes_minus_bm3d"])
        w.writerows(rows)


if __name__ == "__main__":
    args, cache, photos, env, clean_kind, append = sys.argv[1:], None, None, {}, "decoded", False
    while args and args[0] in ("--bm3d-from", "--photos", "--env", "--clean", "--append"):
        if args[0] == "--append":
            append, args = True, args[1:]
            continue
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--bm3d-from":
            cache = cached_bm3d(value)
        elif flag == "--clean":
            clean_kind = value
        elif flag == "--photos":
            photos = value.split(",")
        else:
            env.update([value.split("=", 1)])
    if len(args) < 5:
        sys.exit(__doc__)
    main(args[0], args[1], [int(s) for s in args[2].split(",")], args[3], args[4:], cache, photos, env, clean_kind,
         append)
