#include "learned_noise.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model_files.h"
#include "noise_spectrum.h"

namespace edgewise {

namespace {

constexpr const char* kShippedFile = "noise_net-v1.ewnn";
constexpr const char* kPlaneNames[6] = {"R", "G", "B", "Y", "C1", "C2"};
constexpr int kScalesRead = 3;  // the network's outputs per plane: boxes of 1, 2 and 4 px
constexpr int kBins = 8;

ShippedNoiseNet load_shipped() {
  ShippedNoiseNet shipped;
  const ModelLocation location =
      find_shipped_model("EDGEWISE_NOISE_NET", kShippedFile, "the noise network", "the learned reading");
  shipped.path = location.path;
  if (shipped.path.empty()) {
    shipped.problem = location.problem;
    return shipped;
  }
  try {
    NoiseNet net = load_noise_net(shipped.path);
    check_noise_map_outputs(net, shipped.path);
    shipped.net = std::make_shared<const NoiseNet>(std::move(net));
  } catch (const std::exception& error) {
    shipped.problem = error.what();
  }
  return shipped;
}

struct Tile {
  int x = 0, y = 0;
};

// Up to kLearnedMaxTiles tiles of `size` evenly over the image: whole rows
// of tiles, the same columns in each, so rows are read in bands.
std::vector<std::vector<Tile>> tile_rows(const ImageShape& shape, int size) {
  const int across = shape.width / size, down = shape.height / size;
  std::vector<std::vector<Tile>> rows;
  if (across < 1 || down < 1) return rows;
  // Rows and columns in the image's proportion, at most kLearnedMaxTiles in all.
  int pick_down = std::min(down, std::max(1, int(std::lround(std::sqrt(double(kLearnedMaxTiles) * down / across)))));
  int pick_across = std::min(across, std::max(1, kLearnedMaxTiles / pick_down));
  pick_down = std::min(down, std::max(1, kLearnedMaxTiles / pick_across));
  auto spread = [](int picked, int slots, int extent, int size) {
    // Slot k of `picked` evenly over `slots`, the grid centred in the extent.
    std::vector<int> at;
    const int margin = (extent - slots * size) / 2;
    for (int k = 0; k < picked; ++k) at.push_back(margin + int((k + 0.5) * slots / picked) * size);
    return at;
  };
  const std::vector<int> xs = spread(pick_across, across, shape.width, size);
  for (int y : spread(pick_down, down, shape.height, size)) {
    std::vector<Tile> row;
    for (int x : xs) row.push_back({x, y});
    rows.push_back(row);
  }
  return rows;
}

// One cell's network outputs and its intensities (code values): R, G, B and the luma (their mean).
struct Cell {
  float log_variance[kNoiseMapOutputs];
  float intensity[4];
};

ChannelNoise plane_of(const std::vector<Cell>& cells, size_t plane, size_t intensity_of) {
  ChannelNoise channel;
  channel.name = kPlaneNames[plane];
  channel.valid = !cells.empty();
  if (cells.empty()) return channel;
  std::vector<double> mean_variance(kScalesRead, 0.0);
  std::vector<std::pair<float, double>> by_intensity;  // intensity, variance at scale 0
  by_intensity.reserve(cells.size());
  for (const Cell& cell : cells) {
    for (int s = 0; s < kScalesRead; ++s)
      mean_variance[size_t(s)] += std::exp(double(cell.log_variance[plane * kScalesRead + size_t(s)]));
    by_intensity.push_back({cell.intensity[intensity_of], std::exp(double(cell.log_variance[plane * kScalesRead]))});
  }
  for (double& v : mean_variance) v /= double(cells.size());
  channel.sigma = std::sqrt(mean_variance[0]);
  // Intensity bins of equal counts, as the statistical model's.
  std::sort(by_intensity.begin(), by_intensity.end());
  const int bins = std::clamp(int(cells.size()) / kMinBinBlocks, 1, kBins);
  for (int b = 0; b < bins; ++b) {
    const size_t first = by_intensity.size() * size_t(b) / size_t(bins);
    const size_t last = by_intensity.size() * size_t(b + 1) / size_t(bins);
    NoiseLevelBin bin;
    double intensity = 0, variance = 0;
    for (size_t i = first; i < last; ++i) intensity += by_intensity[i].first, variance += by_intensity[i].second;
    bin.blocks = int(last - first);
    bin.valid = bin.blocks > 0;
    bin.intensity = intensity / std::max<size_t>(last - first, 1);
    bin.sigma = std::sqrt(variance / std::max<size_t>(last - first, 1));
    bin.reading = bin.texture = bin.sigma;
    channel.bins.push_back(bin);
  }
  channel.blocks = int(cells.size());
  // The spectrum from the variances of box means, each scale's equation
  // exact for every part (noise_spectrum.h), as the statistical model fits
  // its readings.
  std::vector<SpectrumEquation> equations;
  for (int s = 0; s < kScalesRead; ++s) {
    SpectrumEquation e;
    for (int j = 0; j < kSpectrumParts; ++j) e.per_part[size_t(j)] = part_covariance(j, s, 0, 0);
    e.measured = mean_variance[size_t(s)];
    equations.push_back(e);
  }
  channel.spectrum = spectrum_of(fit_parts(equations));
  for (int s = 0; s < kScalesRead; ++s) {
    NoiseScaleReading scale;
    scale.scale = s;
    scale.reading_ratio = scale.texture_ratio = mean_variance[size_t(s)] / std::max(mean_variance[0], 1e-12);
    scale.blocks = int(cells.size());
    scale.valid = true;
    channel.scales.push_back(scale);
  }
  return channel;
}

}  // namespace

void check_noise_map_outputs(const NoiseNet& net, const std::string& name) {
  bool same = net.outputs == kNoiseMapOutputs && int(net.output_names.size()) == kNoiseMapOutputs;
  for (int p = 0; same && p < 6; ++p)
    for (int s = 0; same && s < kScalesRead; ++s)
      same = net.output_names[size_t(p * kScalesRead + s)] == kPlaneNames[p] + std::to_string(s);
  if (!same)
    throw NoiseNetError(name + ": its outputs are not the noise map this Edgewise reads (R0 R1 R2 G0 ... C22, " +
                        std::to_string(kNoiseMapOutputs) + " log-variances)");
}

const ShippedNoiseNet& shipped_noise_net() {
  static const ShippedNoiseNet shipped = load_shipped();
  return shipped;
}

LearnedReading read_noise_with_net(const NoiseNet& net, PixelSource& source, const ImageShape& shape, int threads) {
  check_noise_map_outputs(net, "the noise network");
  if (shape.width <= 0 || shape.height <= 0 || shape.channels < 1 || shape.channels > 4)
    throw std::invalid_argument("noise estimation needs an image with pixels and 1 to 4 channels");
  LearnedReading reading;
  const int size = net.tile, cell = net.cell, cells_across = size / cell;
  const int channels = shape.channels;
  const int colour = channels >= 3 ? 3 : 1;
  const bool alpha = channels == 2 || channels == 4;
  if (threads <= 0) threads = omp_get_max_threads();
  const std::vector<std::vector<Tile>> rows = tile_rows(shape, size);

  std::vector<Cell> cells;
  std::vector<std::vector<float>> tiles;  // the current row's tiles, R'G'B' interleaved
  std::vector<float> band(size_t(shape.width) * size_t(channels) * size_t(size));
  std::vector<NoiseNetScratch> scratch(size_t(std::max(threads, 1)));
  std::vector<float> outputs;
  for (const std::vector<Tile>& row : rows) {
    source.read_rows(row.front().y, size, band.data());
    tiles.clear();
    for (const Tile& tile : row) {
      std::vector<float> rgb(size_t(size) * size_t(size) * 3);
      bool transparent = false;
      for (int y = 0; y < size && !transparent; ++y)
        for (int x = 0; x < size; ++x) {
          const float* px = band.data() + (size_t(y) * size_t(shape.width) + size_t(tile.x + x)) * size_t(channels);
          if (alpha && px[channels - 1] <= 0.0f) {
            transparent = true;
            break;
          }
          float* out = rgb.data() + (size_t(y) * size_t(size) + size_t(x)) * 3;
          for (int c = 0; c < 3; ++c) out[c] = px[colour == 3 ? c : 0];
        }
      if (!transparent) tiles.push_back(std::move(rgb));
    }
    const size_t per_tile = size_t(cells_across) * size_t(cells_across) * size_t(net.outputs);
    outputs.assign(per_tile * tiles.size(), 0.0f);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int t = 0; t < int(tiles.size()); ++t)
      noise_net_forward(net, tiles[size_t(t)].data(), size, outputs.data() + per_tile * size_t(t),
                        scratch[size_t(omp_get_thread_num())]);
    for (size_t t = 0; t < tiles.size(); ++t)
      for (int cy = 0; cy < cells_across; ++cy)
        for (int cx = 0; cx < cells_across; ++cx) {
          Cell c{};
          const float* o =
              outputs.data() + per_tile * t + (size_t(cy) * size_t(cells_across) + size_t(cx)) * size_t(net.outputs);
          std::copy(o, o + kNoiseMapOutputs, c.log_variance);
          double sums[3] = {0, 0, 0};
          for (int y = 0; y < cell; ++y)
            for (int x = 0; x < cell; ++x)
              for (int k = 0; k < 3; ++k)
                sums[k] += tiles[t][(size_t(cy * cell + y) * size_t(size) + size_t(cx * cell + x)) * 3 + size_t(k)];
          for (int k = 0; k < 3; ++k) c.intensity[k] = float(255.0 * sums[k] / (cell * cell));
          c.intensity[3] = (c.intensity[0] + c.intensity[1] + c.intensity[2]) / 3;
          cells.push_back(c);
        }
    reading.tiles += int(tiles.size());
  }

  NoiseEstimate& estimate = reading.estimate;
  estimate.reading = NoiseReading::learned;
  if (colour == 3) {
    for (size_t p = 0; p < 3; ++p) estimate.channels.push_back(plane_of(cells, p, p));
    for (size_t p = 3; p < 6; ++p) estimate.opponent.push_back(plane_of(cells, p, 3));
  } else {
    // A grey image went in as R = G = B: its noise is each colour channel's.
    ChannelNoise grey = plane_of(cells, 1, 1);
    grey.name = "grey";
    estimate.channels.push_back(grey);
  }

  if (reading.tiles < kLearnedMinTiles) {
    reading.unsure_reason = "only " + std::to_string(reading.tiles) + " opaque tiles of " + std::to_string(size) + "x" +
                            std::to_string(size) + " pixels fit in the image (" + std::to_string(shape.width) + "x" +
                            std::to_string(shape.height) + "); it needs " + std::to_string(kLearnedMinTiles);
    return reading;
  }
  for (const ChannelNoise& channel : estimate.channels)
    if (channel.sigma > kLearnedMaxSigma) {
      char text[160];
      std::snprintf(text, sizeof text, "it reads noise of %.1f in %s, beyond the %.0f it was trained on", channel.sigma,
                    channel.name.c_str(), kLearnedMaxSigma);
      reading.unsure_reason = text;
      return reading;
    }
  reading.sure = true;
  return reading;
}

}  // namespace edgewise
