// The CUDA backend against the double reference and against the CPU
// backend. Built everywhere; where no usable GPU exists every test reports
// itself skipped with the reason (CI has none; tests/gpu/run.sh runs these
// on the GPU machine).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nlbayes.h"
#include "test_support.h"

namespace {

using namespace edgewise;
using namespace edgewise_test;

// Both GPU pipelines (streamed floats, whole buffers) against the double
// reference, within 1e-4 on 0..1 values.
void expect_gpu_matches_reference(const FilterSpec& spec, const FloatImage& image) {
  SCOPED_TRACE(describe(spec, image.shape()));
  const ReferenceImage expected = run_reference(spec, image);
  const Difference streamed = max_difference(expected, run_gpu(spec, image));
  EXPECT_LE(streamed.max_abs, 1e-4) << streamed.describe();
  const Difference buffered = max_difference(expected, run_gpu_buffers(spec, image));
  EXPECT_LE(buffered.max_abs, 1e-4) << buffered.describe();
}

TEST(CudaBackend, MatchesReferenceEveryModeKernelRadius) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 4}, {1, 37, 3}, {41, 1, 4}, {13, 7, 4}, {31, 17, 3}, {61, 47, 2}, {37, 29, 1}};
  int case_index = 0;
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int radius = 0; radius <= 32; ++radius) {
        const ImageShape shape = sizes[size_t(case_index++) % (sizeof sizes / sizeof sizes[0])];
        const FilterSpec spec = make_spec(mode, kernel, radius ? radius / 2.0f + 0.3f : 1.7f,
                                          mode == ColorMode::lab ? 12.0f : 35.0f, radius);
        expect_gpu_matches_reference(spec, random_image(rng, shape));
      }
}

// The joint Gaussian takes the expanded form where sigma-r allows it, the
// direct form elsewhere (cuda/bilateral.cu, bilateral_math.h's
// expanded_form_allowed), and recomputes pixels outside the nominal range
// exactly: sigma-r from small to large, low-contrast noise beside
// full-range noise, samples past 0 and 1, with and without alpha.
TEST(CudaBackend, ExpandedAndDirectFormsMatchReference) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  for (int channels : {3, 4}) {
    FloatImage image = random_image(rng, {97, 141, channels});
    for (int y = 0; y < 100; ++y)  // the top 100 rows: within +-0.03 of grey
      for (int x = 0; x < 97; ++x)
        for (int c = 0; c < 3; ++c) image.at(x, y, c) = 0.5f + 0.06f * (image.at(x, y, c) - 0.5f);
    FloatImage wide = image;  // float samples outside 0..1 among the others (rgb mode)
    for (int y = 110; y < 141; y += 3)
      for (int x = y % 5; x < 97; x += 7) wide.at(x, y, x % 3) = x % 2 ? 1.6f : -0.4f;
    for (ColorMode mode : {ColorMode::rgb, ColorMode::lab})
      for (float sigma_r : {3.0f, 12.0f, 40.0f, 150.0f})
        for (int radius : {3, 7})
          expect_gpu_matches_reference(make_spec(mode, RangeKernel::gaussian, radius / 2.0f,
                                                 mode == ColorMode::lab ? sigma_r / 2 : sigma_r, radius),
                                       mode == ColorMode::rgb ? wide : image);
  }
}

TEST(CudaBackend, WideRadiusBeyondTiledKernel) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {83, 71, 4});
  for (ColorMode mode : kModes) {
    const FilterSpec spec = make_spec(mode, RangeKernel::gaussian, 20.0f, 40.0f, 40);
    SCOPED_TRACE(describe(spec, image.shape()));
    const Difference d = max_difference(run_reference(spec, image), run_gpu(spec, image));
    EXPECT_LE(d.max_abs, 1e-4) << d.describe();
  }
}

TEST(CudaBackend, IterationsMatchReference) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {47, 39, 4});
  for (int iterations : {2, 3}) {
    const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 2.0f, 25.0f, 0, iterations);
    const Difference d = max_difference(run_reference(spec, image), run_gpu(spec, image));
    EXPECT_LE(d.max_abs, 1e-4) << d.describe();
  }
}

// The linear working space: decoded and encoded around each pass on the
// GPU as on the CPU, against the reference in linear light; plain and
// adaptive, one and two passes, every layout, and a radius beyond the tiles.
TEST(CudaBackend, LinearWorkingSpaceMatchesReference) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  int case_index = 0;
  for (ColorMode mode : kModes)
    for (int channels = 1; channels <= 4; ++channels)
      for (int radius : {3, 40}) {
        FilterSpec spec = make_spec(mode, RangeKernel::gaussian, radius / 2.0f, mode == ColorMode::lab ? 12.0f : 30.0f,
                                    radius, 1 + case_index++ % 2);
        if (radius < 32 && case_index % 3 == 0) spec = adaptive_of(spec);
        ASSERT_EQ(set_param(spec, "working-space", std::string("linear")), "");
        expect_gpu_matches_reference(spec, random_image(rng, {radius < 32 ? 37 : 83, 29, channels}));
      }
}

TEST(CudaBackend, AgreesWithCpuOn24Megapixels) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {6000, 4000, 4}, {false, Alpha::positive});
  for (ColorMode mode : kModes) {
    const FilterSpec spec = make_spec(mode, RangeKernel::gaussian, 3.5f, mode == ColorMode::lab ? 10.0f : 30.0f, 7);
    SCOPED_TRACE(describe(spec, image.shape()));
    const Difference d = max_difference(run_cpu(spec, image), run_gpu_buffers(spec, image));
    EXPECT_LE(d.max_abs, 1e-4) << d.describe();
  }
}

TEST(CudaBackend, BandSizeDoesNotChangeOutput) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {509, 1031, 4});
  for (ColorMode mode : kModes)
    for (int iterations : {1, 3}) {
      const FilterSpec spec = make_spec(mode, RangeKernel::gaussian, 3.0f, 20.0f, 9, iterations);
      SCOPED_TRACE(describe(spec, image.shape()));
      const FloatImage whole = run_gpu(spec, image);
      // 6 MiB: a few dozen rows per band; 24 MiB: a few hundred.
      EXPECT_TRUE(bit_identical(whole, run_gpu(spec, image, size_t(6) << 20)));
      EXPECT_TRUE(bit_identical(whole, run_gpu(spec, image, size_t(24) << 20)));
      if (iterations == 1) {
        EXPECT_TRUE(bit_identical(whole, run_gpu_buffers(spec, image)));
        EXPECT_TRUE(bit_identical(whole, run_gpu_buffers(spec, image, size_t(6) << 20)));
      }
    }
}

TEST(CudaBackend, EightBitBuffersAgreeWithCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const ImageShape shape{1023, 769, 4};
  std::vector<uint8_t> in(size_t(shape.width) * shape.height * 4), gpu_out(in.size()), cpu_out(in.size());
  for (auto& v : in) v = uint8_t(rng() & 0xff);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 3.5f, 30.0f, 7);
  for (const std::string backend : {"cuda", "cpu"}) {
    RunOptions options;
    options.backend = backend;
    const ImageBuffer src{in.data(), shape, SampleType::u8, 0};
    const ImageBuffer dst{(backend == "cuda" ? gpu_out : cpu_out).data(), shape, SampleType::u8, 0};
    run_filter(spec, src, dst, options);
  }
  int worst = 0;
  for (size_t i = 0; i < in.size(); ++i) worst = std::max(worst, std::abs(int(gpu_out[i]) - int(cpu_out[i])));
  EXPECT_LE(worst, 1);
}

// The failure-injection wrapper makes the GPU fail part-way through a job,
// after its first band has reached the output as garbage: for real on a GPU
// machine (an impossible allocation, an invalid launch), through a
// simulated device elsewhere, so this runs in CI too. auto must rerun on the
// CPU and leave exactly the CPU result; cuda must report the failure.
TEST(GpuFallback, InjectedFailureRerunsOnCpu) {
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {257, 301, 4});
  const FilterSpec spec = make_spec(ColorMode::lab, RangeKernel::gaussian, 2.5f, 10.0f, 6);
  const FloatImage cpu = run_cpu(spec, image);
  for (const char* failure : {"oom", "launch"}) {
    SCOPED_TRACE(failure);
    const BackendList failing = with_injected_failure(installed_backends(), parse_injected_failure(failure));
    for (bool buffers : {false, true}) {
      RunOptions options;
      options.backends = &failing;
      options.band_rows = 16;
      options.backend_options.gpu_memory_budget = size_t(4) << 20;  // several bands
      std::vector<std::string> notices;
      options.notice = [&](const std::string& message) { notices.push_back(message); };
      FloatImage source = image, output(image.shape());
      RunReport report;
      if (buffers) {
        const ImageBuffer in{source.pixels().data(), image.shape(), SampleType::f32, 0};
        const ImageBuffer out{output.pixels().data(), image.shape(), SampleType::f32, 0};
        report = run_filter(spec, in, out, options);
      } else {
        report = run_filter(spec, image.shape(), source, output, options);
      }
      EXPECT_FALSE(report.fallback_reason.empty());
      EXPECT_NE(report.backend.find("cpu"), std::string::npos) << report.backend;
      ASSERT_EQ(notices.size(), 1u);
      EXPECT_NE(notices[0].find("rerunning on the CPU"), std::string::npos) << notices[0];
      EXPECT_TRUE(bit_identical(cpu, output)) << "the output holds more than the CPU's result";

      options.backend = "cuda";
      EXPECT_THROW(run_filter(spec, image.shape(), source, output, options), BackendError);
    }
  }
}

// A filter family the CUDA backend has no kernel for (nlbayes, issue 27's
// CPU part): auto runs it on the CPU with a notice and no error; naming the
// CUDA backend is an error that says why.
TEST(GpuFallback, FilterWithoutCudaKernelRunsOnCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {67, 45, 3});
  NlBayesParameters parameters;
  parameters.sigma_n = 12.0f;
  const FilterSpec spec = nlbayes_spec(parameters);
  RunOptions options;  // backend "auto"
  std::vector<std::string> notices;
  options.notice = [&](const std::string& message) { notices.push_back(message); };
  FloatImage source = image, output(image.shape());
  const RunReport report = run_filter(spec, image.shape(), source, output, options);
  EXPECT_EQ(report.backend.rfind("cpu", 0), 0u) << report.backend;
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("no kernel for the nlbayes filters"), std::string::npos) << notices[0];
  EXPECT_TRUE(bit_identical(run_cpu(spec, image), output));
  options.backend = "cuda";
  EXPECT_THROW(run_filter(spec, image.shape(), source, output, options), BackendError);
}

FilterSpec adaptive(const FilterSpec& spec) {
  AdaptiveParameters parameters;
  parameters.adapt_k = 0.8f;
  parameters.adapt_eps = 0.02f;
  return adaptive_of(spec, parameters);
}

TEST(CudaAdaptive, MatchesReferenceEveryModeKernelRadius) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const ImageShape sizes[] = {{1, 1, 4}, {1, 29, 3}, {37, 1, 2}, {13, 7, 4}, {31, 17, 3}, {41, 33, 1}};
  int case_index = 0;
  for (ColorMode mode : kModes)
    for (RangeKernel kernel : kKernels)
      for (int radius : {0, 1, 2, 3, 5, 8, 13, 21, 32}) {
        const ImageShape shape = sizes[size_t(case_index++) % (sizeof sizes / sizeof sizes[0])];
        const FilterSpec spec = adaptive(make_spec(mode, kernel, radius ? radius / 2.0f + 0.3f : 1.7f,
                                                   mode == ColorMode::lab ? 12.0f : 35.0f, radius));
        expect_gpu_matches_reference(spec, random_image(rng, shape));
      }
}

// The first walk's weights underflow around a transparent centre
// (tests/test_adaptive.cpp's UnderflowingFirstWalkMatchesReference): the
// kernel recomputes that walk with core's rescue_statistics.
TEST(CudaAdaptive, UnderflowingFirstWalkMatchesReference) {
  REQUIRE_GPU();
  const AdaptiveParameters parameters = variance_only_adaptive();
  for (float far : {0.25f, 0.5f})
    for (float sigma_r : {2.0f, 0.5f})
      for (ColorMode mode : kModes) {
        const FilterSpec spec =
            adaptive_of(make_spec(mode, RangeKernel::gaussian, 1.0f, mode == ColorMode::lab ? sigma_r / 2 : sigma_r, 1),
                        parameters);
        expect_gpu_matches_reference(spec, transparent_centre_image(far));
      }
}

TEST(CudaAdaptive, ZeroKEqualsPlainAndAgreesWithCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const FloatImage image = random_image(rng, {301, 257, 4});
  for (ColorMode mode : kModes) {
    const FilterSpec spec = adaptive(make_spec(mode, RangeKernel::gaussian, 2.5f, 25.0f, 7));
    SCOPED_TRACE(describe(spec, image.shape()));
    const FloatImage gpu = run_gpu(spec, image);
    EXPECT_LE(max_difference(run_cpu(spec, image), gpu).max_abs, 1e-4);
    EXPECT_TRUE(bit_identical(gpu, run_gpu(spec, image, size_t(6) << 20)));  // bands
    AdaptiveParameters zero_k;
    zero_k.adapt_k = 0.0f;
    zero_k.adapt_min = 0.08f;
    const float unit = mode == ColorMode::lab ? 100.0f : 255.0f;
    const FilterSpec plain = make_spec(mode, RangeKernel::gaussian, 2.5f, zero_k.adapt_min * unit, 7);
    // The same coefficient (range_coefficient_for), so a ratio of exactly 1,
    // but the plain Gaussian's FMA chain against the adaptive q = ratio * d^2
    // (tests/test_adaptive.cpp says why): within the float paths' 1e-4.
    EXPECT_LE(max_difference(run_gpu(plain, image), run_gpu(adaptive_of(plain, zero_k), image)).max_abs, 1e-4);
  }
}

// The adaptive filter's sigma map from the GPU's own kernel (the variant
// that writes it), against the double reference and the CPU.
TEST(CudaAdaptive, SigmaOutputMatchesReferenceAndCpu) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : kModes)
    for (int channels : {1, 3, 4}) {
      const ImageShape shape{67, 43, channels};
      const FloatImage image = random_image(rng, shape, {false, Alpha::positive});
      const FilterSpec spec = adaptive(make_spec(mode, RangeKernel::gaussian, 1.6f, 22.0f, 0, 2));
      SCOPED_TRACE(describe(spec, shape));
      const ImageShape sigma_shape = output_shape(spec, shape, "sigma");
      FloatImage sigma[2] = {FloatImage(sigma_shape), FloatImage(sigma_shape)};
      FloatImage output[2] = {FloatImage(shape), FloatImage(shape)};
      for (int side = 0; side < 2; ++side) {
        RunOptions options;
        options.backend = side == 0 ? "cpu" : "cuda";
        options.backend_options.gpu_memory_budget = size_t(8) << 20;  // bands
        run_filter(spec, {const_cast<float*>(image.pixels().data()), shape, SampleType::f32, 0},
                   {output[side].pixels().data(), shape, SampleType::f32, 0}, options,
                   {{"sigma", {sigma[side].pixels().data(), sigma_shape, SampleType::f32, 0}}});
      }
      const Difference reference = max_difference(
          edgewise_reference::adaptive_sigma_reference(to_reference(image), reference_settings(spec)), sigma[1]);
      EXPECT_LE(reference.max_abs, 1e-4) << reference.describe();
      EXPECT_LE(max_difference(sigma[0], sigma[1]).max_abs, 1e-4);
      EXPECT_LE(max_difference(output[0], output[1]).max_abs, 1e-4);
      EXPECT_TRUE(bit_identical(output[1], run_gpu_buffers(spec, image)))
          << "writing the sigma map changed the filtered image";
    }
}

// Iterations run as passes within each band on the device, from raw 8-bit
// rows, in place too.
TEST(CudaBackend, IterationsFromEightBitBuffersInPlace) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  const ImageShape shape{311, 523, 4};
  std::vector<uint8_t> in(size_t(shape.width) * shape.height * 4);
  for (auto& v : in) v = uint8_t(rng() & 0xff);
  const FilterSpec spec = make_spec(ColorMode::lab, RangeKernel::tukey, 2.0f, 14.0f, 0, 3);
  std::vector<uint8_t> cpu(in.size()), gpu(in.size()), in_place = in;
  RunOptions options;
  options.backend = "cpu";
  run_filter(spec, {in.data(), shape, SampleType::u8, 0}, {cpu.data(), shape, SampleType::u8, 0}, options);
  options.backend = "cuda";
  options.backend_options.gpu_memory_budget = size_t(16) << 20;  // several bands
  run_filter(spec, {in.data(), shape, SampleType::u8, 0}, {gpu.data(), shape, SampleType::u8, 0}, options);
  const ImageBuffer buffer{in_place.data(), shape, SampleType::u8, 0};
  run_filter(spec, buffer, buffer, options);
  EXPECT_EQ(in_place, gpu);
  int worst = 0;
  for (size_t i = 0; i < in.size(); ++i) worst = std::max(worst, std::abs(int(gpu[i]) - int(cpu[i])));
  EXPECT_LE(worst, 1);
}

// One kept backend for runs of every size, sample type, plan and extra
// output, in an order that grows and shrinks its kept buffers; and
// buffers the GPU can copy from directly (pinned) against ordinary ones,
// which go through the backend's pinned staging: always the bytes of a
// backend made for the run.
TEST(CudaBackend, KeptBackendAndPinnedBuffersGiveTheSameBytes) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  struct Case {
    ImageShape shape;
    SampleType type;
    FilterSpec spec;
    bool sigma;
  };
  const std::vector<Case> cases = {
      {{1023, 769, 4}, SampleType::u8, make_spec(ColorMode::rgb, RangeKernel::gaussian, 3.5f, 30.0f, 7), false},
      {{67, 43, 3}, SampleType::f32, make_spec(ColorMode::lab, RangeKernel::tukey, 2.0f, 14.0f, 0, 3), false},
      {{509, 1031, 4},
       SampleType::u16,
       adaptive(make_spec(ColorMode::per_channel, RangeKernel::huber, 1.6f, 22.0f, 5)),
       true},
      {{1, 1, 1}, SampleType::u8, make_spec(ColorMode::rgb, RangeKernel::lorentz, 1.0f, 10.0f, 2), false},
  };
  const std::unique_ptr<Backend> pinning = find_backend(installed_backends(), "cuda")->make({});
  KeptBackends kept;
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[round == 0 ? i : cases.size() - 1 - i];
      SCOPED_TRACE(describe(c.spec, c.shape) + (round ? ", second round" : ""));
      const size_t bytes =
          size_t(c.shape.width) * size_t(c.shape.height) * size_t(c.shape.channels) * size_t(sample_bytes(c.type));
      std::vector<uint8_t> in(bytes);
      for (auto& v : in) v = uint8_t(rng());
      if (c.type == SampleType::f32)  // finite 0..1 floats
        for (size_t j = 0; j < bytes / 4; ++j) reinterpret_cast<float*>(in.data())[j] = float(rng() % 1000) / 999.0f;
      const ImageShape sigma_shape = c.sigma ? output_shape(c.spec, c.shape, "sigma") : ImageShape{};
      // 0: a backend per run; 1: kept; 2: kept, pinned buffers.
      std::vector<uint8_t> out[3];
      std::vector<float> sigma[3];
      for (int way = 0; way < 3; ++way) {
        RunOptions options;
        options.backend = "cuda";
        options.backend_options.gpu_memory_budget = size_t(24) << 20;  // several bands for the larger images
        if (way > 0) options.kept = &kept;
        std::shared_ptr<void> pinned_in, pinned_out, pinned_sigma;
        void* source = in.data();
        out[way].assign(bytes, 0);
        sigma[way].assign(size_t(sigma_shape.width) * size_t(sigma_shape.height) * size_t(sigma_shape.channels), 0.0f);
        void *target = out[way].data(), *sigma_target = sigma[way].data();
        if (way == 2) {
          pinned_in = pinning->allocate_host(bytes);
          pinned_out = pinning->allocate_host(bytes);
          pinned_sigma = pinning->allocate_host(sigma[way].size() * sizeof(float));
          std::memcpy(pinned_in.get(), in.data(), bytes);
          source = pinned_in.get();
          target = pinned_out.get();
          sigma_target = pinned_sigma.get();
        }
        std::vector<ExtraImage> extras;
        if (c.sigma) extras.push_back({"sigma", {sigma_target, sigma_shape, SampleType::f32, 0}});
        run_filter(c.spec, {source, c.shape, c.type, 0}, {target, c.shape, c.type, 0}, options, extras);
        if (way == 2) {
          std::memcpy(out[way].data(), target, bytes);
          std::memcpy(sigma[way].data(), sigma_target, sigma[way].size() * sizeof(float));
        }
      }
      EXPECT_EQ(out[0], out[1]) << "kept backend";
      EXPECT_EQ(out[0], out[2]) << "pinned buffers";
      EXPECT_EQ(sigma[0], sigma[1]) << "kept backend, sigma map";
      EXPECT_EQ(sigma[0], sigma[2]) << "pinned buffers, sigma map";
    }
}

// A short run for compute-sanitizer (memcheck, racecheck): every kernel
// variant once, both pipelines, small images.
TEST(CudaBackendShort, EveryVariantOnce) {
  REQUIRE_GPU();
  EW_SEEDED_RNG(rng);
  for (int channels = 1; channels <= 4; ++channels)
    for (ColorMode mode : kModes)
      for (RangeKernel kernel : kKernels)
        for (int radius : {2, 33, -5}) {  // -5: the adaptive filter at radius 5
          const FloatImage image = random_image(rng, {45, 37, channels});
          FilterSpec spec = make_spec(mode, kernel, 2.0f, 25.0f, radius < 0 ? -radius : radius);
          if (radius < 0) spec = adaptive(spec);
          SCOPED_TRACE(describe(spec, image.shape()));
          const FloatImage cpu = run_cpu(spec, image);
          EXPECT_LE(max_difference(cpu, run_gpu(spec, image, size_t(4) << 20)).max_abs, 1e-4);
          EXPECT_LE(max_difference(cpu, run_gpu_buffers(spec, image)).max_abs, 1e-4);
          if (radius < 0) {  // and the variant that writes the sigma map, over three passes
            const FilterSpec passes = adaptive(make_spec(mode, kernel, 2.0f, 25.0f, 5, 3));
            const ImageShape sigma_shape = output_shape(passes, image.shape(), "sigma");
            FloatImage output(image.shape()), sigma(sigma_shape);
            RunOptions options;
            options.backend = "cuda";
            run_filter(passes, {const_cast<float*>(image.pixels().data()), image.shape(), SampleType::f32, 0},
                       {output.pixels().data(), image.shape(), SampleType::f32, 0}, options,
                       {{"sigma", {sigma.pixels().data(), sigma_shape, SampleType::f32, 0}}});
            EXPECT_LE(max_difference(run_cpu(passes, image), output).max_abs, 1e-4);
          }
        }
}

}  // namespace
