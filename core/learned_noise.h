// The learned reading of an image's noise: the noise-map network
// (core/noise_net.h, trained by training/train_noise_net.py) run on tiles
// sampled over the image, its per-cell variances gathered into the same
// model the statistical estimator fills (noise_estimate.h): per channel and
// per opponent plane, a noise level function over intensity bins and a
// spectrum over scales. Every filter's auto reads it through
// estimate_noise, which keeps the statistical model as the fallback.
//
// Why a network: the statistical model measures the noise on the blocks
// flat enough to show it, and second-order statistics of such blocks cannot
// tell fine texture (fur, foliage, a lime's skin) from correlated noise, nor
// see colour blotches wider than its blocks; a small network trained on
// photos with known synthetic noise learns both (Guo, Yan, Zhang, Zuo &
// Zhang, "Toward convolutional blind denoising of real photographs", CVPR
// 2019: CBDNet's noise-estimation subnetwork, trained on a camera
// pipeline).
//
// Cost: tiles of 64x64 (the training crops' size, so the network sees the
// same borders), at most kLearnedMaxTiles of them evenly spread over the
// image, about 29 M multiply-adds each; the map is smooth, so a sample
// reads it (bench/RESULTS.md: the time for 24 MP on 2 cores).
#pragma once

#include <memory>
#include <string>

#include "image_shape.h"
#include "noise_estimate.h"
#include "noise_net.h"
#include "pixel_stream.h"

namespace edgewise {

constexpr int kLearnedMaxTiles = 96;
// The map's outputs: for R, G, B, Y, C1, C2 (in that order) the log of the
// noise's variance averaged over boxes of 1, 2 and 4 px ("R0 R1 R2 G0 ...").
constexpr int kNoiseMapOutputs = 18;
// A reading on fewer tiles than this is unsure: too little of the image.
constexpr int kLearnedMinTiles = 4;
// Above this (code values, any colour channel's whole deviation) the
// reading is beyond the noise the network was trained on (training
// draws white noise up to 50, camera noise to about 60 in red).
constexpr double kLearnedMaxSigma = 60.0;

// The shipped network, loaded once per process: from $EDGEWISE_NOISE_NET
// when set ("none" turns the learned reading off), else the first of the
// installed data folder's and the source tree's models/noise_net-v1.ewnn.
// `net` is null when it could not be loaded; `problem` then says why, in
// one line naming the file.
struct ShippedNoiseNet {
  std::shared_ptr<const NoiseNet> net;
  std::string path;
  std::string problem;
};
const ShippedNoiseNet& shipped_noise_net();

// Throws NoiseNetError naming `name` when the network's outputs are not
// that map.
void check_noise_map_outputs(const NoiseNet& net, const std::string& name);

struct LearnedReading {
  NoiseEstimate estimate;  // channels and opponent planes from the network (reading "learned")
  int tiles = 0;           // tiles read
  bool sure = false;
  std::string unsure_reason;  // why not sure, in words, when !sure
};

// Reads `shape`'s noise from `source` (rows of interleaved 0..1 floats, as
// estimate_noise takes them; read in increasing order, only the sampled
// tiles' rows). Tiles holding a transparent pixel are skipped. Throws
// NoiseNetError for a network that does not give the map,
// std::invalid_argument for a shape without pixels.
LearnedReading read_noise_with_net(const NoiseNet& net, PixelSource& source, const ImageShape& shape, int threads = 0);

}  // namespace edgewise
