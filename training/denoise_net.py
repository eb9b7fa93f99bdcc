"""The learned denoiser's architecture (issue 35): one program, run here in
training and written into the weight file, whose header the C++ (core/
denoise_net.h) checks and executes step by step, as the reference forward
pass in tests/ does.

The network sees the noisy R'G'B' image (0..1, minus 0.5) and the noise map
of the noise-map network (noise_net.py, the shipped models/noise_net-v1
weights, run on the same noisy image): per 8x8 cell the 18 log-variances
(R, G, B, Y, C1, C2 over 1, 2 and 4 px boxes), normalised as
(log-variance - MAP_OFFSET) * MAP_SCALE and spread bilinearly over the
half-resolution grid. Conditioning on the map (FFDNet, Zhang, Zuo & Zhang
2018; CBDNet, Guo et al. 2019) lets one network serve every level, signal-
dependent and correlated noise; Strength scales the map's deviations (adds
2 log s to every log-variance), and a noise level given by hand becomes the
map white noise of that deviation would have (white_map).

The program is a U-Net over three scales after a 2x2 pixel unshuffle
(U-Net: Ronneberger et al. 2015; DRUNet, Zhang et al. 2021, is its large
cousin): 64, 128 and 256 channels at 1/2, 1/4 and 1/8 resolution, downsampling
by unshuffle + 1x1 convolution (a 2x2 stride-2 convolution), upsampling by
1x1 convolution + shuffle, skips added, the output a residual added to the
input. Its steps:

  unshuffle F        space to channels: C x H x W -> 4C x H/2 x W/2, PyTorch's order
  map N              append the noise map's N channels (given at this resolution)
  conv I O K relu|none   a K x K convolution, zero padding K // 2, bias
  save               push the current tensor
  add                pop the last saved tensor and add it
  shuffle F          channels to space, the inverse of unshuffle
  residual           add the network's input image (0..1) to the result

Why this size (multiply-adds per pixel: macs_per_pixel(), about 106 k): a
receptive field of over 100 px for coarse colour noise at about a third of
what the CPU budget of issue 35 allows (4 MP in 20 s on 2 cores at the noise
network's measured 55 GMAC/s a core), leaving room for a wider network if
training shows it pays.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import noise_net

MODEL = "denoiser"
VERSION = 1
TILE = 128  # training tiles; the C++ runs any multiple of ALIGN
MAP_CHANNELS = len(noise_net.OUTPUT_NAMES)
MAP_OFFSET = 3.0  # log-variance of a deviation of 4.5 code values
MAP_SCALE = 1.0 / 3.0


def _program(widths=(64, 128, 256), depth=(2, 2, 3)):
    w0, w1, w2 = widths
    p = [("unshuffle", 2), ("map", MAP_CHANNELS), ("conv", 12 + MAP_CHANNELS, w0, 3, True)]
    p += [("conv", w0, w0, 3, True)] * (depth[0] - 1)
    p += [("save",), ("unshuffle", 2), ("conv", 4 * w0, w1, 1, True)]
    p += [("conv", w1, w1, 3, True)] * depth[1]
    p += [("save",), ("unshuffle", 2), ("conv", 4 * w1, w2, 1, True)]
    p += [("conv", w2, w2, 3, True)] * depth[2]
    p += [("conv", w2, 4 * w1, 1, False), ("shuffle", 2), ("add",)]
    p += [("conv", w1, w1, 3, True)] * depth[1]
    p += [("conv", w1, 4 * w0, 1, False), ("shuffle", 2), ("add",)]
    p += [("conv", w0, w0, 3, True)] * depth[0]
    p += [("conv", w0, 12, 3, False), ("shuffle", 2), ("residual",)]
    return p


PROGRAM = _program()
# A tile's side must be a multiple of this (three unshuffles).
ALIGN = math.prod(step[1] for step in PROGRAM if step[0] == "unshuffle")


class DenoiseNet(nn.Module):
    def __init__(self, program=PROGRAM):
        super().__init__()
        self.program = program
        self.convs = nn.ModuleList(nn.Conv2d(s[1], s[2], s[3], padding=s[3] // 2)
                                   for s in program if s[0] == "conv")
        # The residual starts near zero: the untrained network returns its input.
        nn.init.zeros_(self.convs[-1].weight)
        nn.init.zeros_(self.convs[-1].bias)

    def forward(self, rgb01, noise_map):
        """rgb01: N x 3 x H x W in 0..1; noise_map: N x 18 x H/2 x W/2, normalised
        (map_input) -> N x 3 x H x W, the estimate of the clean image (not clipped)."""
        x, saved, k = rgb01 - 0.5, [], 0
        for step in self.program:
            op = step[0]
            if op == "unshuffle":
                x = F.pixel_unshuffle(x, step[1])
            elif op == "shuffle":
                x = F.pixel_shuffle(x, step[1])
            elif op == "map":
                x = torch.cat([x, noise_map.to(x.dtype)], dim=1)
            elif op == "conv":
                x = self.convs[k](x)
                k += 1
                if step[4]:
                    x = F.relu(x)
            elif op == "save":
                saved.append(x)
            elif op == "add":
                x = x + saved.pop()
            elif op == "residual":
                x = x + rgb01
        return x


def macs_per_pixel(program=PROGRAM):
    total, area = 0.0, 1.0
    for step in program:
        if step[0] == "unshuffle":
            area /= step[1] ** 2
        elif step[0] == "shuffle":
            area *= step[1] ** 2
        elif step[0] == "conv":
            total += step[1] * step[2] * step[3] ** 2 * area
    return total


def parameters(program=PROGRAM):
    return sum(s[1] * s[2] * s[3] ** 2 + s[2] for s in program if s[0] == "conv")


def program_lines(program=PROGRAM):
    """The weight file's "layer ..." lines."""
    out = []
    for step in program:
        if step[0] == "conv":
            out.append(f"layer conv {step[1]} {step[2]} {step[3]} 1 {'relu' if step[4] else 'none'}")
        else:
            out.append("layer " + " ".join(str(v) for v in step))
    return out


def map_input(log_variance, size):
    """Cells' log-variances N x 18 x h x w (one per 8x8 pixels) -> the network's map
    input at half resolution, size = (H/2, W/2): normalised, then bilinear with the
    cells' centres at their middles and the edges held (the C++ does the same)."""
    normalised = (log_variance - MAP_OFFSET) * MAP_SCALE
    return F.interpolate(normalised, size=size, mode="bilinear", align_corners=False)


def white_log_variance(sigma, device):
    """The 18 log-variances white noise of deviation sigma (N x 3, code values, one per
    R, G, B) has: box averages of 2x2 and 4x4 divide the variance by 4 and 16; Y, C1
    and C2 (an orthonormal transform) take the mean of R, G and B's variances, weighted
    by the squares of their rows. -> N x 18."""
    var = (sigma.to(device) ** 2).clamp_min(noise_net.VARIANCE_FLOOR)
    opp = noise_net.OPPONENT.to(device) ** 2
    planes = torch.cat([var, var @ opp.T], dim=1)  # N x 6
    out = []
    for p in range(6):
        for s in range(noise_net.SCALES):
            out.append(planes[:, p] / 4 ** s)
    return torch.log(torch.stack(out, dim=1))


class NoiseMap(nn.Module):
    """The frozen noise-map network, loaded from the shipped weight file, read on
    64 x 64 tiles of the image aligned to its top-left corner (the image's sides
    are multiples of 64 here; the C++ pads an image by mirroring to make them so)."""

    def __init__(self, path):
        super().__init__()
        import ewnn
        lines, payload, self.sha256 = ewnn.read(path)
        self.net = noise_net.NoiseNet()
        self.net.load_state_dict(ewnn.conv_state(lines, payload))
        self.net.requires_grad_(False)
        self.net.eval()

    @torch.no_grad()
    def forward(self, rgb01):
        n, c, h, w = rgb01.shape
        t = noise_net.TILE
        tiles = rgb01.unfold(2, t, t).unfold(3, t, t)  # n c H/t W/t t t
        gh, gw = tiles.shape[2], tiles.shape[3]
        tiles = tiles.permute(0, 2, 3, 1, 4, 5).reshape(-1, c, t, t)
        cells = self.net(tiles.float())  # (n gh gw) x 18 x t/8 x t/8
        q = t // noise_net.CELL
        cells = cells.view(n, gh, gw, MAP_CHANNELS, q, q).permute(0, 3, 1, 4, 2, 5)
        return cells.reshape(n, MAP_CHANNELS, gh * q, gw * q)
