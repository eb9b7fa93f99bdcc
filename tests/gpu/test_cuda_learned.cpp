// The learned filter on the CUDA backend (cuda/learned_cuda.h) against the
// CPU backend, which tests/test_learned.cpp holds to the double reference.
// The GPU's denoiser keeps its activations in fp16 (cuda/denoise_net_cuda.h:
// relative error about 1e-3 of the network's own part), so the bounds are
// issue 36's, in 8-bit code values: mean 0.05, 99.9th percentile 0.5, and
// the PSNR against the clean photo within 0.02 dB of the CPU's. Across band
// heights the GPU gives its own bits again. Where no usable GPU exists, or
// the CUDA backend refuses the learned plans (the denoiser's tensor-core
// path needs compute capability 8.0), every test reports itself skipped
// with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend.h"
#include "engine.h"
#include "executor.h"
#include "filters/learned.h"
#include "noise_estimate.h"
#include "test_support.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>

#if EDGEWISE_HAVE_CLI_IO
#include "image_file.h"
#endif

namespace {

using namespace edgewise;
using namespace edgewise_test;

FilterSpec learned_with(double sigma_n, double strength) {
  LearnedParameters p;
  p.sigma_n = float(sigma_n);
  p.strength = float(strength);
  return learned_spec(p);
}

struct Agreement {
  double mean = 0, p999 = 0, largest = 0;
  size_t samples = 0;
  std::string describe() const {
    char text[200];
    std::snprintf(text, sizeof text, "%zu samples: mean %.4f, 99.9th percentile %.4f, largest %.4f code values",
                  samples, mean, p999, largest);
    return text;
  }
};

// |GPU - CPU| in code values over the colour samples (alpha is checked to the bit).
Agreement agreement(const FloatImage& cpu, const FloatImage& gpu) {
  const ImageShape& s = cpu.shape();
  std::vector<double> d;
  double sum = 0;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      for (int c = 0; c < color_channels(s); ++c) {
        double v = 255.0 * std::abs(double(cpu.at(x, y, c)) - double(gpu.at(x, y, c)));
        if (std::isnan(v)) v = INFINITY;
        d.push_back(v);
        sum += v;
      }
  Agreement a;
  a.samples = d.size();
  if (d.empty()) return a;
  std::sort(d.begin(), d.end());
  a.mean = sum / double(d.size());
  a.p999 = d[d.size() * 999 / 1000];
  a.largest = d.back();
  return a;
}

bool alpha_identical(const FloatImage& a, const FloatImage& b) {
  const ImageShape& s = a.shape();
  if (!has_alpha(s)) return true;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      if (a.at(x, y, s.channels - 1) != b.at(x, y, s.channels - 1)) return false;
  return true;
}

constexpr double kMeanBound = 0.05, kP999Bound = 0.5;

// Why the CUDA backend refuses the learned filter's plans, or "".
std::string learned_refusal() {
  const auto* provider = find_backend(installed_backends(), "cuda");
  if (!provider) return "no CUDA backend in this build";
  const NoiseEstimate noise = white_noise_estimate(10.0, 3);
  PlanRequest request;
  request.noise = &noise;
  request.noise_auto_flags = {"sigma-n"};
  const std::unique_ptr<Plan> plan = make_plan(learned_with(10.0, 1.0), ImageShape{64, 64, 3}, request);
  return provider->make({})->unsupported(*plan);
}

#define REQUIRE_LEARNED_KERNEL()                                                   \
  do {                                                                             \
    REQUIRE_GPU();                                                                 \
    const std::string refused = learned_refusal();                                 \
    if (!refused.empty()) GTEST_SKIP() << "the CUDA backend refuses it: " << refused; \
  } while (0)

Agreement expect_agrees_with_cpu(const FilterSpec& spec, const FloatImage& image, const NoiseEstimate* noise) {
  RunOptions options;
  options.noise = noise;
  const FloatImage cpu = run_cpu(spec, image, options);
  const FloatImage gpu = run_gpu(spec, image, size_t(1) << 30, noise);
  const Agreement a = agreement(cpu, gpu);
  EXPECT_GT(a.samples, 0u);
  EXPECT_LE(a.mean, kMeanBound) << a.describe();
  EXPECT_LE(a.p999, kP999Bound) << a.describe();
  EXPECT_TRUE(alpha_identical(cpu, gpu));
  std::printf("learned GPU against CPU, %dx%dx%d: %s\n", image.shape().width, image.shape().height,
              image.shape().channels, a.describe().c_str());
  return a;
}

struct Photo {
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> bytes;
};

#if !EDGEWISE_HAVE_CLI_IO
// A binary PNM (P5 or P6, 8-bit) as tests/gpu/png_to_pnm.py writes it.
Photo read_pnm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  int maximum = 0;
  Photo photo;
  in >> magic >> photo.width >> photo.height >> maximum;
  in.get();
  if (!in || (magic != "P5" && magic != "P6") || maximum != 255 || photo.width < 1 || photo.height < 1)
    throw std::runtime_error(path + ": not an 8-bit binary PNM");
  photo.channels = magic == "P5" ? 1 : 3;
  photo.bytes.resize(size_t(photo.width) * photo.height * photo.channels);
  if (!in.read(reinterpret_cast<char*>(photo.bytes.data()), std::streamsize(photo.bytes.size())))
    throw std::runtime_error(path + ": shorter than its header says");
  return photo;
}
#endif

// A test photo by the CLI's reader where it is built; else (the GPU machine
// has no PNG library) as PNM from $EDGEWISE_TEST_PNM, which tests/gpu/run.sh
// fills; "" in `why_not` when neither is there.
Photo read_photo(const std::string& stem, std::string& why_not) {
#if EDGEWISE_HAVE_CLI_IO
  why_not.clear();
  const edgewise_cli::DecodedImage file = edgewise_cli::read_image(std::string(EDGEWISE_TEST_DATA "/") + stem + ".png");
  return {file.width, file.height, file.channels, std::vector<uint8_t>(file.bytes.begin(), file.bytes.end())};
#else
  const char* dir = std::getenv("EDGEWISE_TEST_PNM");
  if (!dir || !*dir) {
    why_not = "no PNG reader in this build and EDGEWISE_TEST_PNM unset (tests/gpu/run.sh converts the photos)";
    return {};
  }
  return read_pnm(std::string(dir) + "/" + stem + ".pnm");
#endif
}

double psnr(const std::vector<uint8_t>& clean, const FloatImage& image) {
  double squares = 0;
  for (size_t i = 0; i < clean.size(); ++i) {
    const double v = std::round(255.0 * double(image.pixels()[i])) - double(clean[i]);
    squares += v * v;
  }
  return 10.0 * std::log10(255.0 * 255.0 * double(clean.size()) / squares);
}

// The test photos with white noise of sigma 20 and Poisson-Gaussian-like
// noise (8-bit), blind (the noise map), and with sigma-n given: issue 36's
// bounds on every sample and the PSNR against the clean photo.
TEST(CudaLearned, AgreesWithCpuOnPhotos) {
  REQUIRE_LEARNED_KERNEL();
  EW_SEEDED_RNG(rng);
  int compared = 0;
  for (const char* name : {"astronaut", "camera"}) {
    std::string why_not;
    const Photo file = read_photo(name, why_not);
    if (!why_not.empty()) GTEST_SKIP() << why_not;
    const ImageShape shape{file.width, file.height, file.channels};
    for (const bool signal_dependent : {false, true}) {
      FloatImage noisy(shape);
      for (size_t i = 0; i < noisy.pixels().size(); ++i) {
        const double clean = double(file.bytes[i]);
        const double sigma = signal_dependent ? std::sqrt(4.0 + 2.0 * clean) : 20.0;
        std::normal_distribution<double> gauss(0.0, sigma);
        noisy.pixels()[i] = float(std::clamp(std::round(clean + gauss(rng)), 0.0, 255.0) / 255.0);
      }
      const NoiseEstimate noise = estimate_noise(noisy, shape);
      for (const double sigma_n : {double(kNoiseAuto), 20.0}) {
        SCOPED_TRACE(std::string(name) + (signal_dependent ? ", signal-dependent" : ", white 20") +
                     (sigma_n < 0 ? ", map" : ", sigma-n 20"));
        const FilterSpec spec = learned_with(sigma_n, 1.0);
        RunOptions options;
        options.noise = &noise;
        const FloatImage cpu = run_cpu(spec, noisy, options);
        const FloatImage gpu = run_gpu(spec, noisy, size_t(1) << 30, &noise);
        const Agreement a = agreement(cpu, gpu);
        EXPECT_LE(a.mean, kMeanBound) << a.describe();
        EXPECT_LE(a.p999, kP999Bound) << a.describe();
        const double cpu_psnr = psnr(file.bytes, cpu), gpu_psnr = psnr(file.bytes, gpu);
        EXPECT_NEAR(gpu_psnr, cpu_psnr, 0.02);
        std::printf("learned GPU against CPU, %s%s%s: %s; PSNR %.3f (GPU) %.3f (CPU) dB\n", name,
                    signal_dependent ? ", signal-dependent" : ", white 20", sigma_n < 0 ? ", map" : ", sigma-n 20",
                    a.describe().c_str(), gpu_psnr, cpu_psnr);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 8);
}

// Awkward sizes and every channel count, the map and a given sigma, the
// Denoise front end's multipliers.
TEST(CudaLearnedShort, AgreesWithCpuAtAwkwardSizes) {
  REQUIRE_LEARNED_KERNEL();
  EW_SEEDED_RNG(rng);
  int compared = 0;
  for (const ImageShape& shape : {ImageShape{77, 53, 3}, ImageShape{41, 130, 4}, ImageShape{70, 9, 1},
                                  ImageShape{33, 66, 2}, ImageShape{1, 1, 3}}) {
    const FloatImage image = random_image(rng, shape, {true, Alpha::with_zeros});
    NoiseEstimate noise = white_noise_estimate(12.0, color_channels(shape));
    for (const bool map : {true, false}) {
      SCOPED_TRACE(std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                   std::to_string(shape.channels) + (map ? ", map" : ", sigma-n 12"));
      expect_agrees_with_cpu(learned_with(map ? kNoiseAuto : 12.0, 1.0), image, &noise);
      ++compared;
    }
    noise.luminance_multiplier = 0.5;
    noise.colour_multiplier = 2.0;
    expect_agrees_with_cpu(learned_with(kNoiseAuto, 1.0), image, &noise);
    ++compared;
  }
  EXPECT_EQ(compared, 15);
}

// Any band height gives the GPU's own bits again (every step's output
// depends on its inputs only, not on where a band or tile starts), and
// strength 0 gives the input.
TEST(CudaLearnedShort, BandsGiveTheSameBits) {
  REQUIRE_LEARNED_KERNEL();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {1301, 517, 4});
  const NoiseEstimate noise = white_noise_estimate(15.0, 3);
  const FilterSpec spec = learned_with(kNoiseAuto, 1.0);
  const FloatImage whole = run_gpu(spec, image, size_t(1) << 30, &noise);
  const FloatImage again = run_gpu(spec, image, size_t(1) << 30, &noise);
  EXPECT_TRUE(bit_identical(whole, again)) << max_difference(whole, again).describe();
  // Budgets the whole image does not fit in, as the executor cuts them
  // (asked-for band heights are raised to the GPU's minimum, the whole of
  // an image this small); those too small for the reach are refused, the
  // rest compared, and at least two cuts must be.
  PlanRequest request;
  request.noise = &noise;
  request.noise_auto_flags = {"sigma-n"};
  const std::unique_ptr<Plan> plan = make_plan(resolve_noise(spec, noise), image.shape(), request);
  const auto* provider = find_backend(installed_backends(), "cuda");
  int compared = 0;
  for (const size_t mib : {96, 128, 160, 192, 256, 384}) {
    BackendOptions options;
    options.gpu_memory_budget = mib << 20;
    BandLayout layout;
    try {
      layout = choose_bands(*plan, provider->make(options)->budget(*plan), 0);
    } catch (const BackendError& e) {
      std::printf("learned GPU, %zu MiB: %s\n", mib, e.what());
      continue;
    }
    if (layout.rows >= image.shape().height) continue;
    const FloatImage banded = run_gpu(spec, image, mib << 20, &noise);
    std::printf("learned GPU, %zu MiB: bands of %d rows, %d in flight\n", mib, layout.rows, layout.slots);
    EXPECT_TRUE(bit_identical(whole, banded)) << mib << " MiB: " << max_difference(whole, banded).describe();
    ++compared;
  }
  EXPECT_GE(compared, 2);
  const FloatImage untouched = run_gpu(learned_with(kNoiseAuto, 0.0), image, size_t(1) << 30, &noise);
  EXPECT_TRUE(bit_identical(image, untouched));
}

}  // namespace
