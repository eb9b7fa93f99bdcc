// The learned denoiser's network (issue 35): its weight file, the loader
// that refuses anything it cannot run, and the CPU forward pass on one tile.
//
// The file is a network file of noise_net.h (magic "EWNN", format 1) with
// model "denoiser", whose layers are a program over a stack of tensors, as
// training/denoise_net.py runs it:
//   unshuffle F   space to channels (C x H x W -> C*F*F x H/F x W/F, PyTorch's
//                 pixel_unshuffle order: channel c*F*F + dy*F + dx)
//   shuffle F     its inverse
//   map N         append the noise map's N channels (given at this scale)
//   conv ...      as the noise map's, stride 1
//   save / add    push the current tensor / pop one and add it
//   residual      add the input image (0..1) to the 3 channels
// The input is R'G'B' samples (0..1) taken as sample - 0.5; the output, 3
// channels at full resolution, is the clean image's estimate (unclipped).
// Header lines beyond noise_net.h's, required:
//   map-offset X, map-scale Y  the map input is (log-variance - X) * Y
//   map-cell C                 the noise map's cell (pixels a side)
//   noise-net SHA256           the noise-map network the map must come from
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "noise_net.h"

namespace edgewise {

constexpr int kDenoiseNetVersion = 1;
constexpr const char* kDenoiseNetModel = "denoiser";
extern const NetKind kDenoiserKind;

struct DenoiseNet {
  NoiseNet net;             // the file's content, prepared (packed weights)
  int align = 1;            // a tile's sides are multiples of this (the unshuffles' product)
  int map_channels = 0;     // the map step's N
  int map_resolution = 1;   // the map is given at 1/map_resolution of the tile's sides
  double map_offset = 0, map_scale = 1;
  int map_cell = 0;
  std::string noise_net_sha256;
};

// Reads and checks a denoiser file; throws NoiseNetError naming `path`.
DenoiseNet load_denoise_net(const std::string& path);
DenoiseNet parse_denoise_net(const std::vector<uint8_t>& bytes, const std::string& name);
// A denoiser built in memory (tests): checks and packs `net`, reads its
// header lines; throws NoiseNetError.
DenoiseNet prepare_denoise_net(NoiseNet net);

// Multiply-adds of one forward pass over a width x height tile.
int64_t denoise_net_macs(const DenoiseNet& net, int width, int height);

// One thread's working memory; reuse it from tile to tile.
struct DenoiseNetScratch {
  NoiseNetIsa isa = NoiseNetIsa::automatic;
  std::vector<std::vector<float>> buffers;
};

// One tile through the network on the calling thread. rgb: width x height
// interleaved R'G'B' samples (0..1); map: (width / r) x (height / r) pixels
// of map_channels floats, already normalised (r = map_resolution); out:
// width x height x 3 floats. width and height positive multiples of
// net.align, else std::invalid_argument.
void denoise_net_forward(const DenoiseNet& net, const float* rgb, const float* map, int width, int height,
                         float* out, DenoiseNetScratch& scratch);

}  // namespace edgewise
