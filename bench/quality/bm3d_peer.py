#!/usr/bin/env python3
"""BM3D as a quality peer: denoises a PNG with the `bm3d` package (Makinen,
Azzari & Foi; `bm3d_rgb` in its opponent colour space for colour, `bm3d` for
grey, profile 'np', both steps) given the noise's standard deviation per
channel in 0-255 code values, and writes the result as an 8-bit PNG (or
16-bit when the input is).

    bm3d_peer.py IN.png OUT.png SIGMA_R SIGMA_G SIGMA_B

A grey input takes SIGMA_R (the three should agree). Run it with the
Python of a bench-only virtual environment:

    python3 -m venv /work/venv-bench
    /work/venv-bench/bin/pip install bm3d opencv-python-headless

bench/quality/quality.cpp calls it when EDGEWISE_BM3D_PYTHON names that
Python. Prints the seconds BM3D itself took on stdout.
"""
import sys
import time

import bm3d
import cv2
import numpy as np


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    source, target = argv[1], argv[2]
    sigmas = [float(value) for value in argv[3:6]]
    image = cv2.imread(source, cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim not in (2, 3):
        sys.stderr.write(f"bm3d_peer: cannot read {source}\n")
        return 1
    scale = 65535.0 if image.dtype == np.uint16 else 255.0
    unit = image.astype(np.float64) / scale
    start = time.perf_counter()
    if unit.ndim == 2 or unit.shape[2] == 1:
        result = bm3d.bm3d(unit.squeeze(), sigmas[0] / 255.0)
    else:
        rgb = unit[:, :, 2::-1]  # OpenCV reads BGR
        result = bm3d.bm3d_rgb(rgb, [s / 255.0 for s in sigmas])[:, :, ::-1]
    seconds = time.perf_counter() - start
    out = np.clip(np.rint(result * scale), 0, scale).astype(image.dtype)
    if not cv2.imwrite(target, out):
        sys.stderr.write(f"bm3d_peer: cannot write {target}\n")
        return 1
    print(f"{seconds:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
