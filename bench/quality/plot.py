#!/usr/bin/env python3
"""Chart of noise sigma against best PSNR per method, from quality's CSV.

Averages over the colour images (on grey images every Edgewise mode is the
same filter, so only colour images compare all methods).
Usage: plot.py quality.csv docs/quality_psnr.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path, png_path):
    rows = list(csv.DictReader(open(csv_path)))
    methods_by_image = defaultdict(set)
    for row in rows:
        methods_by_image[row["image"]].add(row["method"])
    widest = max(len(m) for m in methods_by_image.values())
    colour_images = {image for image, methods in methods_by_image.items() if len(methods) == widest}
    psnr = defaultdict(lambda: defaultdict(list))
    noisy = defaultdict(list)
    for row in rows:
        if row["image"] not in colour_images or float(row["psnr"]) < 0:
            continue
        psnr[row["method"]][float(row["noise_sigma"])].append(float(row["psnr"]))
    for row in rows:
        if row["image"] in colour_images and row["method"] == rows[0]["method"]:
            noisy[float(row["noise_sigma"])].append(float(row["noisy_psnr"]))
    plt.figure(figsize=(7, 4.5))
    sigmas = sorted(noisy)
    plt.plot(sigmas, [sum(noisy[s]) / len(noisy[s]) for s in sigmas], "k:", label="noisy input")
    for method, by_sigma in sorted(psnr.items()):
        xs = sorted(by_sigma)
        plt.plot(xs, [sum(by_sigma[s]) / len(by_sigma[s]) for s in xs], marker="o", label=method)
    plt.xlabel("noise sigma (8-bit code values)")
    plt.ylabel("best PSNR on the grid (dB)")
    plt.title("Denoising quality, mean over " + ", ".join(sorted(colour_images)))
    plt.grid(alpha=0.3)
    plt.legend()
    plt.tight_layout()
    plt.savefig(png_path, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
