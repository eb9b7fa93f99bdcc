#!/usr/bin/env python3
"""nlbayes against BM3D on textured photos outside the quality set and the
training set (issue 39): OpenCV's sample photos (Debian's opencv-doc, kept
out of training as evaluation images; none of them in docs/quality.md's
set), white noise of sigma 10/20/30 added to the 8-bit photo (seed 1000 +
sigma, rounded and clipped), BM3D (PyPI bm3d 4.0.3, bm3d_rgb given the true
sigma, its default profile) and Edgewise's nlbayes given the same sigma at
one scale, at its defaults and with any other options. PSNR against the
photo as the JPEG decodes (its own artefacts are the "clean" image: both
methods see the same).

  apt-get download opencv-doc && dpkg-deb -x opencv-doc_*.deb /tmp/opencv-doc
  python3 -m venv /tmp/bm3d-venv && /tmp/bm3d-venv/bin/pip install bm3d==4.0.3 pillow
  /tmp/bm3d-venv/bin/python bench/quality/nlbayes_texture.py /tmp/opencv-doc build/cli/edgewise \\
      10,20,30 docs/nlbayes_texture.csv default "--patch-size 4"

Each further argument is one nlbayes setting ("default": no option). The
CSV has one row per photo, sigma and setting; the table prints them.
"""
import csv
import os
import subprocess
import sys
import tempfile

import bm3d
import numpy as np
from PIL import Image

PHOTOS = {  # name: path under usr/share/doc/opencv-doc/examples, what makes it hard
    "baboon": "data/baboon.jpg",            # fur
    "fruits": "data/fruits.jpg",            # fine surface texture
    "building": "data/building.jpg",        # flat walls and sky, fine regular structure
    "plant": "alphamat/input_images/plant.jpg",  # foliage
    "home": "data/home.jpg",                # fabric, wood, small detail
    "butterfly": "data/butterfly.jpg",      # wing patterns, smooth background
}


def psnr(a, b):
    return 10 * np.log10(255.0 ** 2 / np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))


def white_noisy(clean, sigma):
    """The photo with white noise of sigma (seed 1000 + sigma), rounded and clipped to 8 bits."""
    rng = np.random.default_rng(1000 + sigma)
    return np.clip(np.round(clean + rng.normal(0, sigma, clean.shape)), 0, 255).astype(np.uint8)


def main(root, cli, sigmas, out_csv, settings):
    examples = os.path.join(root, "usr/share/doc/opencv-doc/examples")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in PHOTOS.items():
            clean = np.asarray(Image.open(os.path.join(examples, path)).convert("RGB"))
            for sigma in sigmas:
                noisy = white_noisy(clean, sigma)
                noisy_path = os.path.join(tmp, "noisy.png")
                Image.fromarray(noisy).save(noisy_path)
                peer = bm3d.bm3d_rgb(noisy.astype(np.float64) / 255, sigma / 255)
                reference = psnr(np.clip(np.round(peer * 255), 0, 255), clean)
                line = f"{name:10s} sigma {sigma:2d}  noisy {psnr(noisy, clean):6.2f}  bm3d {reference:6.2f} |"
                for setting in settings:
                    out = os.path.join(tmp, "out.png")
                    extra = [] if setting == "default" else setting.split()
                    subprocess.run([cli, "--filter", "nlbayes", "--sigma-n", str(sigma), "--scales", "1", *extra,
                                    noisy_path, "-o", out, "--overwrite"], check=True, capture_output=True)
                    value = psnr(np.asarray(Image.open(out)), clean)
                    rows.append([name, sigma, setting, f"{psnr(noisy, clean):.2f}", f"{reference:.2f}", f"{value:.2f}",
                                 f"{value - reference:.2f}"])
                    line += f"  {value:6.2f} ({value - reference:+.2f})"
                print(line, flush=True)
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "sigma", "setting", "noisy", "bm3d", "nlbayes", "nlbayes_minus_bm3d"])
        w.writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")], sys.argv[4], sys.argv[5:])
