"""Training batches: clean windows cut from the photo crops, each given one
kind of synthetic noise (noise_synth.py) at a random level, with the noise
model's per-cell targets (noise_net.targets).

The mixture (shares of a batch) covers what the quality set measures and
what photographers bring: clean photos (they must read near 0), white and
Poisson-Gaussian noise from invisible to phone-at-night, blurred noise,
YCbCr colour blotches, camera pipelines at shot noise 1e-4 to 2e-2, JPEG
after any of them, and grey photos.
"""
import math

import torch
import torch.nn.functional as F

import noise_synth as ns
from noise_net import TILE, targets

SYNTH = 96  # noise is made on 96x96 windows (JPEG's 16 px grid), the tile cut from inside
KINDS = [  # name, share
    ("clean", 0.10),
    ("white", 0.15),
    ("poisson", 0.12),
    ("correlated", 0.12),
    ("ycc", 0.12),
    ("camera", 0.30),
    ("grey", 0.09),
]


def clean_windows(crops, n, gen, synth=SYNTH, weights=None):
    """n windows of synth x synth code values from crops (M x 3 x S x S uint8 on the device):
    crops drawn uniformly or, given weights (M, on the device), in proportion to them; random
    position, flips, a quarter turn, a 2x box reduction for a third of them (denser
    texture), and a random tone change (gamma 0.6-1.6, gain 0.5-1.05: dark photos too)."""
    device = crops.device
    m, _, size, _ = crops.shape
    if 2 * synth > size:
        raise ValueError(f"windows of {synth} px need crops of at least {2 * synth} px (2x reductions)")
    if weights is None:
        idx = torch.randint(0, m, (n,), device=device, generator=gen)
    else:
        idx = torch.multinomial(weights, n, replacement=True, generator=gen)
    reduce = torch.rand(n, device=device, generator=gen) < 0.33
    out = torch.empty((n, 3, synth, synth), device=device)
    for factor in (1, 2):
        sel = (reduce if factor == 2 else ~reduce).nonzero().flatten()
        if sel.numel() == 0:
            continue
        span = synth * factor
        x0 = torch.randint(0, size - span + 1, (sel.numel(),), device=device, generator=gen)
        y0 = torch.randint(0, size - span + 1, (sel.numel(),), device=device, generator=gen)
        ar = torch.arange(span, device=device)
        rows = (y0[:, None] + ar[None, :])  # k x span
        cols = (x0[:, None] + ar[None, :])
        win = crops[idx[sel][:, None, None, None], torch.arange(3, device=device)[None, :, None, None],
                    rows[:, None, :, None], cols[:, None, None, :]].float()
        if factor == 2:
            win = F.avg_pool2d(win, 2)
        out[sel] = win
    flip = torch.rand(n, device=device, generator=gen) < 0.5
    out[flip] = out[flip].flip(-1)
    turn = torch.rand(n, device=device, generator=gen) < 0.5
    out[turn] = out[turn].transpose(-1, -2)
    gamma = torch.exp(torch.empty(n, device=device).uniform_(math.log(0.6), math.log(1.6), generator=gen))
    gain = torch.empty(n, device=device).uniform_(0.5, 1.05, generator=gen)
    keep = torch.rand(n, device=device, generator=gen) < 0.4  # untouched tones too
    gamma[keep], gain[keep] = 1.0, 1.0
    out = 255 * gain[:, None, None, None] * (out / 255).clamp(0, 1) ** gamma[:, None, None, None]
    return ns.quantise(out)


def _shares(n, gen, device):
    probs = torch.tensor([s for _, s in KINDS], device=device)
    draws = torch.multinomial(probs, n, replacement=True, generator=gen)
    return {name: (draws == k).nonzero().flatten() for k, (name, _) in enumerate(KINDS)}


def noisy_windows(crops, n, gen, synth=SYNTH, weights=None):
    """-> (reference, noisy, groups, white_sigma, jpeg): n windows of synth x synth code values,
    the reference as a filter should give it back (for camera pipelines the noiseless
    development, for greys the grey), one kind of noise each (groups: kind -> indices), the
    deviations of the white-noise windows (N x 3, 0 elsewhere) and which windows went through
    JPEG afterwards (N booleans). The learned denoiser's batches (denoise_batch.py) are made
    here too."""
    device = crops.device
    clean = clean_windows(crops, n, gen, synth, weights)
    white_sigma = torch.zeros((n, 3), device=device)
    reference = clean.clone()
    noisy = clean.clone()
    groups = _shares(n, gen, device)
    u = lambda k, a, b: torch.empty(k, device=device).uniform_(a, b, generator=gen)
    for name, sel in groups.items():
        k = sel.numel()
        if k == 0 or name == "clean":
            continue
        c = clean[sel]
        if name == "white":
            sigma = ns.log_uniform(k, 0.4, 50, device, gen)[:, None].repeat(1, 3)
            own = torch.rand(k, device=device, generator=gen) < 0.25  # a deviation per channel
            sigma[own] *= torch.exp(u(int(own.sum()) * 3, -0.5, 0.5)).view(-1, 3)
            noisy[sel] = ns.white(c, sigma, gen)
            white_sigma[sel] = sigma
        elif name == "poisson":
            at128 = ns.log_uniform(k, 0.7, 40, device, gen)
            floor = (0.3 * at128) ** 2 * torch.exp(u(k, -1.5, 1.5))
            gain = ((at128 ** 2 - floor) / 128).clamp_min(0)
            noisy[sel] = ns.poisson_gaussian(c, gain, floor, gen)
        elif name == "correlated":
            sigma = ns.log_uniform(k, 1.0, 35, device, gen)
            blur = float(u(1, 0.4, 2.5))
            noisy[sel] = ns.correlated(c, sigma, blur, gen)
        elif name == "ycc":
            sigma_y = ns.log_uniform(k, 0.7, 16, device, gen)
            ratio = u(k, 1.0, 3.0)
            blur = float(u(1, 0.0, 3.0)) if float(u(1, 0, 1)) < 0.7 else 0.0
            noisy[sel] = ns.ycc_noise(c, sigma_y, ratio, blur, gen)
        elif name == "camera":
            shot = ns.log_uniform(k, 1e-4, 2e-2, device, gen)
            kind = "malvar" if float(u(1, 0, 1)) < 0.5 else "bilinear"
            dev_clean, dev_noisy = ns.camera(c, shot, gen, kind)
            reference[sel], noisy[sel] = dev_clean, dev_noisy
        elif name == "grey":
            luma = ns.quantise(0.299 * c[:, 0] + 0.587 * c[:, 1] + 0.114 * c[:, 2])[:, None].repeat(1, 3, 1, 1)
            reference[sel] = luma
            # White or Poisson-Gaussian, half of them blurred (film grain, scans,
            # resized greys), some clean: the same noise in R, G and B, which in
            # colour training only texture has.
            at128 = ns.log_uniform(k, 0.4, 40, device, gen)
            floor = (at128 ** 2) * torch.where(torch.rand(k, device=device, generator=gen) < 0.5, 1.0, 0.09)
            gain = ((at128 ** 2 - floor) / 128).clamp_min(0)
            variance = gain[:, None, None, None] * luma[:, :1] + floor[:, None, None, None]
            field = ns.unit_field(luma[:, :1].shape, float(u(1, 0.4, 2.5)), gen, device)
            plain = torch.randn(luma[:, :1].shape, device=device, generator=gen)
            blurred = torch.rand(k, device=device, generator=gen) < 0.5
            field = torch.where(blurred[:, None, None, None], field, plain)
            field[torch.rand(k, device=device, generator=gen) < 0.15] = 0  # clean greys
            one = luma[:, :1] + variance.sqrt() * field
            noisy[sel] = ns.quantise(one).repeat(1, 3, 1, 1)
    # JPEG after the noise: half the camera pipelines, a fifth of the rest (never the clean ones).
    p_jpeg = torch.full((n,), 0.2, device=device)
    p_jpeg[groups["camera"]] = 0.5
    p_jpeg[groups["clean"]] = 0.0
    p_jpeg[groups["grey"]] = 0.0
    sel = (torch.rand(n, device=device, generator=gen) < p_jpeg).nonzero().flatten()
    if sel.numel():
        quality = [int(q) for q in torch.randint(60, 99, (sel.numel(),), device=device, generator=gen)]
        noisy[sel] = ns.jpeg(noisy[sel], quality)
    jpeg = torch.zeros(n, dtype=torch.bool, device=device)
    jpeg[sel] = True
    return reference, noisy, groups, white_sigma, jpeg


def make_batch(crops, n, gen):
    """-> (noisy tiles N x 3 x TILE x TILE in 0..1, targets N x 18 x TILE/8 x TILE/8, kinds list)."""
    reference, noisy, groups, _, _ = noisy_windows(crops, n, gen)
    device = crops.device
    # The tile: inside the window, off JPEG's grid by a random phase.
    o = int(torch.randint(8, SYNTH - TILE - 8 + 1, (1,), generator=gen, device=device))
    p = int(torch.randint(8, SYNTH - TILE - 8 + 1, (1,), generator=gen, device=device))
    noisy_t = noisy[:, :, o:o + TILE, p:p + TILE]
    ref_t = reference[:, :, o:o + TILE, p:p + TILE]
    return noisy_t / 255, targets(noisy_t - ref_t), groups
