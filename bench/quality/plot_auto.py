#!/usr/bin/env python3
"""Chart of auto_quality's CSV: per filter, each case's PSNR at auto beside
the grid-best (the gap is what auto leaves on the table).

Usage: plot_auto.py docs/auto_quality.csv docs/auto_quality.png
       plot_auto.py docs/auto_quality_camera.csv docs/auto_quality_camera.png
"""
import collections
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(source, target):
    rows = list(csv.DictReader(open(source)))
    auto, best = {}, collections.defaultdict(float)
    for r in rows:
        case = (r["filter"], r["image"], r["noise"], float(r["sigma"]))
        if r["kind"] == "auto":
            auto[case] = float(r["psnr"])
        else:
            best[case] = max(best[case], float(r["psnr"]))
    filters = list(dict.fromkeys(case[0] for case in auto))
    fig, axes = plt.subplots(1, len(filters), figsize=(3.2 * len(filters), 3.6), sharey=True)
    for ax, name in zip(axes, filters):
        cases = sorted(c for c in auto if c[0] == name)
        gaps = [best[c] - auto[c] for c in cases]
        camera = any(c[2].startswith("camera") for c in cases)
        if camera:  # the camera pipeline: JPEG or not
            colours = ["tab:green" if c[2].endswith("JPEG") else "tab:purple" for c in cases]
        else:
            colours = ["tab:blue" if c[2] == "white" else "tab:orange" for c in cases]
        ax.bar(range(len(cases)), gaps, color=colours)
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(name, fontsize=9)
        ax.set_xticks([])
        ax.set_xlabel("cases (purple raw development, green JPEG)" if camera
                      else "cases (blue white, orange Poisson-Gaussian)", fontsize=7)
    axes[0].set_ylabel("grid-best − auto (dB PSNR)")
    fig.suptitle("What auto leaves to a grid search (dashed: the 0.5 dB target)", fontsize=10)
    fig.tight_layout()
    fig.savefig(target, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
