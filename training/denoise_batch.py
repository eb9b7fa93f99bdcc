"""The learned denoiser's training batches: the noise-map network's windows
and noise (noise_batch.noisy_windows: clean photos, white, Poisson-Gaussian,
blurred, YCbCr blotches, camera pipelines, JPEG after them, greys), on tiles
of TILE x TILE, with the reference each should become and the noise map the
network gets, read by the shipped noise-map network from the noisy tile as
the C++ reads it from a photo.

Half of the white-noise tiles that skipped JPEG get instead the map white
noise of their true deviation has (denoise_net.white_log_variance): what
the filter gives the network when the user types a noise level.
"""
import torch

import denoise_net
import noise_batch


def make_batch(crops, n, gen, noise_map, weights=None):
    """crops drawn uniformly or in proportion to weights (noise_batch.clean_windows) ->
    (noisy N x 3 x TILE x TILE in 0..1, reference likewise, map input N x 18 x TILE/2 x
    TILE/2, groups: kind -> indices)."""
    device = crops.device
    reference, noisy, groups, white_sigma, jpeg = noise_batch.noisy_windows(crops, n, gen, denoise_net.TILE,
                                                                                weights)
    noisy, reference = noisy / 255, reference / 255
    cells = noise_map(noisy)
    white = groups["white"]
    if white.numel():
        given = white[(~jpeg[white]) & (torch.rand(white.numel(), device=device, generator=gen) < 0.5)]
        if given.numel():
            exact = denoise_net.white_log_variance(white_sigma[given], device)
            cells[given] = exact[:, :, None, None].expand(-1, -1, cells.shape[2], cells.shape[3])
    half = (denoise_net.TILE // 2, denoise_net.TILE // 2)
    return noisy, reference, denoise_net.map_input(cells, half), groups
