// The multiscale noise estimate of noise_estimate.h: the image read in
// bands, every plane (R, G, B and the opponent channels, or grey) measured
// on weak-texture blocks (noise_blocks.h) at four scales, the spectrum
// fitted per plane (noise_spectrum.h), and the MAD rule when nothing could
// be measured.
#include "noise_estimate.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "learned_noise.h"
#include "noise_blocks.h"
#include "opponent_color.h"

namespace edgewise {

namespace {

using namespace noise_blocks;

constexpr int kScales = kSpectrumScales;
constexpr int kCoarsest = kScales - 1;
// A block row at the coarsest scale, in image rows (32), and the rows its
// one-pixel border there takes above and below (4 each): a band of
// 32 B + 8 rows holds B block rows at the coarsest scale and 4 B at the
// finest. Bands start on multiples of 32 rows, so every scale's blocks lie
// on one lattice over the whole image whatever the bands.
constexpr int kLatticeRows = kBlock << kCoarsest;
constexpr int kBorderRows = 2 << kCoarsest;
constexpr int kDenseLattices = 8;   // a band of the whole-image walk: 264 rows
constexpr int kSparseLattices = 1;  // a band of a large image: 40 rows
// Blocks per scale are kBlock apart at the two finest scales and overlap at
// the coarsest, where a 0.2 MP crop has few whole blocks (450x300: 117)
// for flat ones to be found among: 4 pixels apart there give 4 times as
// many positions.
constexpr int kScaleStrides[kSpectrumScales] = {kBlock, kBlock, kBlock / 2};

// The finest scale's texture strength per unit of Immerkaer's reading up
// to which noise is taken as white, and from which as correlated
// (channel_of).
constexpr double kWhiteRatio = 1.5;
constexpr double kCorrelatedRatio = 3.0;
// A reading this many times what the fitted spectrum gives is texture (fit_scales).
constexpr double kTextureExcess = 5.0;

// The fallback rule's histogram of |HH| in code values: 1/16 wide bins up to 256.
constexpr int kMadBinsPerCode = 16;
constexpr int kMadBins = 256 * kMadBinsPerCode;
constexpr double kMadToSigma = 1.0 / 0.6744897501960817;  // median |N(0, 1)|

struct PlaneSpec {
  const char* name;
  bool clip_model;  // a plane of samples (R, G, B, grey), read through clipped_noise.h near its limits
};
const PlaneSpec kGreyPlanes[] = {{"grey", true}};
const PlaneSpec kColourPlanes[] = {{"R", true}, {"G", true}, {"B", true}, {"Y", false}, {"C1", false}, {"C2", false}};

// A band of image rows; `owned` rows from its start are its own (a block
// starting there is measured in it), the rest is the next band's border.
struct Band {
  int y0 = 0, rows = 0, owned = 0;
};

std::vector<Band> band_layout(const ImageShape& shape) {
  const int height = shape.height;
  const int blocks_x = std::max(0, (shape.width - 2) / kBlock);
  const size_t all_blocks = size_t(blocks_x) * size_t(std::max(0, (height - 2) / kBlock));
  std::vector<Band> bands;
  const int sparse_rows = kSparseLattices * kLatticeRows + kBorderRows;
  if (all_blocks <= size_t(kMaxNoiseBlocks) || height < 2 * sparse_rows) {
    const int step = kDenseLattices * kLatticeRows;
    for (int y0 = 0; y0 < height; y0 += step) {
      const int rows = std::min(step + kBorderRows, height - y0);
      bands.push_back({y0, rows, y0 + step >= height ? rows : step});
    }
    return bands;
  }
  // Evenly spaced bands, kMaxNoiseBlocks blocks at the finest scale in all.
  const int per_band = kSparseLattices * kLatticeRows / kBlock * blocks_x;
  const int slots = (height - sparse_rows) / kLatticeRows + 1;
  const int count = std::clamp(kMaxNoiseBlocks / std::max(per_band, 1), 1, slots);
  for (int k = 0; k < count; ++k) {
    const int slot = int((k + 0.5) * slots / count);
    bands.push_back({slot * kLatticeRows, sparse_rows, kSparseLattices * kLatticeRows});
  }
  return bands;
}

// The block rows a band measures at a scale: local j (support rows tj ..
// tj + 9 of the band's rows at that scale, t the scale's stride), global
// row first_row + j.
struct BandRows {
  int first_row = 0, count = 0;
};

BandRows band_rows(const Band& band, int scale) {
  const int stride = kScaleStrides[scale];
  const int rows_here = band.rows >> scale;
  int count = 0;
  while ((count * stride + kSupport) <= rows_here && ((count * stride) << scale) < band.owned) ++count;
  return {(band.y0 >> scale) / stride, count};
}

// One plane's rows of a band at one scale.
struct Plane {
  std::vector<float> values;
  std::vector<uint8_t> flags;
};

// The band's planes at one scale, and the intensity the chroma planes are
// binned by (the luma: the mean of R, G and B).
struct BandPlanes {
  int width = 0, rows = 0;
  std::vector<Plane> planes;
  std::vector<float> luma;
};

uint8_t clip_flags(float sample) {
  return uint8_t((sample == 0.0f ? kClippedLow : 0) | (sample == 1.0f ? kClippedHigh : 0));
}

// The finest scale's planes from rows of interleaved 0..1 samples. A
// sample exactly at 0 or 1 (0 or 255) is taken for clipped: 8- and 16-bit
// limits convert to exactly those, and clipped floats are exactly those;
// floats beyond them were not clipped.
BandPlanes planes_of(const float* rows, int row_count, const ImageShape& shape, int threads) {
  const int width = shape.width, channels = shape.channels;
  const bool colour = color_channels(shape) == 3, alpha = has_alpha(shape);
  BandPlanes out;
  out.width = width;
  out.rows = row_count;
  out.planes.resize(colour ? 6 : 1);
  const size_t size = size_t(width) * size_t(row_count);
  for (Plane& plane : out.planes) {
    plane.values.resize(size);
    plane.flags.resize(size);
  }
  if (colour) out.luma.resize(size);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int r = 0; r < row_count; ++r)
    for (int x = 0; x < width; ++x) {
      const float* pixel = rows + (size_t(r) * width + x) * channels;
      const size_t i = size_t(r) * width + x;
      const uint8_t transparent = alpha && pixel[channels - 1] <= 0.0f ? kTransparent : 0;
      if (!colour) {
        out.planes[0].values[i] = pixel[0] * 255.0f;
        out.planes[0].flags[i] = uint8_t(clip_flags(pixel[0]) | transparent);
        continue;
      }
      float rgb[3];
      uint8_t any_clipped = 0;
      for (int c = 0; c < 3; ++c) {
        rgb[c] = pixel[c] * 255.0f;
        const uint8_t clipped = clip_flags(pixel[c]);
        any_clipped |= clipped;
        out.planes[size_t(c)].values[i] = rgb[c];
        out.planes[size_t(c)].flags[i] = uint8_t(clipped | transparent);
      }
      float opponent[3];
      rgb_to_opponent(rgb[0], rgb[1], rgb[2], opponent[0], opponent[1], opponent[2]);
      for (int c = 0; c < 3; ++c) {
        out.planes[size_t(3 + c)].values[i] = opponent[c];
        out.planes[size_t(3 + c)].flags[i] = uint8_t(any_clipped | transparent);
      }
      out.luma[i] = (rgb[0] + rgb[1] + rgb[2]) / 3.0f;
    }
  return out;
}

// 2x2 averages (flags: any of the four).
BandPlanes halved(const BandPlanes& in, int threads) {
  BandPlanes out;
  out.width = in.width / 2;
  out.rows = in.rows / 2;
  const size_t size = size_t(out.width) * size_t(out.rows);
  out.planes.resize(in.planes.size());
  for (Plane& plane : out.planes) {
    plane.values.resize(size);
    plane.flags.resize(size);
  }
  if (!in.luma.empty()) out.luma.resize(size);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int r = 0; r < out.rows; ++r)
    for (int x = 0; x < out.width; ++x) {
      const size_t i = size_t(r) * out.width + x;
      const size_t a = size_t(2 * r) * in.width + size_t(2 * x), b = a + size_t(in.width);
      for (size_t p = 0; p < in.planes.size(); ++p) {
        const Plane& from = in.planes[p];
        out.planes[p].values[i] = 0.25f * (from.values[a] + from.values[a + 1] + from.values[b] + from.values[b + 1]);
        out.planes[p].flags[i] = uint8_t(from.flags[a] | from.flags[a + 1] | from.flags[b] | from.flags[b + 1]);
      }
      if (!in.luma.empty()) out.luma[i] = 0.25f * (in.luma[a] + in.luma[a + 1] + in.luma[b] + in.luma[b + 1]);
    }
  return out;
}

using MadHistogram = std::vector<uint32_t>;

// The fallback rule's statistic over a band's own rows: |HH| of the 2x2
// cells on even rows and columns, cells with a transparent pixel skipped.
void add_mad(const BandPlanes& band, int owned_rows, int threads, std::vector<MadHistogram>& histograms) {
  const int cell_rows = std::min(owned_rows, band.rows) / 2, cell_columns = band.width / 2;
  for (size_t p = 0; p < band.planes.size(); ++p) {
    const Plane& plane = band.planes[p];
#pragma omp parallel num_threads(threads)
    {
      MadHistogram local(kMadBins, 0);
#pragma omp for schedule(static)
      for (int r = 0; r < cell_rows; ++r)
        for (int x = 0; x < cell_columns; ++x) {
          const size_t a = size_t(2 * r) * band.width + size_t(2 * x), b = a + size_t(band.width);
          if ((plane.flags[a] | plane.flags[a + 1] | plane.flags[b] | plane.flags[b + 1]) & kTransparent) continue;
          const float hh =
              0.5f * std::abs(plane.values[a] - plane.values[a + 1] - plane.values[b] + plane.values[b + 1]);
          ++local[size_t(std::min(int(hh * kMadBinsPerCode), kMadBins - 1))];
        }
#pragma omp critical
      for (int i = 0; i < kMadBins; ++i) histograms[p][size_t(i)] += local[size_t(i)];
    }
  }
}

// The median of the histogram's |HH| over 0.6745; -1 when it is empty.
double mad_sigma(const MadHistogram& histogram) {
  uint64_t count = 0;
  for (uint32_t n : histogram) count += n;
  if (count == 0) return -1;
  uint64_t seen = 0;
  for (int i = 0; i < kMadBins; ++i) {
    seen += histogram[size_t(i)];
    if (2 * seen >= count) return (i + 0.5) / kMadBinsPerCode * kMadToSigma;
  }
  return -1;
}

// The texture strength each spectrum part has at each scale, per unit of
// its variance at the finest scale (expected_strength of its covariance).
const std::array<std::array<double, kScales>, kSpectrumParts>& part_strengths() {
  static const auto table = [] {
    std::array<std::array<double, kScales>, kSpectrumParts> t{};
    for (int j = 0; j < kSpectrumParts; ++j)
      for (int s = 0; s < kScales; ++s) {
        const int context[2] = {j, s};
        t[size_t(j)][size_t(s)] = expected_strength(
            [](int dx, int dy, const void* c) {
              const int* js = static_cast<const int*>(c);
              return part_covariance(js[0], js[1], dx, dy);
            },
            context);
      }
    return t;
  }();
  return table;
}

// The finest scale's two measures summed (a variance) at an intensity,
// interpolated between its valid bins as sigma_at does.
double finest_at(const std::vector<NoiseLevelBin>& bins, double intensity) {
  ChannelNoise combined;
  for (const NoiseLevelBin& bin : bins) {
    NoiseLevelBin copy = bin;
    copy.sigma = std::sqrt(bin.reading * bin.reading + bin.texture * bin.texture);
    combined.bins.push_back(copy);
  }
  const double sigma = combined.sigma_at(intensity);
  return sigma * sigma;
}

// One scale's two measures over the finest scale's sum at the same
// intensities: its bins' (weighted by blocks) or, with none valid, the
// calibration's over all its blocks.
NoiseScaleReading scale_reading(int scale, const PlaneWork& work, const std::vector<NoiseLevelBin>& finest) {
  NoiseScaleReading reading;
  reading.scale = scale;
  double kernel = 0, texture = 0;
  auto add = [&](const LevelResult& result) {
    const double here = finest_at(finest, result.intensity);
    if (!result.valid || !(here > 0)) return;
    kernel += result.blocks * result.variance / here;
    texture += result.blocks * result.strength_level / here;
    reading.blocks += result.blocks;
  };
  for (const LevelResult& result : work.bins) add(result);
  if (reading.blocks == 0) add(work.calibration);
  reading.valid = reading.blocks > 0;
  if (reading.valid) {
    reading.reading_ratio = kernel / reading.blocks;
    reading.texture_ratio = texture / reading.blocks;
  }
  return reading;
}

// The spectrum's parts fitted to the equations of scales 0 .. m, one part
// per scale, m as large as the readings allow: a coarse scale whose
// readings no noise of the model gives (one read at more than kTextureExcess
// times the fit's value) holds texture, not noise (a clean photo's shading
// read at 4x4 averages: 100 times what the finer scales' noise would
// give), and it and the coarser ones are left out. With the finest scale
// alone the noise is white, at Immerkaer's reading (the texture strength,
// a lower band, is the first to hold shading).
std::array<double, kSpectrumParts> fit_scales(std::vector<SpectrumEquation> equations, const std::vector<int>& scale_of,
                                              bool& finest_only) {
  finest_only = false;
  int coarsest = scale_of.empty() ? 0 : scale_of.back();
  for (; coarsest > 0; --coarsest) {
    std::vector<SpectrumEquation> used;
    for (size_t e = 0; e < equations.size(); ++e)
      if (scale_of[e] <= coarsest) {
        SpectrumEquation equation = equations[e];
        for (int j = coarsest + 1; j < kSpectrumParts; ++j) equation.per_part[size_t(j)] = 0;
        used.push_back(equation);
      }
    const std::array<double, kSpectrumParts> parts = fit_parts(used);
    double worst = 0;
    for (const SpectrumEquation& e : used) {
      double fitted = 0;
      for (int j = 0; j < kSpectrumParts; ++j) fitted += parts[size_t(j)] * e.per_part[size_t(j)];
      worst = std::max(worst, e.measured / std::max(fitted, 1e-12));
    }
    if (worst <= kTextureExcess) return parts;
  }
  std::array<double, kSpectrumParts> white{};
  if (!equations.empty()) white[0] = equations[0].measured;  // Immerkaer's reading at the finest scale
  finest_only = true;
  return white;
}

// The plane's channel: its finest scale's noise level function (both
// measures), every scale's measures relative to it, the spectrum that
// explains them, and from it the whole noise at each intensity.
ChannelNoise channel_of(const PlaneSpec& spec, const std::array<PlaneWork, kScales>& scales,
                        const NoiseSpectrum* borrowed = nullptr, bool* fell_back = nullptr) {
  ChannelNoise channel;
  channel.name = spec.name;
  const PlaneWork& finest = scales[0];
  channel.correlation = finest.correlation();
  for (size_t b = 0; b < finest.bins.size(); ++b) {
    const LevelResult& result = finest.bins[b];
    NoiseLevelBin bin;
    bin.valid = result.valid;
    bin.blocks = result.blocks;
    bin.reading = std::sqrt(result.variance);
    bin.texture = std::sqrt(result.strength_level);
    const std::vector<const BlockStats*> members = finest.bin_candidates(b);
    bin.intensity = result.valid ? result.intensity : (members.front()->mean + members.back()->mean) / 2;
    channel.bins.push_back(bin);
    channel.blocks += result.blocks;
    channel.valid |= result.valid;
  }
  if (!channel.valid) return channel;

  // One part per scale measured from the finest on: a part blurred beyond
  // what the coarsest of them resolves cannot be told from the others.
  // Each scale's two equations, in scale order.
  std::vector<SpectrumEquation> equations;
  std::vector<int> equation_scale;
  for (int s = 0; s < kScales; ++s) {
    const NoiseScaleReading reading = scale_reading(s, scales[size_t(s)], channel.bins);
    channel.scales.push_back(reading);
    if (!reading.valid) break;  // a gap: coarser scales cannot be told apart from it
    SpectrumEquation kernel, texture;
    for (int j = 0; j < kSpectrumParts; ++j) {
      kernel.per_part[size_t(j)] = spectrum_part_reading(j, s);
      texture.per_part[size_t(j)] = part_strengths()[size_t(j)][size_t(s)];
    }
    kernel.measured = reading.reading_ratio;
    texture.measured = reading.texture_ratio;
    // Sampling error falls as the square root of the blocks (whole blocks'
    // worth: overlapping ones share pixels).
    kernel.weight = texture.weight = std::sqrt(double(reading.blocks) / scales[size_t(s)].grid.overlap());
    for (const SpectrumEquation& e : {kernel, texture}) {
      equations.push_back(e);
      equation_scale.push_back(s);
    }
  }
  bool finest_only = false;
  std::array<double, kSpectrumParts> parts = fit_scales(equations, equation_scale, finest_only);
  if (fell_back) *fell_back = finest_only;
  // A plane whose coarser scales hold texture (the luma of a textured
  // photo, the red of a red garment: its flattest 2x2 and 4x4 blocks are
  // shading) keeps only its finest scale, where correlated noise shows a
  // fraction of itself to Immerkaer's kernel (a quarter of it for
  // demosaiced noise). The same pipeline made every channel's noise, so it
  // takes the spectrum the other channels measured (`borrowed`) and the
  // amount that spectrum gives its finest reading.
  if (finest_only && borrowed && borrowed->shares[0] < 1.0 && !equations.empty()) {
    double per_unit = 0;
    for (int j = 0; j < kSpectrumParts; ++j) per_unit += borrowed->shares[size_t(j)] * equations[0].per_part[size_t(j)];
    for (int j = 0; j < kSpectrumParts; ++j)
      parts[size_t(j)] = borrowed->shares[size_t(j)] * equations[0].measured / per_unit;
  }
  // Noise that is white at the finest scale (its texture strength per unit
  // of Immerkaer's reading near 1) is taken as white: there the coarser
  // scales' flattest blocks carry more of the image's shading than of
  // noise averaged 2x2 and 4x4 times (white noise on tests/data's
  // astronaut: its scale-2 reading 4 times what white noise gives), and
  // would read as blotches. Measured ratios (bench/quality's camera set
  // and white noise of 5-30 on its photos): white noise 0.99-1.40,
  // camera noise 2.5-180; between 1.5 and 3 the two readings are blended.
  const double correlated =
      std::clamp((channel.correlation - kWhiteRatio) / (kCorrelatedRatio - kWhiteRatio), 0.0, 1.0);
  double fitted = 0;
  for (double v : parts) fitted += v;
  double finest_share = 0;  // of the two measures summed, over the bins
  {
    double reading = 0, both = 0;
    for (const NoiseLevelBin& bin : channel.bins)
      if (bin.valid)
        reading += bin.blocks * bin.reading * bin.reading,
            both += bin.blocks * (bin.reading * bin.reading + bin.texture * bin.texture);
    finest_share = both > 0 ? reading / both : 0.5;
  }
  for (double& v : parts) v *= correlated;
  parts[0] += (1 - correlated) * finest_share;
  double total = 0;
  for (double v : parts) total += v;
  channel.spectrum = spectrum_of(parts);
  for (NoiseLevelBin& bin : channel.bins) {
    const double both = bin.reading * bin.reading + bin.texture * bin.texture;
    bin.sigma = std::sqrt(correlated * fitted * both + (1 - correlated) * bin.reading * bin.reading);
  }
  // The root-mean-square over the image's blocks: a bin that could not be
  // measured counts at the noise level function's value there.
  double weighted = 0;
  for (size_t b = 0; b < channel.bins.size(); ++b) {
    const double sigma = channel.sigma_at(channel.bins[b].intensity);
    weighted += sigma * sigma * double(finest.bin_candidates(b).size());
  }
  channel.sigma = std::sqrt(weighted / double(finest.candidates.size()));
  return channel;
}

// The R, G and B channels' spectra averaged by their variances: the
// spectrum of their mixtures for noise independent between channels.
NoiseSpectrum mean_spectrum(const std::vector<ChannelNoise>& channels) {
  std::array<double, kSpectrumParts> variances{};
  for (const ChannelNoise& channel : channels)
    if (channel.valid)
      for (int j = 0; j < kSpectrumParts; ++j)
        variances[size_t(j)] += channel.sigma * channel.sigma * channel.spectrum.shares[size_t(j)];
  return spectrum_of(variances);
}

using PlaneScales = std::array<PlaneWork, kScales>;

// Calibration and bins of planes [first, last) at every scale, the tasks
// of all of them side by side.
void measure_planes(std::vector<PlaneScales>& work, size_t first, size_t last, int max_bins, int threads) {
  const int count = int(last - first) * kScales;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int t = 0; t < count; ++t) work[first + size_t(t / kScales)][size_t(t % kScales)].calibrate(max_bins);
  std::vector<std::array<int, 3>> tasks;  // plane, scale, bin
  for (size_t p = first; p < last; ++p)
    for (int s = 0; s < kScales; ++s)
      for (size_t b = 0; b < work[p][size_t(s)].bins.size(); ++b) tasks.push_back({int(p), s, int(b)});
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int t = 0; t < int(tasks.size()); ++t)
    work[size_t(tasks[size_t(t)][0])][size_t(tasks[size_t(t)][1])].measure_bin(size_t(tasks[size_t(t)][2]));
}

// The opponent planes leave out a block where clipping takes more than a
// quarter of the noise variance from any of its R, G and B (as those
// planes' own blocks are left out), read from their measured noise, and
// read the others through the share clipping leaves of the mixture: the
// R, G and B shares weighted as each opponent channel mixes their
// variances (Var(Y) = (vR + vG + vB) / 3, Var(C1) = (vR + vB) / 2,
// Var(C2) = (vR + 4 vG + vB) / 6).
void exclude_clipped(std::vector<PlaneScales>& work, const std::vector<ChannelNoise>& samples) {
  constexpr double kMix[3][3] = {{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.5, 0.0, 0.5}, {1.0 / 6, 4.0 / 6, 1.0 / 6}};
  for (int s = 0; s < kScales; ++s) {
    const size_t count = work[0][size_t(s)].grid.size();
    std::vector<bool> excluded(count, false);
    std::vector<std::vector<float>> shares(3, std::vector<float>(count, 1.0f));
    for (size_t i = 0; i < count; ++i) {
      double share[3], variance[3];
      for (size_t c = 0; c < 3; ++c) {
        const double mean = work[c][size_t(s)].grid.blocks[i].mean;
        const double sigma = samples[c].sigma_at(mean);
        const Unclipped unclipped = unclip(mean, sigma, work[c][0].limits);
        excluded[i] = excluded[i] || unclipped.share < kMinUnclippedShare;
        share[c] = unclipped.share;
        variance[c] = std::max(sigma * sigma, 1e-12);
      }
      for (size_t k = 0; k < 3; ++k) {
        double left = 0, whole = 0;
        for (size_t c = 0; c < 3; ++c) left += kMix[k][c] * variance[c] * share[c], whole += kMix[k][c] * variance[c];
        shares[k][i] = float(left / whole);
      }
    }
    for (size_t p = 3; p < 6; ++p) {
      work[p][size_t(s)].excluded = excluded;
      work[p][size_t(s)].shares = shares[p - 3];
    }
  }
}

int thread_count(const NoiseEstimateOptions& options) {
  return options.threads > 0 ? options.threads : omp_get_max_threads();
}

// Reads the bands through read_rows (called on this thread, rows in
// increasing order, each once) and measures each band's blocks at every
// scale on several threads.
NoiseEstimate estimate(const ImageShape& shape, const NoiseEstimateOptions& options,
                       const std::function<void(int y, int rows, float* dst)>& read_rows) {
  if (shape.width <= 0 || shape.height <= 0 || shape.channels < 1 || shape.channels > 4)
    throw std::invalid_argument("noise estimation needs an image with pixels and 1 to 4 channels");
  const bool colour = color_channels(shape) == 3;
  const PlaneSpec* specs = colour ? kColourPlanes : kGreyPlanes;
  const size_t plane_count = colour ? 6 : 1;
  const int threads = thread_count(options);
  const std::vector<Band> bands = band_layout(shape);

  // Every scale's grid, its rows in band order.
  std::vector<PlaneScales> work(plane_count);
  std::array<int, kScales> blocks_x;
  for (int s = 0; s < kScales; ++s) {
    blocks_x[size_t(s)] = blocks_across(shape.width >> s, kScaleStrides[s]);
    std::vector<int> rows;
    for (const Band& band : bands) {
      const BandRows here = band_rows(band, s);
      for (int j = 0; j < here.count; ++j) rows.push_back(here.first_row + j);
    }
    for (size_t p = 0; p < plane_count; ++p) {
      BlockGrid& grid = work[p][size_t(s)].grid;
      grid.width = blocks_x[size_t(s)];
      grid.stride = kScaleStrides[s];
      grid.rows = rows;
      work[p][size_t(s)].min_blocks = kMinBinBlocks * grid.overlap();
      grid.blocks.resize(size_t(grid.width) * rows.size());
      work[p][size_t(s)].clip_model = specs[p].clip_model;
    }
  }

  std::vector<MadHistogram> mad(plane_count, MadHistogram(kMadBins, 0));
  std::vector<Scratch> scratch(static_cast<size_t>(threads));
  const size_t row_floats = size_t(shape.width) * size_t(shape.channels);
  std::vector<float> rows;
  std::array<size_t, kScales> next_grid_row{};
  int read_until = 0;  // rows before it were read into `rows` already (the previous band's tail)
  for (const Band& band : bands) {
    // Rows the previous band read and this one needs again stay in memory.
    std::vector<float> band_rows_data(row_floats * size_t(band.rows));
    const int kept_rows = std::max(0, std::min(read_until - band.y0, band.rows));
    if (kept_rows > 0)
      std::copy(rows.end() - ptrdiff_t(row_floats * size_t(kept_rows)), rows.end(), band_rows_data.begin());
    if (kept_rows < band.rows)
      read_rows(band.y0 + kept_rows, band.rows - kept_rows, band_rows_data.data() + row_floats * size_t(kept_rows));
    read_until = band.y0 + band.rows;
    rows.swap(band_rows_data);

    BandPlanes planes = planes_of(rows.data(), band.rows, shape, threads);
    add_mad(planes, band.owned, threads, mad);
    for (int s = 0; s < kScales; ++s) {
      if (s > 0) planes = halved(planes, threads);
      const BandRows here = band_rows(band, s);
      const int tasks = int(plane_count) * here.count;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
      for (int t = 0; t < tasks; ++t) {
        const size_t p = size_t(t / std::max(here.count, 1));
        const int j = t % std::max(here.count, 1);
        const Plane& plane = planes.planes[p];
        const size_t offset = size_t(j * kScaleStrides[s]) * size_t(planes.width);
        PlaneRows support;
        support.values = plane.values.data() + offset;
        support.flags = plane.flags.data() + offset;
        support.intensity = specs[p].clip_model ? support.values : planes.luma.data() + offset;
        support.stride = size_t(planes.width);
        support.width = planes.width;
        BlockGrid& grid = work[p][size_t(s)].grid;
        measure_block_row(support, grid.width, grid.stride, scratch[size_t(omp_get_thread_num())],
                          grid.blocks.data() + (next_grid_row[size_t(s)] + size_t(j)) * size_t(grid.width));
      }
      next_grid_row[size_t(s)] += size_t(here.count);
    }
  }

  NoiseEstimate result;
  measure_planes(work, 0, colour ? 3 : 1, options.bins, threads);
  std::vector<bool> finest_only(3, false);
  for (size_t p = 0; p < (colour ? 3u : 1u); ++p) {
    bool fell_back = false;
    result.channels.push_back(channel_of(specs[p], work[p], nullptr, &fell_back));
    finest_only[p] = fell_back;
  }
  if (colour) {
    std::vector<ChannelNoise> fitted;
    for (size_t p = 0; p < 3; ++p)
      if (!finest_only[p]) fitted.push_back(result.channels[p]);
    const NoiseSpectrum others = mean_spectrum(fitted);
    for (size_t p = 0; p < 3; ++p)
      if (finest_only[p] && !fitted.empty()) result.channels[p] = channel_of(specs[p], work[p], &others);
  }
  if (colour) {
    exclude_clipped(work, result.channels);
    measure_planes(work, 3, 6, options.bins, threads);
    const NoiseSpectrum rgb = mean_spectrum(result.channels);
    for (size_t p = 3; p < 6; ++p) result.opponent.push_back(channel_of(specs[p], work[p], &rgb));
  }
  if (std::none_of(result.channels.begin(), result.channels.end(), [](const ChannelNoise& c) { return c.valid; })) {
    result.fallback = true;
    result.fallback_reason = "fewer than " + std::to_string(kMinBinBlocks) +
                             " opaque blocks of 10x10 pixels are flat enough to show noise alone (the image is " +
                             std::to_string(shape.width) + "x" + std::to_string(shape.height) + ")";
    for (size_t p = 0; p < plane_count; ++p) {
      ChannelNoise& channel = p < 3 ? result.channels[p] : result.opponent[p - 3];
      const double sigma = mad_sigma(mad[p]);
      channel = ChannelNoise{};
      channel.name = specs[p].name;
      channel.valid = sigma >= 0;
      channel.sigma = std::max(sigma, 0.0);
    }
  }
  return result;
}

}  // namespace

double ChannelNoise::sigma_at(double intensity) const {
  const NoiseLevelBin* previous = nullptr;
  for (const NoiseLevelBin& bin : bins) {
    if (!bin.valid) continue;
    if (intensity <= bin.intensity) {
      if (!previous) return bin.sigma;
      const double t = (intensity - previous->intensity) / std::max(bin.intensity - previous->intensity, 1e-9);
      return previous->sigma + t * (bin.sigma - previous->sigma);
    }
    previous = &bin;
  }
  return previous ? previous->sigma : sigma;
}

double NoiseEstimate::sigma() const {
  std::vector<double> sigmas;
  for (const ChannelNoise& channel : channels)
    if (channel.valid) sigmas.push_back(channel.sigma);
  if (sigmas.empty()) return 0.0;
  std::sort(sigmas.begin(), sigmas.end());
  const size_t middle = sigmas.size() / 2;
  return sigmas.size() % 2 ? sigmas[middle] : (sigmas[middle - 1] + sigmas[middle]) / 2;
}

bool NoiseEstimate::valid() const {
  return std::any_of(channels.begin(), channels.end(), [](const ChannelNoise& c) { return c.valid; });
}

NoiseEstimate white_noise_estimate(double sigma, int channels) {
  NoiseEstimate estimate;
  auto channel = [sigma](const char* name) {
    ChannelNoise c;
    c.name = name;
    c.sigma = sigma;
    c.valid = true;
    return c;
  };
  if (channels == 1) {
    estimate.channels.push_back(channel("grey"));
    return estimate;
  }
  for (const PlaneSpec& spec : kColourPlanes)
    (spec.clip_model ? estimate.channels : estimate.opponent).push_back(channel(spec.name));
  return estimate;
}

const char* noise_reading_name(NoiseReading reading) {
  return reading == NoiseReading::learned ? "learned" : "statistical";
}

namespace {

// The learned reading where the network is there and sure (or asked for),
// else the statistical one with a line saying why. The learned reading runs
// first: when it is sure the statistical one is not needed.
NoiseEstimate choose_reading(PixelSource& source, const ImageShape& shape, const NoiseEstimateOptions& options,
                             const std::function<NoiseEstimate()>& statistical) {
  if (options.reading == NoiseReadingChoice::statistical) return statistical();
  const ShippedNoiseNet& shipped = shipped_noise_net();
  if (!shipped.net) {
    NoiseEstimate result = statistical();
    result.reading_note = shipped.problem + "; the statistical noise reading is used";
    return result;
  }
  LearnedReading learned = read_noise_with_net(*shipped.net, source, shape, thread_count(options));
  if (learned.sure) return learned.estimate;
  if (options.reading == NoiseReadingChoice::learned && learned.tiles > 0) {
    learned.estimate.reading_note = "the learned noise reading is unsure: " + learned.unsure_reason;
    return learned.estimate;
  }
  NoiseEstimate result = statistical();
  // Where the statistical model cannot measure either, its fallback line
  // (fallback_reason, a smaller-still rule) is the one thing to say.
  if (!result.fallback)
    result.reading_note =
        "the learned noise reading is unsure (" + learned.unsure_reason + "); the statistical reading is used";
  return result;
}

}  // namespace

NoiseEstimate estimate_noise(PixelSource& source, const ImageShape& shape, const NoiseEstimateOptions& options) {
  return choose_reading(source, shape, options, [&] {
    return estimate(shape, options, [&source](int y, int rows, float* dst) { source.read_rows(y, rows, dst); });
  });
}

NoiseEstimate estimate_noise(const ImageBuffer& image, const NoiseEstimateOptions& options) {
  const int threads = thread_count(options);
  const size_t row_floats = size_t(image.shape.width) * image.shape.channels;
  BufferSource whole(image);
  return choose_reading(whole, image.shape, options, [&] {
    return estimate(image.shape, options, [&](int y, int rows, float* dst) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int i = 0; i < rows; ++i) {
        BufferSource source(image);
        source.read_rows(y + i, 1, dst + size_t(i) * row_floats);
      }
    });
  });
}

}  // namespace edgewise
