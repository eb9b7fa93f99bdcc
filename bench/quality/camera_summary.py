#!/usr/bin/env python3
"""The camera-noise tables of docs/quality.md from the tools' CSV files.

    camera_summary.py AUTO.md AUTO.csv[,MORE.csv...] [QUALITY.csv[,MORE.csv...]]

AUTO.md and AUTO.csv are auto_quality's output with
EDGEWISE_QUALITY_NOISE=camera (the markdown for the noisy PSNR of each
case, the CSV for every run); QUALITY.csv is quality's with the same noise
(the peers: OpenCV, G'MIC, BM3D given the true RMS per channel and given
the true spectrum). A later CSV in a comma-separated list replaces the
earlier ones' rows of the same case and filter (a rerun of some filters).
Prints markdown: the filters at auto beside the peers per case, then the
issue's goals case by case.
"""
import csv
import sys
from collections import defaultdict


def read_csvs(paths, key):
    rows = {}
    for path in paths.split(","):
        fresh = defaultdict(list)
        for row in csv.DictReader(open(path)):
            fresh[key(row)].append(row)
        rows.update(fresh)
    return [row for group in rows.values() for row in group]


def noisy_psnr(markdown):
    """(image, noise) -> noisy PSNR from auto_quality's table."""
    noisy = {}
    for line in open(markdown):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[2].startswith("camera"):
            noisy[(cells[1], cells[2])] = float(cells[5])
    return noisy


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    noisy = noisy_psnr(argv[1])
    auto_rows = read_csvs(argv[2], lambda r: (r["image"], r["noise"], r["filter"]))
    auto, grid = {}, defaultdict(lambda: -1.0)
    for r in auto_rows:
        k = (r["image"], r["noise"], r["filter"])
        if r["kind"] == "auto":
            auto[k] = float(r["psnr"])
        else:
            grid[k] = max(grid[k], float(r["psnr"]))
    peers = {}
    if len(argv) == 4:
        for r in read_csvs(argv[3], lambda r: (r["image"], r["method"])):
            image, noise = r["image"].split(" (")
            peers[(image, noise.rstrip(")"), r["method"])] = float(r["psnr"])
    filters = sorted({k[2] for k in auto})
    cases = sorted({k[:2] for k in auto}, key=lambda c: (c[0], c[1]))

    shown = ["bilateral rgb", "nlm rgb", "pyramid rgb", "pyramid lab", "nlbayes"]
    peer_names = [("opencv fastNlMeans", "OpenCV fastNlMeans*"), ("gmic denoise", "G'MIC denoise*"),
                  ("bm3d", "BM3D, true σ"), ("bm3d psd", "BM3D, true spectrum")]
    have_peers = [p for p in peer_names if any(k[2] == p[0] for k in peers)]
    print("| image | level | noisy | " + " | ".join(f + " (auto)" for f in shown) + " | " +
          " | ".join(p[1] for p in have_peers) + " |")
    print("|---" * (3 + len(shown) + len(have_peers)) + "|")
    for image, noise in cases:
        cells = [f"{auto.get((image, noise, f), float('nan')):.2f}" for f in shown]
        peer_cells = []
        for method, _ in have_peers:
            value = peers.get((image, noise, method))
            peer_cells.append(f"{value:.2f}" if value is not None and value > 0 else "–")
        print(f"| {image} | {noise.replace('camera ', '')} | {noisy[(image, noise)]:.2f} | " + " | ".join(cells) +
              " | " + " | ".join(peer_cells) + " |")

    print()
    print("| image | level | best at auto | its grid-best | auto − grid-best | pyramid rgb auto − best bilateral "
          "grid-best | gain at auto / best grid gain | nlbayes − BM3D (σ) | nlbayes − BM3D (spectrum) |")
    print("|---|---|---|---|---|---|---|---|---|")
    counts = defaultdict(int)
    for image, noise in cases:
        autos = {f: auto[(image, noise, f)] for f in filters if (image, noise, f) in auto}
        best = max(autos, key=autos.get)
        own_grid = grid[(image, noise, best)]
        bilateral = max(grid[(image, noise, f)] for f in ("bilateral rgb", "bilateral per-channel", "bilateral lab"))
        pyramid = autos.get("pyramid rgb", float("nan")) - bilateral
        best_grid = max(grid[(image, noise, f)] for f in filters)
        gain = (autos[best] - noisy[(image, noise)]) / (best_grid - noisy[(image, noise)])
        nlb = autos.get("nlbayes")
        versus = []
        for method in ("bm3d", "bm3d psd"):
            value = peers.get((image, noise, method))
            versus.append(f"{nlb - value:+.2f}" if nlb is not None and value is not None and value > 0 else "–")
        strong = noise.split()[1] in ("2", "3")
        counts["cases"] += 1
        counts["within"] += autos[best] - own_grid >= -0.5
        counts["pyramid"] += pyramid >= 0
        counts["strong"] += strong
        counts["gain"] += strong and gain >= 0.8
        print(f"| {image} | {noise.replace('camera ', '')} | {autos[best]:.2f} ({best}) | {own_grid:.2f} | "
              f"{autos[best] - own_grid:+.2f} | {pyramid:+.2f} | {100 * gain:.0f} %{'' if strong else ' (weak)'} | "
              f"{versus[0]} | {versus[1]} |")
    print()
    print(f"Best filter at auto within 0.5 dB of its grid-best: {counts['within']} of {counts['cases']} cases; "
          f"pyramid at auto at or above the best single-scale bilateral grid-best: {counts['pyramid']} of "
          f"{counts['cases']}; at levels 2 and 3, at least 80 % of the best grid gain: {counts['gain']} of "
          f"{counts['strong']}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
