"""The noise-map estimator's architecture and its targets: one description,
read by the training code and written into the weight file, whose header the
C++ loader (core/noise_net.cpp) checks and executes.

The network reads a tile of R'G'B' samples (0..1, minus 0.5) and writes, for
each cell of 8x8 pixels, the natural log of 18 variances in code values of
the 8-bit scale squared: for each plane of the noise model (R, G, B and the
opponent Y, C1, C2 of core/opponent_color.h) the variance of the noise
averaged over 1x1, 2x2 and 4x4 boxes (scales 0, 1, 2): the noise's level and
how it is spread over frequencies, which core/noise_spectrum.h fits as it
fits the statistical model's per-scale readings.

Why this shape (7.0 k multiply-adds per pixel): three stride-2 stages give
a receptive field of 61 px, enough to see that a fur or foliage pattern
repeats while noise does not, at a cost a 2-core CPU pays on a sample of
tiles (core/learned_noise.cpp); full resolution is kept only in the first
layer, where the finest noise is seen.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

MODEL = "noise-map"
VERSION = 1
TILE = 64
PLANES = ["R", "G", "B", "Y", "C1", "C2"]
SCALES = 3
OUTPUT_NAMES = [f"{p}{s}" for p in PLANES for s in range(SCALES)]
# in, out, kernel, stride, relu
LAYERS = [
    (3, 16, 3, 1, True),
    (16, 32, 3, 2, True),
    (32, 32, 3, 1, True),
    (32, 48, 3, 2, True),
    (48, 48, 3, 1, True),
    (48, 64, 3, 2, True),
    (64, 64, 3, 1, True),
    (64, len(OUTPUT_NAMES), 1, 1, False),
]
CELL = math.prod(layer[3] for layer in LAYERS)
# The variance floor in the loss (code values squared): a deviation of 0.1
# code value, far under anything a filter acts on, keeps log(0) out of the
# targets of clean photos.
VARIANCE_FLOOR = 0.01

OPPONENT = torch.tensor([
    [0.57735026918962576, 0.57735026918962576, 0.57735026918962576],
    [0.70710678118654752, 0.0, -0.70710678118654752],
    [0.40824829046386302, -0.81649658092772603, 0.40824829046386302],
])


class NoiseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(
            nn.Conv2d(i, o, k, stride=s, padding=k // 2) for (i, o, k, s, _) in LAYERS)
        # Start the readings near a deviation of 5 code values, not 1.
        nn.init.constant_(self.convs[-1].bias, 3.0)

    def forward(self, rgb01):
        """rgb01: N x 3 x H x W in 0..1 -> N x 18 x H/8 x W/8 log-variances."""
        x = rgb01 - 0.5
        for conv, (_, _, _, _, relu) in zip(self.convs, LAYERS):
            x = conv(x)
            if relu:
                x = F.relu(x)
        return x


def macs_per_pixel():
    total, area = 0, 1.0
    for (i, o, k, s, _) in LAYERS:
        area /= s * s
        total += i * o * k * k * area
    return total


def targets(residual):
    """residual: N x 3 x H x W noisy - clean, code values -> N x 18 x H/8 x W/8
    mean squares of the box-averaged noise per cell, in OUTPUT_NAMES order."""
    opp = torch.einsum("ij,njhw->nihw", OPPONENT.to(residual.device), residual)
    planes = torch.cat([residual, opp], dim=1)  # N x 6 x H x W
    out = []
    for p in range(planes.shape[1]):
        plane = planes[:, p:p + 1]
        for s in range(SCALES):
            box = F.avg_pool2d(plane, 2 ** s) if s else plane
            out.append(F.avg_pool2d(box * box, CELL // 2 ** s))
    return torch.cat(out, dim=1)


def nll(log_variance, mean_square):
    """The Gaussian negative log-likelihood of the cells' samples (up to
    constants and the count): minimised, in expectation, by the true
    variance whatever the cell's sampling noise."""
    return (log_variance + (mean_square + VARIANCE_FLOOR) * torch.exp(-log_variance)).mean()
