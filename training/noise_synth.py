"""Noise synthesised on clean photos, on the GPU, for training the noise-map
estimator (and later the learned denoiser).

Every generator takes clean R'G'B' code values (float tensors, N x 3 x H x W,
0..255, rounded as an 8-bit file holds them) and returns the noisy image as
an 8-bit file would hold it (rounded, clipped), so that the residual
noisy - clean is the noise a filter sees, clipping and rounding included.
The kinds are the ones bench/quality measures, drawn over wider ranges:

- white Gaussian noise, one deviation for all channels or one per channel;
- Poisson-Gaussian noise, variance gain * I + floor (noise_models.h);
- white noise blurred by a Gaussian (demosaicing, resizing);
- a camera's YCbCr noise: white luma, chroma of about twice its deviation,
  often blurred (colour blotches), through BT.601;
- a camera pipeline after Brooks, Mildenhall, Xue, Chen, Sharlet & Barron,
  "Unprocessing images for learned raw denoising" (CVPR 2019), as
  bench/quality/camera_pipeline.cpp develops it: inverse tone curve and
  sRGB curve, inverse colour matrix (a random mixture of three cameras'),
  inverse white balance, RGGB mosaic, heteroscedastic noise of variance
  shot * x + read (log read = 2.18 log shot + 1.20 + N(0, 0.26)), then
  white balance, bilinear or Malvar-He-Cutler demosaicing, colour matrix,
  sRGB curve, tone curve; the reference is the same development without
  noise;
- any of these followed by a baseline JPEG (4:2:0, IJG quality scaling of
  the Annex K tables, fancy upsampling approximated by a triangle filter).
"""
import math

import torch
import torch.nn.functional as F

# dcraw's adobe_coeff, XYZ (D65) to camera, as bench/quality uses them.
XYZ_TO_CAMERA = [
    [4716, 603, -830, -7798, 15474, 2480, -1496, 1937, 6651],
    [8139, -2171, -663, -8747, 16541, 2295, -1925, 2008, 8093],
    [5271, -712, -347, -6153, 13653, 2763, -1601, 2366, 7242],
]
SRGB_TO_XYZ = [[0.4124564, 0.3575761, 0.1804375],
               [0.2126729, 0.7151522, 0.0721750],
               [0.0193339, 0.1191920, 0.9503041]]

JPEG_LUMA = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
             14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
             18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
             49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
JPEG_CHROMA = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
               24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32


def log_uniform(n, low, high, device, generator):
    u = torch.rand(n, device=device, generator=generator)
    return torch.exp(math.log(low) + u * (math.log(high) - math.log(low)))


def quantise(x):
    return x.round().clamp(0, 255)


def white(clean, sigma, generator):
    """sigma: N x 3 (per channel) deviations in code values."""
    noise = torch.randn(clean.shape, device=clean.device, generator=generator)
    return quantise(clean + noise * sigma[:, :, None, None])


def poisson_gaussian(clean, gain, floor, generator):
    """Variance gain * I + floor at sample value I; gain, floor: N."""
    variance = gain[:, None, None, None] * clean + floor[:, None, None, None]
    noise = torch.randn(clean.shape, device=clean.device, generator=generator)
    return quantise(clean + noise * variance.clamp_min(0).sqrt())


def gaussian_taps(blur):
    radius = max(1, int(math.ceil(3 * blur)))
    x = torch.arange(-radius, radius + 1, dtype=torch.float32)
    taps = torch.exp(-x * x / (2 * blur * blur))
    return taps / taps.sum()


def blur_planes(x, blur):
    """Separable Gaussian blur of every plane of N x C x H x W, edges reflected."""
    if blur <= 0:
        return x
    taps = gaussian_taps(blur).to(x.device)
    r = taps.numel() // 2
    n, c, h, w = x.shape
    y = x.reshape(n * c, 1, h, w)
    y = F.conv2d(F.pad(y, (r, r, 0, 0), mode="reflect"), taps.view(1, 1, 1, -1))
    y = F.conv2d(F.pad(y, (0, 0, r, r), mode="reflect"), taps.view(1, 1, -1, 1))
    return y.reshape(n, c, h, w)


def unit_field(shape, blur, generator, device):
    """White noise blurred by `blur` px, scaled back to deviation 1."""
    field = torch.randn(shape, device=device, generator=generator)
    if blur > 0:
        field = blur_planes(field, blur)
        field = field / field.flatten(1).std(dim=1).clamp_min(1e-6)[:, None, None, None]
    return field


def correlated(clean, sigma, blur, generator):
    field = unit_field(clean.shape, blur, generator, clean.device)
    return quantise(clean + field * sigma[:, None, None, None])


# BT.601 YCbCr offsets to R'G'B' offsets.
YCC_TO_RGB = [[1.0, 0.0, 1.402], [1.0, -0.344136, -0.714136], [1.0, 1.772, 0.0]]


def ycc_noise(clean, sigma_y, chroma_ratio, chroma_blur, generator):
    n, _, h, w = clean.shape
    device = clean.device
    y = torch.randn((n, 1, h, w), device=device, generator=generator) * sigma_y[:, None, None, None]
    c = unit_field((n, 2, h, w), chroma_blur, generator, device)
    c = c * (sigma_y * chroma_ratio)[:, None, None, None]
    ycc = torch.cat([y, c], dim=1)
    m = torch.tensor(YCC_TO_RGB, device=device)
    offsets = torch.einsum("ij,njhw->nihw", m, ycc)
    return quantise(clean + offsets)


def srgb_decode(v):
    return torch.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055).clamp_min(0) ** 2.4)


def srgb_encode(v):
    return torch.where(v <= 0.0031308, 12.92 * v, 1.055 * v.clamp_min(1e-12) ** (1 / 2.4) - 0.055)


def smoothstep(v):
    return v * v * (3 - 2 * v)


def inverse_smoothstep(v):
    return 0.5 - torch.sin(torch.asin((1 - 2 * v).clamp(-1, 1)) / 3)


def random_srgb_to_camera(n, device, generator):
    """Brooks et al.'s rgb2cam: a random convex mixture of cameras' XYZ-to-camera, times sRGB-to-XYZ, rows normalised."""
    cams = torch.tensor(XYZ_TO_CAMERA, dtype=torch.float32, device=device).view(-1, 3, 3) / 10000
    weights = torch.rand((n, cams.shape[0]), device=device, generator=generator)
    weights = weights / weights.sum(dim=1, keepdim=True)
    xyz_to_cam = torch.einsum("nk,kij->nij", weights, cams)
    m = xyz_to_cam @ torch.tensor(SRGB_TO_XYZ, device=device)
    return m / m.sum(dim=2, keepdim=True)


def bayer_masks(h, w, device):
    y = torch.arange(h, device=device)[:, None] % 2
    x = torch.arange(w, device=device)[None, :] % 2
    red = ((y == 0) & (x == 0)).float()
    blue = ((y == 1) & (x == 1)).float()
    green = 1 - red - blue
    return torch.stack([red, green, blue])  # 3 x H x W


def _kernels_bilinear():
    axial = [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]]
    diagonal = [[0, 0, 0, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 0]]
    across = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    along = [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]]
    centre = [[0] * 5, [0] * 5, [0, 0, 1, 0, 0], [0] * 5, [0] * 5]
    scale = lambda k, s: [[v / s for v in row] for row in k]
    return {"centre": centre, "axial": scale(axial, 4), "diagonal": scale(diagonal, 4),
            "across": scale(across, 2), "along": scale(along, 2)}


def _kernels_malvar():
    # Malvar, He & Cutler (ICASSP 2004), gains in eighths.
    g_at_c = [[0, 0, -1, 0, 0], [0, 0, 2, 0, 0], [-1, 2, 4, 2, -1], [0, 0, 2, 0, 0], [0, 0, -1, 0, 0]]
    opposite = [[0, 0, -1.5, 0, 0], [0, 2, 0, 2, 0], [-1.5, 0, 6, 0, -1.5], [0, 2, 0, 2, 0], [0, 0, -1.5, 0, 0]]
    row = [[0, 0, 0.5, 0, 0], [0, -1, 0, -1, 0], [-1, 4, 5, 4, -1], [0, -1, 0, -1, 0], [0, 0, 0.5, 0, 0]]
    col = [[0, 0, -1, 0, 0], [0, -1, 4, -1, 0], [0.5, 0, 5, 0, 0.5], [0, -1, 4, -1, 0], [0, 0, -1, 0, 0]]
    centre = [[0] * 5, [0] * 5, [0, 0, 8, 0, 0], [0] * 5, [0] * 5]
    scale = lambda k: [[v / 8 for v in r] for r in k]
    return {"centre": scale(centre), "axial": scale(g_at_c), "diagonal": scale(opposite),
            "across": scale(row), "along": scale(col)}


def demosaic(mosaic, kind):
    """mosaic: N x 1 x H x W (RGGB, reflect-101 borders) -> N x 3 x H x W."""
    kernels = _kernels_malvar() if kind == "malvar" else _kernels_bilinear()
    names = ["centre", "axial", "diagonal", "across", "along"]
    weight = torch.tensor([kernels[k] for k in names], dtype=torch.float32, device=mosaic.device).unsqueeze(1)
    v = F.conv2d(F.pad(mosaic, (2, 2, 2, 2), mode="reflect"), weight)  # N x 5 x H x W
    centre, axial, diagonal, across, along = v.unbind(1)
    h, w = mosaic.shape[-2:]
    y = torch.arange(h, device=mosaic.device)[:, None] % 2
    x = torch.arange(w, device=mosaic.device)[None, :] % 2
    is_r = (y == 0) & (x == 0)
    is_b = (y == 1) & (x == 1)
    red_row_g = (y == 0) & (x == 1)
    blue_row_g = (y == 1) & (x == 0)
    r = torch.where(is_r, centre, torch.where(is_b, diagonal, torch.where(red_row_g, across, along)))
    g = torch.where(is_r | is_b, axial, centre)
    b = torch.where(is_b, centre, torch.where(is_r, diagonal, torch.where(red_row_g, along, across)))
    del blue_row_g
    return torch.stack([r, g, b], dim=1)


def camera(clean, shot, generator, demosaic_kind="bilinear"):
    """clean: N x 3 x H x W code values (H, W even). Returns (developed clean, developed noisy), both rounded."""
    n, _, h, w = clean.shape
    device = clean.device
    rgb2cam = random_srgb_to_camera(n, device, generator)
    cam2rgb = torch.linalg.inv(rgb2cam)
    red_gain = 1.9 + 0.5 * torch.rand(n, device=device, generator=generator)
    blue_gain = 1.5 + 0.4 * torch.rand(n, device=device, generator=generator)
    gains = torch.stack([red_gain, torch.ones_like(red_gain), blue_gain], dim=1)
    linear = srgb_decode(inverse_smoothstep(clean / 255))
    cam = torch.einsum("nij,njhw->nihw", rgb2cam, linear) / gains[:, :, None, None]
    masks = bayer_masks(h, w, device)
    mosaic = (cam * masks).sum(dim=1, keepdim=True)
    log_read = 2.18 * torch.log(shot) + 1.20 + 0.26 * torch.randn(n, device=device, generator=generator)
    read = torch.exp(log_read)
    variance = shot[:, None, None, None] * mosaic.clamp_min(0) + read[:, None, None, None]
    noisy_mosaic = mosaic + variance.sqrt() * torch.randn(mosaic.shape, device=device, generator=generator)
    gain_mosaic = (gains[:, :, None, None] * masks).sum(dim=1, keepdim=True)
    out = []
    for m in (mosaic, noisy_mosaic):
        planes = demosaic(m * gain_mosaic, demosaic_kind)
        lin = torch.einsum("nij,njhw->nihw", cam2rgb, planes)
        out.append(quantise(smoothstep(srgb_encode(lin.clamp(0, 1)).clamp(0, 1)) * 255))
    return out[0], out[1]


def _quant_table(base, quality):
    scale = 5000 / quality if quality < 50 else 200 - 2 * quality
    return [min(255, max(1, int((b * scale + 50) // 100))) for b in base]


_DCT = None


def _dct_matrix(device):
    global _DCT
    if _DCT is None or _DCT.device != device:
        k = torch.arange(8, dtype=torch.float32)
        m = torch.cos((2 * k[None, :] + 1) * k[:, None] * math.pi / 16) * math.sqrt(2 / 8)
        m[0] /= math.sqrt(2)
        _DCT = m.to(device)
    return _DCT


def _blockwise(plane, table):
    """Quantise the 8x8 orthonormal DCT of N x 1 x H x W (H, W multiples of 8) with `table` (N x 64)."""
    n, _, h, w = plane.shape
    d = _dct_matrix(plane.device)
    blocks = plane.view(n, h // 8, 8, w // 8, 8).permute(0, 1, 3, 2, 4)
    coef = d @ blocks @ d.T
    q = table.view(n, 1, 1, 8, 8)
    coef = torch.round(coef / q) * q
    back = d.T @ coef @ d
    return back.permute(0, 1, 3, 2, 4).reshape(n, 1, h, w)


def jpeg(image, quality):
    """Baseline JPEG round trip of N x 3 x H x W code values (H, W multiples of 16); quality: list of N ints."""
    n, _, h, w = image.shape
    device = image.device
    r, g, b = image.unbind(1)
    y = quantise(0.299 * r + 0.587 * g + 0.114 * b)
    cb = quantise(-0.168736 * r - 0.331264 * g + 0.5 * b + 128)
    cr = quantise(0.5 * r - 0.418688 * g - 0.081312 * b + 128)
    luma_q = torch.tensor([_quant_table(JPEG_LUMA, q) for q in quality], dtype=torch.float32, device=device)
    chroma_q = torch.tensor([_quant_table(JPEG_CHROMA, q) for q in quality], dtype=torch.float32, device=device)
    y = quantise(_blockwise(y[:, None] - 128, luma_q) + 128)
    chroma = F.avg_pool2d(torch.stack([cb, cr], dim=1), 2)
    chroma = torch.cat([_blockwise(chroma[:, i:i + 1] - 128, chroma_q) + 128 for i in range(2)], dim=1)
    chroma = quantise(chroma)
    chroma = F.interpolate(chroma, scale_factor=2, mode="bilinear", align_corners=False)
    cb, cr = chroma[:, 0:1] - 128, chroma[:, 1:2] - 128
    out = torch.cat([y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb], dim=1)
    return quantise(out)
