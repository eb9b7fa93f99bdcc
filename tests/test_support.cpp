#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "fourier_design.h"
#include "settings.h"

namespace edgewise_test {

uint64_t test_seed() {
  uint64_t seed;
  if (const char* text = std::getenv("EDGEWISE_TEST_SEED"); text && *text) {
    seed = std::strtoull(text, nullptr, 0);
  } else {
    std::random_device device;
    seed = (uint64_t(device()) << 32) ^ uint64_t(device());
  }
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[   SEED   ] EDGEWISE_TEST_SEED=" << seed;
  if (info) std::cout << " for " << info->test_suite_name() << "." << info->name();
  std::cout << std::endl;
  return seed;
}

std::string seed_message(uint64_t seed) { return "random seed: rerun with EDGEWISE_TEST_SEED=" + std::to_string(seed); }

FloatImage random_image(std::mt19937_64& rng, const ImageShape& shape, const ImageStyle& style) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 1.0);
  FloatImage image(shape);
  const int colors = shape.channels >= 3 ? 3 : 1;
  const bool has_alpha = shape.channels == 2 || shape.channels == 4;

  // Straight edges: half-planes a*x + b*y > c, each shifting every channel
  // by its own step.
  struct Edge {
    double nx, ny, offset, step[3];
  };
  const int edge_count = 1 + int(uniform(rng) * 4);
  std::vector<Edge> edges(static_cast<size_t>(edge_count));
  for (auto& edge : edges) {
    const double angle = uniform(rng) * 6.283185307179586;
    edge.nx = std::cos(angle);
    edge.ny = std::sin(angle);
    edge.offset = (uniform(rng) - 0.5) * 0.8;
    for (double& step : edge.step) step = (uniform(rng) - 0.5) * 0.7;
  }
  struct Channel {
    double base, gx, gy, ripple, fx, fy, phase, noise;
  };
  Channel channel[3];
  for (auto& ch : channel)
    ch = {0.25 + 0.5 * uniform(rng), (uniform(rng) - 0.5) * 0.6, (uniform(rng) - 0.5) * 0.6,
          0.1 * uniform(rng),        1 + 6 * uniform(rng),       1 + 6 * uniform(rng),
          6.3 * uniform(rng),        0.005 + 0.04 * uniform(rng)};

  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x) {
      const double u = (x + 0.5) / shape.width - 0.5, v = (y + 0.5) / shape.height - 0.5;
      const bool salt = uniform(rng) < 0.01;
      for (int c = 0; c < colors; ++c) {
        const Channel& ch = channel[c];
        double value =
            ch.base + ch.gx * u + ch.gy * v + ch.ripple * std::sin(ch.fx * u * 6.28 + ch.fy * v * 6.28 + ch.phase);
        for (const auto& edge : edges)
          if (edge.nx * u + edge.ny * v > edge.offset) value += edge.step[c];
        value += ch.noise * noise(rng);
        if (salt) value = uniform(rng);
        value = std::clamp(value, 0.0, 1.0);
        if (style.quantize_8bit) value = std::round(value * 255.0) / 255.0;
        image.at(x, y, c) = float(value);
      }
      if (!has_alpha) continue;
      double alpha = 1.0;
      if (style.alpha == Alpha::positive) {
        alpha = std::clamp(0.6 + 0.4 * std::sin(3 * u + 5 * v) + 0.2 * noise(rng), 0.05, 1.0);
      } else if (style.alpha == Alpha::with_zeros) {
        const double pick = uniform(rng);
        alpha = pick < 0.2 ? 0.0 : pick < 0.3 ? 1.0 : uniform(rng);
      }
      image.at(x, y, colors) = float(alpha);
    }
  return image;
}

FloatImage constant_image(const ImageShape& shape, const float* pixel) {
  FloatImage image(shape);
  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x)
      for (int c = 0; c < shape.channels; ++c) image.at(x, y, c) = pixel[c];
  return image;
}

FloatImage transparent_centre_image(float far) {
  FloatImage image({3, 3, 4});
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) {
      const float v = (x == 2 && y == 2) ? far : 1.0f;
      for (int c = 0; c < 3; ++c) image.at(x, y, c) = v;
      image.at(x, y, 3) = 1.0f;
    }
  for (int c = 0; c < 4; ++c) image.at(1, 1, c) = 0.0f;
  return image;
}

AdaptiveParameters variance_only_adaptive() {
  AdaptiveParameters parameters;
  parameters.adapt_k = 1.0f;
  parameters.adapt_eps = 0.0f;
  parameters.adapt_min = 0.002f;
  return parameters;
}

FilterSpec make_spec(edgewise::ColorMode mode, edgewise::RangeKernel kernel, float sigma_s, float sigma_r, int radius,
                     int iterations) {
  BilateralParameters p;
  p.mode = mode;
  p.kernel = kernel;
  p.sigma_s = sigma_s;
  p.sigma_r = sigma_r;
  p.radius = radius;
  p.iterations = iterations;
  return edgewise::bilateral_spec(p);
}

FilterSpec adaptive_of(const FilterSpec& spec, const AdaptiveParameters& adaptive) {
  return edgewise::adaptive_spec(bilateral_of(spec), adaptive);
}

std::string describe(const FilterSpec& spec, const ImageShape& shape) {
  std::ostringstream out;
  edgewise::Settings settings;
  settings.spec = spec;
  out << shape.width << "x" << shape.height << "x" << shape.channels << " " << edgewise::format_arguments(settings);
  return out.str();
}

ReferenceImage to_reference(const FloatImage& image) {
  ReferenceImage ref;
  ref.width = image.shape().width;
  ref.height = image.shape().height;
  ref.channels = image.shape().channels;
  ref.samples.assign(image.pixels().begin(), image.pixels().end());
  return ref;
}

edgewise_reference::BilateralSettings reference_settings(const FilterSpec& spec) {
  using edgewise::ColorMode;
  using edgewise::RangeKernel;
  using edgewise_reference::Kernel;
  using edgewise_reference::Mode;
  edgewise_reference::BilateralSettings settings;
  const BilateralParameters p = bilateral_of(spec);
  switch (p.mode) {
    case ColorMode::per_channel:
      settings.mode = Mode::per_channel;
      break;
    case ColorMode::rgb:
      settings.mode = Mode::rgb;
      break;
    case ColorMode::lab:
      settings.mode = Mode::lab;
      break;
  }
  switch (p.kernel) {
    case RangeKernel::gaussian:
      settings.kernel = Kernel::gaussian;
      break;
    case RangeKernel::tukey:
      settings.kernel = Kernel::tukey;
      break;
    case RangeKernel::lorentz:
      settings.kernel = Kernel::lorentz;
      break;
    case RangeKernel::huber:
      settings.kernel = Kernel::huber;
      break;
  }
  settings.sigma_s = double(p.sigma_s);
  settings.sigma_r = double(p.sigma_r);
  settings.radius = p.radius;
  settings.iterations = p.iterations;
  settings.linear = p.working_space == edgewise::WorkingSpace::linear;
  settings.adaptive = spec.has("adapt-k");
  if (settings.adaptive) {
    const AdaptiveParameters a = edgewise::adaptive_parameters(spec);
    settings.adapt_k = double(a.adapt_k);
    settings.adapt_eps = double(a.adapt_eps);
    settings.adapt_min = double(a.adapt_min);
    settings.adapt_max = double(a.adapt_max);
  }
  return settings;
}

ReferenceImage run_reference(const FilterSpec& spec, const FloatImage& image) {
  return edgewise_reference::bilateral_reference(to_reference(image), reference_settings(spec));
}

edgewise_reference::NlmSettings reference_settings(const NlmParameters& n) {
  edgewise_reference::NlmSettings s;
  s.mode = n.mode == edgewise::ColorMode::per_channel ? edgewise_reference::Mode::per_channel
           : n.mode == edgewise::ColorMode::rgb       ? edgewise_reference::Mode::rgb
                                                      : edgewise_reference::Mode::lab;
  s.kernel = static_cast<edgewise_reference::Kernel>(static_cast<int>(n.kernel));
  s.search_radius = n.search_radius;
  s.patch_radius = n.patch_radius;
  s.h = n.h;
  s.sigma_n = n.sigma_n;
  s.sigma_s = n.sigma_s;
  s.sigma_r = n.sigma_r;
  return s;
}

ReferenceImage run_reference(const NlmParameters& n, const FloatImage& image) {
  return edgewise_reference::nlm_reference(to_reference(image), reference_settings(n));
}

edgewise::NoiseEstimate signal_dependent_noise(std::mt19937_64& rng, int channels) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  edgewise::NoiseEstimate noise;
  for (int c = 0; c < channels; ++c) {
    edgewise::ChannelNoise channel;
    const double floor = 2.0 + 6.0 * unit(rng), gain = 0.5 + 6.0 * unit(rng);  // variance floor + gain * I
    double intensity = 10.0 * unit(rng);
    for (int b = 0; b < 8; ++b) {
      edgewise::NoiseLevelBin bin;
      bin.intensity = intensity;
      bin.sigma = std::sqrt(floor * floor + gain * intensity);
      bin.blocks = 100;
      bin.valid = b == 0 || unit(rng) > 0.25;
      channel.bins.push_back(bin);
      intensity += 5.0 + 40.0 * unit(rng);
    }
    channel.valid = true;
    channel.sigma = channel.sigma_at(128.0);
    noise.channels.push_back(channel);
  }
  return noise;
}

// The reference resolves auto itself (nlm_auto_settings, the documented
// rule): only the spec's explicit values and the estimate's numbers come
// from here, never core's resolve_noise.
edgewise_reference::NlmSettings reference_settings(const FilterSpec& spec, const edgewise::NoiseEstimate& noise) {
  edgewise_reference::NlmSettings s = reference_settings(edgewise::nlm_parameters(spec));
  std::vector<edgewise_reference::NoiseChannelInput> input;
  for (const edgewise::ChannelNoise& channel : noise.channels) {
    edgewise_reference::NoiseChannelInput c;
    c.valid = channel.valid;
    c.sigma = channel.sigma;
    for (const edgewise::NoiseLevelBin& bin : channel.bins)
      if (bin.valid) c.points.emplace_back(bin.intensity, bin.sigma);
    input.push_back(c);
  }
  auto is_auto = [&](const char* flag) { return spec.get(flag) == edgewise::kNoiseAuto; };
  return edgewise_reference::nlm_auto_settings(s, is_auto("h"), is_auto("sigma-n"), is_auto("sigma-r"), input);
}

NlmParameters nlm_sweep_case(edgewise::ColorMode mode, edgewise::RangeKernel kernel, int index, int search_radius,
                             int patch_radius) {
  NlmParameters n;
  n.mode = mode;
  n.kernel = kernel;
  n.search_radius = search_radius;
  n.patch_radius = patch_radius;
  n.h = index % 5 == 0 ? 0.0f : mode == edgewise::ColorMode::lab ? 4.0f : 12.0f;
  n.sigma_n = float(index % 3) * 3.0f;
  n.sigma_s = index % 2 ? 2.0f : 100.0f;
  n.sigma_r = index % 4 == 1 ? 100000.0f : mode == edgewise::ColorMode::lab ? 15.0f : 40.0f;
  return n;
}

// From the plan only the design's choices (each channel's range, the
// period, the term count); the reference computes the coefficients and
// the window itself.
edgewise_reference::FourierSettings reference_settings(const FourierParameters& f, const ImageShape& shape) {
  const auto plan = edgewise::make_plan(edgewise::fourier_spec(f), shape);
  const auto& fp = static_cast<const edgewise::FourierPlan&>(*plan);
  edgewise_reference::FourierSettings s;
  s.mode = f.mode == edgewise::ColorMode::lab ? edgewise_reference::Mode::lab : edgewise_reference::Mode::per_channel;
  s.sigma_s = double(f.sigma_s);
  for (int c = 0; c < fp.params.color_channels; ++c)
    s.channels.push_back(edgewise_reference::fourier_series_reference(
        static_cast<edgewise_reference::Kernel>(static_cast<int>(f.kernel)), double(f.sigma_r),
        fp.params.channel[c].low, fp.params.channel[c].high, fp.period[c], fp.params.terms));
  s.min_denominator = fp.params.min_denominator;
  s.denominator_floor = fp.params.denominator_floor;
  return s;
}

std::string describe(const FourierParameters& f, const ImageShape& shape) {
  edgewise::Settings settings;
  settings.spec = edgewise::fourier_spec(f);
  return std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" + std::to_string(shape.channels) + " " +
         edgewise::format_arguments(settings);
}

FourierParameters fourier_sweep_case(edgewise::ColorMode mode, edgewise::RangeKernel kernel, int index,
                                     const std::vector<float>& sigmas, int terms) {
  FourierParameters f;
  f.mode = mode;
  f.kernel = kernel;
  f.sigma_s = sigmas[size_t(index) % sigmas.size()];
  f.sigma_r = mode == edgewise::ColorMode::lab ? (index % 2 ? 8.0f : 20.0f) : (index % 3 == 0 ? 10.0f : 40.0f);
  f.terms = index % 5 == 4 ? terms : 0;
  return f;
}

ImageShape fourier_sweep_shape(int index, int channels) {
  const ImageShape sizes[] = {{1, 1, 3}, {1, 23, 4}, {29, 1, 1}, {13, 7, 2}, {37, 19, 3}, {45, 33, 4}, {70, 9, 3}};
  ImageShape shape = sizes[size_t(index) % (sizeof sizes / sizeof sizes[0])];
  shape.channels = channels;
  return shape;
}

std::string describe(const NlmParameters& n, const ImageShape& shape) {
  using edgewise::to_string;
  return std::string("nlm ") + to_string(n.mode) + " " + to_string(n.kernel) + " S=" + std::to_string(n.search_radius) +
         " f=" + std::to_string(n.patch_radius) + " h=" + std::to_string(n.h) +
         " sigma-n=" + std::to_string(n.sigma_n) + " sigma-s=" + std::to_string(n.sigma_s) +
         " sigma-r=" + std::to_string(n.sigma_r) + " on " + std::to_string(shape.width) + "x" +
         std::to_string(shape.height) + "x" + std::to_string(shape.channels);
}

// The levels from the plan (pyramid_levels, checked against hand-counted
// sizes in test_pyramid); the per-level sigma-r and passes the reference
// derives itself.
edgewise_reference::PyramidSettings reference_settings(const PyramidParameters& p, const ImageShape& shape) {
  const auto plan = edgewise::make_plan(edgewise::pyramid_spec(p), shape);
  const auto& pp = static_cast<const edgewise::PyramidPlan&>(*plan);
  edgewise_reference::PyramidSettings s;
  s.mode = static_cast<edgewise_reference::Mode>(static_cast<int>(p.mode));
  s.kernel = static_cast<edgewise_reference::Kernel>(static_cast<int>(p.kernel));
  s.sigma_s = p.sigma_s;
  s.radius = p.radius > 0 ? p.radius : int(std::ceil(2.0 * double(p.sigma_s)));
  s.levels = pp.levels;
  s.gaussian_guide = p.guide == edgewise::PyramidGuide::gaussian;
  s.sigma_r = p.sigma_r;
  s.strength = p.strength;
  s.coarse_strength = p.coarse_strength;
  s.luma_strength = p.luma_strength;
  s.chroma_strength = p.chroma_strength;
  return s;
}

std::string describe(const PyramidParameters& p, const ImageShape& shape) {
  edgewise::Settings settings;
  settings.spec = edgewise::pyramid_spec(p);
  return std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" + std::to_string(shape.channels) + " " +
         edgewise::format_arguments(settings);
}

PyramidParameters pyramid_sweep_case(edgewise::ColorMode mode, edgewise::RangeKernel kernel, int index, int levels) {
  using edgewise::PyramidGuide;
  PyramidParameters p;
  p.mode = mode;
  p.kernel = kernel;
  p.levels = levels;
  p.sigma_s = index % 2 ? 1.0f : 2.0f;
  p.radius = index % 3 == 0 ? 1 : 0;
  p.sigma_r = mode == edgewise::ColorMode::lab ? 12.0f : 30.0f;
  p.strength = 0.5f + 0.25f * float(index % 5);
  p.coarse_strength = index % 3 == 1 ? 2.0f : 1.0f;
  p.guide = index % 2 ? PyramidGuide::gaussian : PyramidGuide::laplacian;
  p.luma_strength = index % 7 == 0 ? 0.0f : index % 3 == 0 ? 0.5f : 1.0f;
  p.chroma_strength = index % 11 == 0 ? 0.0f : index % 4 == 0 ? 2.0f : 1.0f;
  return p;
}

FloatImage run_cpu_buffers(const FilterSpec& spec, const FloatImage& image) {
  FloatImage output(image.shape());
  edgewise::RunOptions options;
  options.backend = "cpu";
  const edgewise::ImageBuffer in{const_cast<float*>(image.pixels().data()), image.shape(), edgewise::SampleType::f32,
                                 0};
  const edgewise::ImageBuffer out{output.pixels().data(), image.shape(), edgewise::SampleType::f32, 0};
  edgewise::run_filter(spec, in, out, options);
  return output;
}

FloatImage run_cpu(const FilterSpec& spec, const FloatImage& image, edgewise::RunOptions options) {
  options.backend = "cpu";
  FloatImage source = image;
  FloatImage output(image.shape());
  const edgewise::RunReport report = edgewise::run_filter(spec, image.shape(), source, output, options);
  EXPECT_EQ(report.backend.rfind("cpu", 0), 0u) << "ran on " << report.backend;
  EXPECT_TRUE(report.fallback_reason.empty()) << report.fallback_reason;
  return output;
}

std::string gpu_unavailable_reason() {
  std::string why;
  return edgewise::find_backend(edgewise::installed_backends(), "cuda")->usable(why) ? std::string() : why;
}

FloatImage run_gpu(const FilterSpec& spec, const FloatImage& image, size_t budget,
                   const edgewise::NoiseEstimate* noise) {
  edgewise::RunOptions options;
  options.noise = noise;
  options.backend = "cuda";
  options.backend_options.gpu_memory_budget = budget;
  FloatImage source = image, output(image.shape());
  edgewise::run_filter(spec, image.shape(), source, output, options);
  return output;
}

FloatImage run_gpu_buffers(const FilterSpec& spec, const FloatImage& image, size_t budget) {
  edgewise::RunOptions options;
  options.backend = "cuda";
  options.backend_options.gpu_memory_budget = budget;
  FloatImage output(image.shape());
  const edgewise::ImageBuffer in{const_cast<float*>(image.pixels().data()), image.shape(), edgewise::SampleType::f32,
                                 0};
  const edgewise::ImageBuffer out{output.pixels().data(), image.shape(), edgewise::SampleType::f32, 0};
  edgewise::run_filter(spec, in, out, options);
  return output;
}

std::string Difference::describe() const {
  std::ostringstream out;
  out.precision(9);
  out << "max |difference| " << max_abs << " at x=" << x << " y=" << y << " channel " << c << ": expected " << expected
      << ", got " << got;
  return out.str();
}

template <class Expected>
static Difference compare(const Expected& expected, const FloatImage& got, int width, int channels) {
  Difference diff;
  const auto& samples = got.pixels();
  if (expected.size() != samples.size()) {
    diff.max_abs = INFINITY;
    return diff;
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    const double e = double(expected[i]), g = double(samples[i]);
    const double d = std::fabs(e - g);
    // NaN anywhere is the worst difference there is.
    if (d > diff.max_abs || std::isnan(d)) {
      diff.max_abs = std::isnan(d) ? INFINITY : d;
      diff.c = int(i % size_t(channels));
      diff.x = int((i / size_t(channels)) % size_t(width));
      diff.y = int(i / size_t(channels) / size_t(width));
      diff.expected = e;
      diff.got = g;
    }
  }
  return diff;
}

Difference max_difference(const ReferenceImage& expected, const FloatImage& got) {
  EXPECT_EQ(expected.samples.size(), got.pixels().size());
  return compare(expected.samples, got, got.shape().width, got.shape().channels);
}

Difference max_difference(const FloatImage& expected, const FloatImage& got) {
  EXPECT_EQ(expected.pixels().size(), got.pixels().size());
  return compare(expected.pixels(), got, got.shape().width, got.shape().channels);
}

bool bit_identical(const FloatImage& a, const FloatImage& b) {
  return a.pixels().size() == b.pixels().size() &&
         std::memcmp(a.pixels().data(), b.pixels().data(), a.pixels().size() * sizeof(float)) == 0;
}

std::string Comparison::describe() const {
  std::ostringstream out;
  out << worst.describe() << "; reference window there, first pass: total weight " << window_weight
      << ", largest tap weight " << largest_tap;
  return out.str();
}

namespace {

// The reference pass by pass, so a window is judged in the pass it was in.
std::vector<ReferenceImage> reference_passes(const FilterSpec& spec, const FloatImage& input,
                                             edgewise_reference::BilateralSettings& one_pass) {
  one_pass = reference_settings(spec);
  one_pass.iterations = 1;
  std::vector<ReferenceImage> passes{to_reference(input)};
  for (int i = 0; i < bilateral_of(spec).iterations; ++i)
    passes.push_back(edgewise_reference::bilateral_reference(passes.back(), one_pass));
  return passes;
}

template <class Expected>
Comparison compare(const FilterSpec& spec, const FloatImage& input, const Expected& expected, const FloatImage& got,
                   double tolerance) {
  Comparison result;
  const ImageShape& shape = input.shape();
  if (got.pixels().size() != input.pixels().size()) {
    result.worst.max_abs = INFINITY;
    return result;
  }
  edgewise_reference::BilateralSettings one_pass;
  std::vector<ReferenceImage> passes;  // computed only to explain a failure
  const int channels = shape.channels;

  for (int y = 0; y < shape.height; ++y)
    for (int x = 0; x < shape.width; ++x)
      for (int c = 0; c < channels; ++c) {
        const double e = expected(x, y, c), g = got.at(x, y, c);
        const double d = std::isnan(g) || std::isnan(e) ? INFINITY : std::fabs(e - g);
        if (d > tolerance && d > result.worst.max_abs) result.worst = Difference{d, x, y, c, e, g};
      }
  if (result.worst.max_abs > tolerance) {
    if (passes.empty()) passes = reference_passes(spec, input, one_pass);
    const auto weights =
        edgewise_reference::window_weights(passes.front(), one_pass, result.worst.x, result.worst.y, result.worst.c);
    result.window_weight = weights.sum;
    result.largest_tap = weights.largest;
  }
  return result;
}

}  // namespace

Comparison compare_with_reference(const FilterSpec& spec, const FloatImage& input, const FloatImage& got,
                                  double tolerance) {
  const ReferenceImage expected = run_reference(spec, input);
  return compare(
      spec, input, [&](int x, int y, int c) { return expected.at(x, y, c); }, got, tolerance);
}

Comparison compare_backends(const FilterSpec& spec, const FloatImage& input, const FloatImage& expected,
                            const FloatImage& got, double tolerance) {
  if (expected.pixels().size() != got.pixels().size()) {
    Comparison result;
    result.worst.max_abs = INFINITY;
    return result;
  }
  return compare(
      spec, input, [&](int x, int y, int c) { return double(expected.at(x, y, c)); }, got, tolerance);
}

}  // namespace edgewise_test
