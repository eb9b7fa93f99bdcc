// The band executor and the engine around it, on the CPU backend: bands
// of any height give the same bytes for every sample type, a job may write
// over its own input, extra outputs come out of the same run and match the
// double reference, the budget picks bands and bands in flight, observers
// see every row once, and the failure-injection wrapper poisons then fails.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine.h"
#include "executor.h"
#include "test_support.h"

namespace edgewise_test {
namespace {

using edgewise::ColorMode;
using edgewise::ImageBuffer;
using edgewise::RangeKernel;
using edgewise::RunOptions;
using edgewise::SampleType;

std::vector<uint8_t> to_u8(const FloatImage& image) {
  std::vector<uint8_t> out;
  for (float v : image.pixels()) out.push_back(edgewise::float_to_u8(v));
  return out;
}

RunOptions cpu_options(int band_rows = 0) {
  RunOptions options;
  options.backend = "cpu";
  options.band_rows = band_rows;
  return options;
}

// 8-bit in, 8-bit out through raw rows (no float staging on the way), at
// several band heights, and in place: the same bytes every time.
TEST(Executor, BuffersBandHeightsAndInPlaceAgree) {
  EW_SEEDED_RNG(rng);
  for (int iterations : {1, 3}) {
    const ImageShape shape{61, 47, 4};
    const std::vector<uint8_t> input = to_u8(random_image(rng, shape, {true, Alpha::with_zeros}));
    const FilterSpec spec = make_spec(ColorMode::lab, RangeKernel::gaussian, 1.5f, 12.0f, 2, iterations);
    SCOPED_TRACE(describe(spec, shape));
    std::vector<uint8_t> expected(input.size());
    edgewise::run_filter(spec, {const_cast<uint8_t*>(input.data()), shape, SampleType::u8, 0},
                         {expected.data(), shape, SampleType::u8, 0}, cpu_options(shape.height));
    for (int band_rows : {1, 6, 13, 40}) {
      std::vector<uint8_t> out(input.size());
      edgewise::run_filter(spec, {const_cast<uint8_t*>(input.data()), shape, SampleType::u8, 0},
                           {out.data(), shape, SampleType::u8, 0}, cpu_options(band_rows));
      EXPECT_EQ(out, expected) << "band_rows " << band_rows;
      std::vector<uint8_t> in_place = input;
      const ImageBuffer buffer{in_place.data(), shape, SampleType::u8, 0};
      edgewise::run_filter(spec, buffer, buffer, cpu_options(band_rows));
      EXPECT_EQ(in_place, expected) << "in place, band_rows " << band_rows;
    }
  }
}

// One float image as both source and sink: each band's rows are handed
// back only after later bands read what they need.
TEST(Executor, StreamThatIsItsOwnSink) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{45, 53, 3};
  const FloatImage input = random_image(rng, shape);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::huber, 1.2f, 25.0f, 3, 2);
  const FloatImage expected = run_cpu(spec, input);
  for (int band_rows : {6, 7, 20}) {
    FloatImage image = input;
    edgewise::run_filter(spec, shape, image, image, cpu_options(band_rows));
    EXPECT_TRUE(bit_identical(expected, image)) << "band_rows " << band_rows;
  }
}

// The adaptive filter's sigma map is a second output of the same run,
// against the double reference's sigma_r' of the first pass.
TEST(Executor, SigmaOutputMatchesReference) {
  EW_SEEDED_RNG(rng);
  for (ColorMode mode : {ColorMode::per_channel, ColorMode::rgb, ColorMode::lab})
    for (int channels : {1, 3, 4}) {
      const ImageShape shape{29, 31, channels};
      const FloatImage input = random_image(rng, shape, {false, Alpha::positive});
      AdaptiveParameters adaptive;
      adaptive.adapt_k = 0.9f;
      adaptive.adapt_max = 0.4f;
      const FilterSpec spec = adaptive_of(make_spec(mode, RangeKernel::gaussian, 1.4f, 20.0f, 0, 2), adaptive);
      SCOPED_TRACE(describe(spec, shape));
      const ImageShape sigma_shape = edgewise::output_shape(spec, shape, "sigma");
      ASSERT_EQ(sigma_shape.channels, mode == ColorMode::per_channel && channels >= 3 ? 3 : 1);
      FloatImage output(shape), sigma(sigma_shape);
      for (int band_rows : {0, 5}) {
        edgewise::run_filter(spec, {const_cast<float*>(input.pixels().data()), shape, SampleType::f32, 0},
                             {output.pixels().data(), shape, SampleType::f32, 0}, cpu_options(band_rows),
                             {{"sigma", {sigma.pixels().data(), sigma_shape, SampleType::f32, 0}}});
        // The filtered image is the one a run without the sigma map gives.
        EXPECT_TRUE(bit_identical(output, run_cpu(spec, input)));
        const edgewise_reference::ReferenceImage expected =
            edgewise_reference::adaptive_sigma_reference(to_reference(input), reference_settings(spec));
        const Difference d = max_difference(expected, sigma);
        EXPECT_LE(d.max_abs, 1e-4) << d.describe();
      }
    }
}

TEST(Executor, ExtraOutputOfAnotherFilterIsRefused) {
  const ImageShape shape{8, 8, 3};
  std::vector<float> in(192), out(192), sigma(64);
  EXPECT_THROW(edgewise::run_filter(FilterSpec{}, {in.data(), shape, SampleType::f32, 0},
                                    {out.data(), shape, SampleType::f32, 0}, cpu_options(),
                                    {{"sigma", {sigma.data(), {8, 8, 1}, SampleType::f32, 0}}}),
               std::invalid_argument);
}

// The budget decides band heights and how many bands are in flight; not
// even one band of the filter's reach is a BackendError naming the budget.
TEST(Executor, BandLayoutFollowsTheBudget) {
  const auto plan =
      edgewise::make_plan(make_spec(ColorMode::rgb, RangeKernel::gaussian, 3.0f, 20.0f, 9, 3), {509, 1031, 4});
  ASSERT_EQ(plan->reach, 27);
  edgewise::BandBudget budget;
  budget.slots = 3;
  budget.min_bands = 8;
  budget.min_rows = 64;
  budget.bytes = size_t(1) << 30;
  edgewise::BandLayout layout = edgewise::choose_bands(*plan, budget, 0);
  EXPECT_EQ(layout.slots, 3);
  EXPECT_EQ(layout.rows, (1031 + 7) / 8);  // the image's share, not the whole budget
  budget.bytes = size_t(4) << 20;          // three bands of the reach do not fit; two do
  layout = edgewise::choose_bands(*plan, budget, 0);
  EXPECT_LT(layout.slots, 3);
  EXPECT_GE(layout.rows, plan->reach);
  budget.bytes = size_t(1) << 20;
  budget.name = "test budget";
  try {
    edgewise::choose_bands(*plan, budget, 0);
    ADD_FAILURE() << "a budget below one band was accepted";
  } catch (const edgewise::BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("test budget of 1 MiB is too small"), std::string::npos) << error.what();
  }
  // Asked-for rows: at least the reach and the backend's minimum.
  EXPECT_EQ(edgewise::choose_bands(*plan, budget, 5).rows, 64);
  budget.min_rows = 1;
  EXPECT_EQ(edgewise::choose_bands(*plan, budget, 5).rows, plan->reach);
}

// Observers see every row read and written once per pass over the image;
// progress rises to 1, and cancelling stops the job.
TEST(Executor, ObserverProgressAndCancel) {
  struct Count : edgewise::RunObserver {
    int read = 0, written = 0;
    std::string backend;
    void rows_read(int rows, double) override { read += rows; }
    void rows_written(int rows, double) override { written += rows; }
    void backend_used(const std::string& name) override { backend = name; }
  };
  EW_SEEDED_RNG(rng);
  const ImageShape shape{40, 90, 3};
  FloatImage input = random_image(rng, shape), output(shape);
  const FilterSpec spec = make_spec(ColorMode::rgb, RangeKernel::gaussian, 1.0f, 20.0f, 2);
  Count count;
  std::vector<double> fractions;
  RunOptions options = cpu_options(10);
  options.observer = &count;
  options.progress = [&](double fraction) {
    fractions.push_back(fraction);
    return true;
  };
  edgewise::run_filter(spec, shape, input, output, options);
  EXPECT_EQ(count.written, shape.height);
  EXPECT_GE(count.read, shape.height);  // halos are read twice
  EXPECT_EQ(count.backend.rfind("cpu", 0), 0u) << count.backend;
  ASSERT_EQ(fractions.size(), 9u);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);

  int calls = 0;
  options.progress = [&](double) { return ++calls < 3; };
  EXPECT_THROW(edgewise::run_filter(spec, shape, input, output, options), edgewise::Cancelled);
  EXPECT_EQ(calls, 3);
}

// The wrapper lets the device's first band reach the output as garbage,
// then fails: auto reruns on the CPU over it; a forced backend reports it.
TEST(Executor, InjectedFailureWrapper) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{37, 41, 4};
  const FloatImage input = random_image(rng, shape);
  const FilterSpec spec = make_spec(ColorMode::per_channel, RangeKernel::tukey, 1.5f, 30.0f);
  const FloatImage expected = run_cpu(spec, input);
  for (auto failure : {edgewise::InjectedFailure::out_of_memory, edgewise::InjectedFailure::launch}) {
    const edgewise::BackendList failing = edgewise::with_injected_failure(edgewise::installed_backends(), failure);
    const edgewise::BackendProvider* device = edgewise::find_backend(failing, "cuda");
    ASSERT_NE(device, nullptr);
    std::string description;
    EXPECT_TRUE(device->usable(description));  // a simulated one where there is no GPU
    // The failing backend on its own: its first band's output is poisoned.
    std::vector<uint8_t> raw(size_t(shape.width) * shape.height * 4, 7), out(raw.size(), 7);
    RunOptions forced;
    forced.backends = &failing;
    forced.backend = "cuda";
    forced.band_rows = 8;
    EXPECT_THROW(edgewise::run_filter(spec, {raw.data(), shape, SampleType::u8, 0},
                                      {out.data(), shape, SampleType::u8, 0}, forced),
                 edgewise::BackendError);
    EXPECT_NE(std::count(out.begin(), out.end(), 0xA5), 0) << "no garbage where the device failed";
    // auto: the CPU rerun overwrites all of it.
    RunOptions automatic = forced;
    automatic.backend = "auto";
    std::vector<std::string> notices;
    automatic.notice = [&](const std::string& text) { notices.push_back(text); };
    FloatImage source = input, output(shape);
    const edgewise::RunReport report = edgewise::run_filter(spec, shape, source, output, automatic);
    EXPECT_EQ(report.backend.rfind("cpu", 0), 0u) << report.backend;
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("rerunning on the CPU"), std::string::npos) << notices[0];
    EXPECT_TRUE(bit_identical(expected, output));
  }
}

// A provider that counts the backends it makes, around the installed one.
class CountingProvider : public edgewise::BackendProvider {
 public:
  CountingProvider(const edgewise::BackendProvider& inner, int& made) : inner_(inner), made_(made) {}
  std::string id() const override { return inner_.id(); }
  std::string name() const override { return inner_.name(); }
  std::string label() const override { return inner_.label(); }
  bool is_fallback() const override { return inner_.is_fallback(); }
  bool usable(std::string& description) const override { return inner_.usable(description); }
  std::unique_ptr<edgewise::Backend> make(const edgewise::BackendOptions& options) const override {
    ++made_;
    return inner_.make(options);
  }

 private:
  const edgewise::BackendProvider& inner_;
  int& made_;
};

// Kept backends (the dialog's previews, the CLI's batches): one backend for
// many runs of any shape and filter, the same bytes as a backend per run; a
// new one for other options, and none kept after it failed.
TEST(Executor, KeptBackendIsReusedAndDroppedAfterAFailure) {
  EW_SEEDED_RNG(rng);
  for (const char* injected : {"", "oom"}) {
    SCOPED_TRACE(std::string("injected failure: ") + injected);
    const edgewise::BackendList base =
        edgewise::with_injected_failure(edgewise::installed_backends(), edgewise::parse_injected_failure(injected));
    int made = 0;
    edgewise::BackendList counting;
    for (const auto& provider : base) counting.push_back(std::make_shared<CountingProvider>(*provider, made));
    edgewise::KeptBackends kept;
    RunOptions options;
    options.backends = &counting;
    options.backend = *injected ? "auto" : "cpu";
    options.kept = &kept;
    const std::vector<edgewise::FilterSpec> specs = {make_spec(ColorMode::rgb, RangeKernel::gaussian, 2.0f, 20.0f, 4),
                                                     make_spec(ColorMode::lab, RangeKernel::tukey, 1.0f, 12.0f, 2)};
    for (int run = 0; run < 4; ++run) {
      const FloatImage input =
          random_image(rng, run % 2 ? edgewise::ImageShape{31, 17, 3} : edgewise::ImageShape{9, 40, 4});
      const edgewise::FilterSpec& spec = specs[size_t(run) % specs.size()];
      FloatImage output(input.shape());
      edgewise::run_filter(spec, {const_cast<float*>(input.pixels().data()), input.shape(), SampleType::f32, 0},
                           {output.pixels().data(), input.shape(), SampleType::f32, 0}, options);
      EXPECT_TRUE(bit_identical(run_cpu(spec, input), output));
    }
    if (*injected) {
      // Each run: the failing device made again (its last one was dropped), the CPU once.
      EXPECT_EQ(made, 4 + 1);
    } else {
      EXPECT_EQ(made, 1);
      options.backend_options.threads = 1;  // other options: another backend
      const FloatImage input = random_image(rng, {5, 5, 1});
      FloatImage output(input.shape());
      edgewise::run_filter(specs[0], {const_cast<float*>(input.pixels().data()), input.shape(), SampleType::f32, 0},
                           {output.pixels().data(), input.shape(), SampleType::f32, 0}, options);
      EXPECT_EQ(made, 2);
    }
  }
}

}  // namespace
}  // namespace edgewise_test
