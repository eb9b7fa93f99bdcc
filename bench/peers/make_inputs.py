#!/usr/bin/python3
"""The peer benchmark's photo as binary PPM: clean, and with white noise.

    make_inputs.py OUTDIR [SIZE] [SIGMA] [SEED]

The clean photo is scikit-image's astronaut (512 x 512 RGB, public domain;
the photo tests/data/ is made from, tests/data/PROVENANCE.md) from Debian
12's python3-skimage, resized to SIZE x SIZE (default 2048) with Pillow's
Lanczos filter: no photo the project uses is 2048 x 2048, and the 4x
upscale is smoother than a camera's 4 MP, so every method scores higher on
it than on a native photo of that size (bench_nlbayes_cpu upscales the same
photo). The noisy copy adds white Gaussian noise of SIGMA code values
(default 20; NumPy default_rng(SEED).normal, default seed 27), rounded to
nearest and clipped to 0..255. Writes OUTDIR/clean.ppm and OUTDIR/noisy.ppm
(P6, maxval 255) and prints what it made, the PSNR of noisy against clean
among it. Run with Debian's Python (python3-numpy, python3-pil,
python3-skimage), as tests/cli/make_test_data.py is.
"""
import pathlib
import sys

import numpy as np
from PIL import Image

SKIMAGE_DATA = pathlib.Path("/usr/lib/python3/dist-packages/skimage/data")


def write_ppm(path, rgb):
    height, width, _ = rgb.shape
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        f.write(np.ascontiguousarray(rgb, dtype=np.uint8).tobytes())


def main(argv):
    if len(argv) not in range(2, 6):
        sys.stderr.write(__doc__)
        return 2
    out = pathlib.Path(argv[1])
    size = int(argv[2]) if len(argv) > 2 else 2048
    sigma = float(argv[3]) if len(argv) > 3 else 20.0
    seed = int(argv[4]) if len(argv) > 4 else 27
    source = SKIMAGE_DATA / "astronaut.png"
    clean = np.asarray(Image.open(source).convert("RGB").resize((size, size), Image.LANCZOS))
    noise = np.random.default_rng(seed).normal(0.0, sigma, clean.shape)
    noisy = np.clip(np.rint(clean.astype(np.float64) + noise), 0, 255).astype(np.uint8)
    out.mkdir(parents=True, exist_ok=True)
    write_ppm(out / "clean.ppm", clean)
    write_ppm(out / "noisy.ppm", noisy)
    mse = np.mean((clean.astype(np.float64) - noisy) ** 2)
    clipped = np.mean((clean.astype(np.float64) + noise < -0.5) | (clean.astype(np.float64) + noise > 255.5))
    print(f"clean.ppm: {source} ({Image.open(source).size[0]}x{Image.open(source).size[1]}) "
          f"resized to {size}x{size} (Pillow {Image.__version__} Lanczos)")
    print(f"noisy.ppm: white Gaussian noise sigma {sigma:g} code values, numpy {np.__version__} "
          f"default_rng({seed}).normal, rounded, clipped to 0..255 ({100 * clipped:.2f} % of samples clipped)")
    print(f"noisy against clean: RMS {np.sqrt(mse):.3f}, PSNR {10 * np.log10(255 ** 2 / mse):.3f} dB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
