#!/usr/bin/env python3
"""BM3D as a quality peer: denoises a PNG with the `bm3d` package (Makinen,
Azzari & Foi; `bm3d_rgb` in its opponent colour space for colour, `bm3d` for
grey, profile 'np', both steps) given the noise's standard deviation per
channel in 0-255 code values, and writes the result as an 8-bit PNG (or
16-bit when the input is).

    bm3d_peer.py IN.png OUT.png SIGMA_R SIGMA_G SIGMA_B [--psd CLEAN.png]

With --psd, BM3D is given the noise's true power spectrum instead of its
standard deviations: the noise IN - CLEAN taken into BM3D's own opponent
colour space (so that noise correlated between R, G and B is described as
it is, which its per-channel RGB spectra would not), its periodogram per
channel smoothed by a Gaussian of 2 frequency bins (the expected spectrum,
not one sample of it). The camera-noise benchmark's reference is that
CLEAN image, so this is BM3D told everything about the noise.

A grey input takes SIGMA_R (the three should agree). Run it with the
Python of a bench-only virtual environment:

    python3 -m venv /work/venv-bench
    /work/venv-bench/bin/pip install bm3d opencv-python-headless

bench/quality/quality.cpp calls it when EDGEWISE_BM3D_PYTHON names that
Python. Prints the seconds BM3D itself took on stdout.
"""
import sys
import time

import cv2
import numpy as np

# bm3d 4.0.3's PSD path calls np.trapz, which NumPy 2.4 removed under that
# name (np.trapezoid is the same function).
if not hasattr(np, "trapz"):
    np.trapz = np.trapezoid

import bm3d  # noqa: E402  (after the alias above)


def smoothed_periodogram(noise):
    """The noise's power spectrum in bm3d's scale (white noise of variance
    v: v x the pixel count at every frequency, as bm3d's own examples make
    it), smoothed."""
    h, w = noise.shape
    power = np.abs(np.fft.fft2(noise - noise.mean())) ** 2
    fy = np.fft.fftfreq(h)[:, None] * h
    fx = np.fft.fftfreq(w)[None, :] * w
    kernel = np.exp(-0.5 * (fx ** 2 + fy ** 2) / 2.0 ** 2)
    kernel /= kernel.sum()
    return np.real(np.fft.ifft2(np.fft.fft2(power) * np.fft.fft2(kernel)))


def with_true_psd(unit, clean):
    """BM3D given the true noise spectrum (grey, or per opponent channel)."""
    if unit.ndim == 2 or unit.shape[2] == 1:
        noise = (unit - clean).squeeze()
        return bm3d.bm3d(unit.squeeze(), smoothed_periodogram(noise))
    rgb, clean_rgb = unit[:, :, 2::-1], clean[:, :, 2::-1]
    z, imax, imin, _, a = bm3d.rgb_to(rgb, "opp")
    # rgb_to maps each channel c to (rgb @ a.T - imin) / (imax - imin):
    # the noise maps without the offset.
    noise = ((rgb - clean_rgb).reshape(-1, 3) @ a.T).reshape(rgb.shape) / (imax - imin).reshape(1, 1, 3)
    psd = np.stack([smoothed_periodogram(noise[:, :, c]) for c in range(3)], axis=2)
    y_hat = bm3d.bm3d(z, psd)
    y_hat, _, _, _, _ = bm3d.rgb_to(y_hat, "opp", True, imax, imin)
    return y_hat[:, :, ::-1]


def main(argv):
    if len(argv) not in (6, 8) or (len(argv) == 8 and argv[6] != "--psd"):
        sys.stderr.write(__doc__)
        return 2
    source, target = argv[1], argv[2]
    sigmas = [float(value) for value in argv[3:6]]
    clean_path = argv[7] if len(argv) == 8 else None
    image = cv2.imread(source, cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim not in (2, 3):
        sys.stderr.write(f"bm3d_peer: cannot read {source}\n")
        return 1
    scale = 65535.0 if image.dtype == np.uint16 else 255.0
    unit = image.astype(np.float64) / scale
    start = time.perf_counter()
    if clean_path is not None:
        clean = cv2.imread(clean_path, cv2.IMREAD_UNCHANGED).astype(np.float64) / scale
        result = with_true_psd(unit, clean)
    elif unit.ndim == 2 or unit.shape[2] == 1:
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
