#!/usr/bin/python3
"""Regenerates tests/data/*.png from Debian 12's python3-skimage sample photos.

Run once by hand (needs python3-skimage, python3-pil, python3-numpy); the
outputs are committed and tests/data/PROVENANCE.md records what this does.
The tests themselves make their 16-bit, alpha, TIFF and JPEG variants from
these files at run time, so only 8-bit PNGs live in the repository.
"""
import pathlib

import numpy as np
from PIL import Image

SKIMAGE_DATA = pathlib.Path("/usr/lib/python3/dist-packages/skimage/data")
OUT = pathlib.Path(__file__).resolve().parent.parent / "data"
NOISE_SEED = 2026
NOISE_SIGMA = 15.0  # 8-bit code values: visible grain the filter's defaults remove
NOISY_SIZE = 352    # keeps the noisy PNG (noise does not compress) near 300 KB


def resized(name, mode, size):
    return Image.open(SKIMAGE_DATA / name).convert(mode).resize((size, size), Image.LANCZOS)


def main():
    resized("astronaut.png", "RGB", 256).save(OUT / "astronaut.png", optimize=True)
    resized("camera.png", "L", 256).save(OUT / "camera.png", optimize=True)
    clean = np.asarray(resized("astronaut.png", "RGB", NOISY_SIZE)).astype(np.float64)
    noise = np.random.default_rng(NOISE_SEED).normal(0.0, NOISE_SIGMA, clean.shape)
    noisy = np.clip(np.rint(clean + noise), 0, 255).astype(np.uint8)
    Image.fromarray(noisy).save(OUT / "astronaut_noisy.png", optimize=True)


if __name__ == "__main__":
    main()
