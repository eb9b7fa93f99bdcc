#!/usr/bin/env python3
"""Writes the C++ tests' check of the denoiser's forward pass against
PyTorch (tests/test_denoise_net.cpp, DenoiseNetTorch): a small network of
denoise_net.py's program with random weights (seed 35), exported as the
exporter writes it, one random 24 x 16 tile and map, and PyTorch's output
in float64 (denoise_net_golden.*); and the shipped noise network's map of
a 128 x 64 image as training computes and spreads it (denoise_map_golden.bin).
So that the C++ and its double reference are held to PyTorch's
pixel_unshuffle, pixel_shuffle, concatenation and convolution conventions,
not only to each other.

  /work/venv-train/bin/python training/make_denoise_golden.py   # (any Python with PyTorch)
"""
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import denoise_net  # noqa: E402
import export_denoiser  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data"


def main():
    torch.manual_seed(35)
    program = denoise_net._program(widths=(8, 16, 24), depth=(1, 1, 1))
    model = denoise_net.DenoiseNet(program).double()
    torch.nn.init.normal_(model.convs[-1].weight, std=0.1)  # the zero start would hide the last layer
    torch.nn.init.normal_(model.convs[-1].bias, std=0.1)
    with torch.no_grad():
        for conv in model.convs:  # float32 values, so that the file holds the weights exactly
            conv.weight.copy_(conv.weight.float().double())
            conv.bias.copy_(conv.bias.float().double())
    width, height = 24, 16
    rgb = torch.rand(1, 3, height, width, dtype=torch.float64).float().double()
    nmap = torch.randn(1, denoise_net.MAP_CHANNELS, height // 2, width // 2, dtype=torch.float64).float().double()
    with torch.no_grad():
        out = model(rgb, nmap)
    data = export_denoiser.serialise(model, {"purpose": "tests/test_denoise_net.cpp"}, "0" * 64)
    (OUT / "denoise_net_golden.ewnn").write_bytes(data)
    # Interleaved as the C++ takes them: rgb H x W x 3, map H/2 x W/2 x 18 (float32); out H x W x 3 (float64).
    blob = (rgb[0].permute(1, 2, 0).numpy().astype("<f4").tobytes()
            + nmap[0].permute(1, 2, 0).numpy().astype("<f4").tobytes()
            + out[0].permute(1, 2, 0).numpy().astype("<f8").tobytes())
    (OUT / "denoise_net_golden.bin").write_bytes(blob)
    print(f"{len(data)} + {len(blob)} bytes; output range {float(out.min()):.3f}..{float(out.max()):.3f}")

    # The map as training makes it: the shipped noise network's cells on a 128 x 64 image
    # (random samples of a smooth field plus noise), spread by map_input with a strength of 2.
    noise_map = denoise_net.NoiseMap(pathlib.Path(__file__).resolve().parent.parent / "models" / "noise_net-v1.ewnn")
    yy, xx = torch.meshgrid(torch.arange(64.0), torch.arange(128.0), indexing="ij")
    field = 0.5 + 0.3 * torch.sin(xx / 9)[None] * torch.cos(yy / 7)[None] * torch.tensor([1.0, 0.7, -0.5])[:, None, None]
    image = (field + 0.04 * torch.randn(3, 64, 128)).clamp(0, 1)[None].float()
    cells = noise_map(image)
    shifted = cells + 2 * torch.log(torch.tensor(2.0))
    spread = denoise_net.map_input(shifted, (32, 64))
    blob = (image[0].permute(1, 2, 0).numpy().astype("<f4").tobytes()
            + cells[0].permute(1, 2, 0).numpy().astype("<f4").tobytes()
            + spread[0].permute(1, 2, 0).numpy().astype("<f4").tobytes())
    (OUT / "denoise_map_golden.bin").write_bytes(blob)
    print(f"map: {len(blob)} bytes")


if __name__ == "__main__":
    main()
