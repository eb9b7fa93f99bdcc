#!/usr/bin/env python3
"""A before/after crop strip from quality's saved images (EDGEWISE_QUALITY_SAVE).

Usage: crops.py OUT.png X Y SIZE SCALE CLEAN.png LABEL=IMAGE.png...
Each IMAGE is cropped to SIZE x SIZE at (X, Y), enlarged SCALE times
(nearest neighbour, so the noise's grain stays visible) and put side by
side under its LABEL, after the clean photo's crop.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from skimage import io  # noqa: E402


def main(out, x, y, size, scale, clean, panels):
    images = [("clean", clean)] + [p.split("=", 1) for p in panels]
    fig, axes = plt.subplots(1, len(images), figsize=(2.6 * len(images), 2.9))
    for axis, (label, path) in zip(axes, images):
        crop = io.imread(path)[y:y + size, x:x + size]
        crop = crop.repeat(scale, axis=0).repeat(scale, axis=1)
        axis.imshow(crop, interpolation="nearest")
        axis.set_title(label, fontsize=8)
        axis.axis("off")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6],
         sys.argv[7:])
