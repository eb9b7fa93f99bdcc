// Preview latency (issue 5): how long the dialog waits for an 800×600
// preview at 100% after a slider moves, through the same code the dialog
// runs (read on the UI thread, PreviewWorker, render_preview), on a 24 MP
// 8-bit RGB image in memory as the CLI holds it. Cases: r = 7 (σs 3.5) in
// each mode and the adaptive filter, on the CPU and, where usable, the GPU.
// "first" includes starting the backend (CUDA context); "slider" is the
// median and 95th percentile of 40 requests, each with a new σr, each
// waited for; "pan" adds the read of a moved view; "engine" is run_filter
// alone on the same region (its float samples to 8-bit, backend kept), and
// "ratio" slider / engine. Prints one table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "bilateral.h"
#include "buffer_port.h"
#include "engine.h"
#include "fourier.h"
#include "nlm.h"
#include "preview_render.h"
#include "preview_worker.h"
#include "pyramid.h"

using namespace edgewise_dialog;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 6000, kHeight = 4000, kPaneWidth = 800, kPaneHeight = 600, kRequests = 40;

std::vector<uint8_t> test_card() {
  std::vector<uint8_t> pixels(size_t(kWidth) * kHeight * 3);
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 8.0f);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      for (int c = 0; c < 3; ++c) {
        const float base = 128 + 70 * std::sin(x * 0.01f + c) * std::cos(y * 0.013f) + ((x / 300 + y / 200) % 2) * 40;
        pixels[(size_t(y) * kWidth + x) * 3 + c] = uint8_t(std::clamp(base + noise(rng), 0.0f, 255.0f));
      }
  return pixels;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Submits and waits for the delivery, as the dialog's main loop would.
class Waiter {
 public:
  Waiter()
      : worker_([this](PreviewResult&& result) {
          std::lock_guard<std::mutex> lock(mutex_);
          result_ = std::move(result);
          done_ = true;
          wake_.notify_one();
        }) {}
  PreviewResult run(const Settings& settings, std::shared_ptr<const PreviewInput> input) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_ = false;
    lock.unlock();
    worker_.submit(settings, std::move(input));
    lock.lock();
    wake_.wait(lock, [this] { return done_; });
    return std::move(result_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  PreviewResult result_;
  PreviewWorker worker_;  // last: its thread uses the members above
};

struct Row {
  std::string backend, mode;
  double first, median, p95, pan_median, read_median, engine_median;
};

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, size_t(p * double(values.size())))];
}

// The engine alone on a preview's region: its float samples into `out` as
// 8-bit, on `backend` kept in `kept`, in bands of `band_rows` (0: the
// engine's own), as the CLI would run that region.
void run_engine(const edgewise::FilterSpec& spec, const PreviewInput& input, const std::string& backend, int band_rows,
                edgewise::KeptBackends& kept, std::vector<uint8_t>& out) {
  edgewise::RunOptions options;
  options.backend = backend;
  options.kept = &kept;
  options.band_rows = band_rows;
  edgewise::run_filter(
      spec, edgewise::ImageBuffer{const_cast<float*>(input.pixels.data()), input.shape, edgewise::SampleType::f32, 0},
      edgewise::ImageBuffer{out.data(), input.shape, edgewise::SampleType::u8, 0}, options);
}

// A case: the filter, its label, and the slider a drag moves (its value
// at request i is base + step i).
struct Case {
  std::string label;
  edgewise::FilterSpec spec;
  std::string slider;
  double base, step;
};

Case bilateral_case(edgewise::ColorMode mode, bool adaptive) {
  edgewise::BilateralParameters parameters;
  parameters.mode = mode;
  parameters.sigma_s = 3.5f;
  parameters.radius = 7;
  return {std::string(edgewise::to_string(mode)) + (adaptive ? " adaptive" : ""),
          adaptive ? edgewise::adaptive_spec(parameters, {}) : edgewise::bilateral_spec(parameters), "sigma-r", 10.0,
          1.0};
}

// The other filters at their defaults (Fourier sigma-s 10, non-local means
// S = 7 and f = 1, the pyramid's levels for the region); sigma-r (h for
// non-local means) moves in steps that keep the Fourier term count.
std::vector<Case> other_cases() {
  return {{"fourier", edgewise::fourier_spec({}), "sigma-r", 25.0, 0.1},
          {"nlm", edgewise::nlm_spec({}), "h", 8.0, 0.1},
          {"pyramid", edgewise::pyramid_spec({}), "sigma-r", 20.0, 0.1}};
}

Row measure(BufferPort& port, const std::string& backend, const Case& measured) {
  Settings settings;
  settings.backend = backend;
  settings.spec = measured.spec;
  auto move_slider = [&](int i) {
    edgewise::set_param(settings.spec, measured.slider, measured.base + measured.step * i);
  };
  View view;
  view.pane_width = kPaneWidth;
  view.pane_height = kPaneHeight;
  const edgewise::ImageShape shape = port.shape();
  Waiter waiter;
  Row row;
  row.mode = measured.label;

  auto start = Clock::now();
  auto input = read_preview_input(port, plan_region(view, shape, port.affected(), settings.spec));
  PreviewResult result = waiter.run(settings, input);
  row.first = ms_since(start);
  if (!result.error.empty()) {
    std::fprintf(stderr, "%s: %s\n", row.mode.c_str(), result.error.c_str());
    row.backend = "failed";
    return row;
  }
  row.backend = result.backend;

  // The engine's own time for the same region (run_filter from its float
  // samples to 8-bit, default bands, backend kept, no worker thread), in
  // blocks of 10 taking turns with blocks of the slider's requests, so that
  // the machine's load falls on both alike, and the two OpenMP thread pools
  // (this thread's and the worker's) rarely overlap their idle spinning:
  // what the preview costs beyond it is the dialog's.
  edgewise::KeptBackends kept;
  std::vector<uint8_t> out(input->pixels.size());
  auto engine_run = [&] { run_engine(settings.spec, *input, backend, 0, kept, out); };
  engine_run();  // makes the backend
  std::vector<double> slider, panned, read, engine;
  constexpr int kBlock = 10;
  for (int block = 0; block < kRequests; block += kBlock) {
    for (int i = block; i < block + kBlock; ++i) {
      move_slider(i);  // a new value each time, as a slider drag gives
      start = Clock::now();
      waiter.run(settings, input);
      slider.push_back(ms_since(start));
    }
    for (int i = block; i < block + kBlock; ++i) {
      move_slider(i);
      start = Clock::now();
      engine_run();
      engine.push_back(ms_since(start));
    }
  }
  for (int i = 0; i < kRequests; ++i) {
    view = edgewise_dialog::pan(view, shape, 37, 23);  // a drag step; wraps back to the far corner at the edge
    if (view.center_x < 0.1 || view.center_y < 0.1) view.center_x = view.center_y = 0.9;
    start = Clock::now();
    auto moved = read_preview_input(port, plan_region(view, shape, port.affected(), settings.spec));
    read.push_back(ms_since(start));
    waiter.run(settings, moved);
    panned.push_back(ms_since(start));
  }
  row.engine_median = percentile(engine, 0.5);
  row.median = percentile(slider, 0.5);
  row.p95 = percentile(slider, 0.95);
  row.pan_median = percentile(panned, 0.5);
  row.read_median = percentile(read, 0.5);
  return row;
}

// Where a GPU preview's time goes (rgb): the same region through fewer
// layers each line, with the backend kept, median of 40 (a new sigma-r each).
void gpu_breakdown(BufferPort& port) {
  edgewise::BilateralParameters parameters;
  parameters.sigma_s = 3.5f;
  parameters.radius = 7;
  Settings settings;
  settings.backend = "cuda";
  settings.spec = edgewise::bilateral_spec(parameters);
  View view;
  view.pane_width = kPaneWidth;
  view.pane_height = kPaneHeight;
  const auto input = read_preview_input(port, plan_region(view, port.shape(), port.affected(), settings.spec));
  const edgewise::ImageShape shape = input->shape;
  edgewise::KeptBackends kept;
  auto median_of = [&](const std::function<void()>& run) {
    run();
    std::vector<double> times;
    for (int i = 0; i < kRequests; ++i) {
      edgewise::set_param(settings.spec, "sigma-r", 10.0 + i);
      const auto start = Clock::now();
      run();
      times.push_back(ms_since(start));
    }
    return percentile(times, 0.5);
  };
  const edgewise::BackendProvider& cuda = *edgewise::find_backend(edgewise::installed_backends(), "cuda");
  const std::unique_ptr<edgewise::Backend> pinning = cuda.make({});
  const size_t samples = input->pixels.size();
  std::shared_ptr<void> pinned_in = pinning->allocate_host(samples * sizeof(float));
  std::shared_ptr<void> pinned_out = pinning->allocate_host(samples);
  std::memcpy(pinned_in.get(), input->pixels.data(), samples * sizeof(float));
  const std::vector<float> pageable_in(input->pixels.data(), input->pixels.data() + samples);
  std::vector<uint8_t> pageable_out(samples);
  auto engine = [&](bool pinned, int band_rows) {
    edgewise::RunOptions options;
    options.backend = "cuda";
    options.kept = &kept;
    options.band_rows = band_rows;
    const edgewise::ImageBuffer in{pinned ? pinned_in.get() : const_cast<float*>(pageable_in.data()), shape,
                                   edgewise::SampleType::f32, 0};
    const edgewise::ImageBuffer out{pinned ? pinned_out.get() : pageable_out.data(), shape, edgewise::SampleType::u8,
                                    0};
    edgewise::run_filter(settings.spec, in, out, options);
  };
  std::printf("\nGPU preview, rgb, %dx%d region (view and halo), backend kept, median of %d:\n", shape.width,
              shape.height, kRequests);
  std::printf("  run_filter, pageable buffers, engine's bands %5.2f ms\n", median_of([&] { engine(false, 0); }));
  std::printf("  render_preview (no worker thread)          %6.2f ms\n",
              median_of([&] { render_preview(settings, *input, {}, &kept); }));
  std::printf("  run_filter, pageable buffers, again         %6.2f ms\n", median_of([&] { engine(false, 0); }));
  std::printf("  run_filter, pinned buffers, engine's bands  %6.2f ms\n", median_of([&] { engine(true, 0); }));
  std::printf("  run_filter, pinned buffers, one band        %6.2f ms\n",
              median_of([&] { engine(true, shape.height); }));
  std::printf("  make_plan alone                             %6.2f ms\n",
              median_of([&] { edgewise::make_plan(settings.spec, shape); }));
}

// Where a CPU preview's time goes beyond the engine's: per mode, the same
// region through run_filter with the engine's default bands, with bands of
// 16, 32 and 64 rows (the preview's were 16 until stop 23), and through
// render_preview without the worker thread; the variants take turns within
// each of 40 rounds (a new sigma-r each), so the machine's load falls on
// all alike, and each line is their median.
void cpu_breakdown(BufferPort& port) {
  std::printf("\nCPU preview, backend kept, median of %d rounds (ms):\n", kRequests);
  std::printf("%-16s %10s %10s %10s %10s %15s\n", "mode", "default", "16 rows", "32 rows", "64 rows", "render_preview");
  for (const auto mode : {edgewise::ColorMode::rgb, edgewise::ColorMode::per_channel, edgewise::ColorMode::lab})
    for (const bool adaptive : {false, true}) {
      if (adaptive && mode != edgewise::ColorMode::rgb) continue;
      edgewise::BilateralParameters parameters;
      parameters.mode = mode;
      parameters.sigma_s = 3.5f;
      parameters.radius = 7;
      Settings settings;
      settings.backend = "cpu";
      settings.spec = adaptive ? edgewise::adaptive_spec(parameters, {}) : edgewise::bilateral_spec(parameters);
      View view;
      view.pane_width = kPaneWidth;
      view.pane_height = kPaneHeight;
      const auto input = read_preview_input(port, plan_region(view, port.shape(), port.affected(), settings.spec));
      edgewise::KeptBackends kept;
      std::vector<uint8_t> out(input->pixels.size());
      auto engine = [&](int band_rows) { run_engine(settings.spec, *input, "cpu", band_rows, kept, out); };
      const std::vector<std::function<void()>> variants = {[&] { engine(0); }, [&] { engine(16); }, [&] { engine(32); },
                                                           [&] { engine(64); },
                                                           [&] { render_preview(settings, *input, {}, &kept); }};
      std::vector<std::vector<double>> times(variants.size());
      for (int i = 0; i <= kRequests; ++i) {
        edgewise::set_param(settings.spec, "sigma-r", 10.0 + i);
        for (size_t v = 0; v < variants.size(); ++v) {
          const auto start = Clock::now();
          variants[v]();
          if (i > 0) times[v].push_back(ms_since(start));  // round 0 makes the backend
        }
      }
      std::printf("%-16s", (std::string(edgewise::to_string(mode)) + (adaptive ? " adaptive" : "")).c_str());
      for (size_t v = 0; v < variants.size(); ++v)
        std::printf(" %*.1f", v + 1 < variants.size() ? 10 : 15, percentile(times[v], 0.5));
      std::printf("\n");
    }
}

}  // namespace

int main() {
  std::vector<uint8_t> pixels = test_card();
  BufferPort port(edgewise::ImageBuffer{pixels.data(), {kWidth, kHeight, 3}, edgewise::SampleType::u8, 0});
  std::string gpu;
  const edgewise::BackendProvider& cuda = *edgewise::find_backend(edgewise::installed_backends(), "cuda");
  const bool have_gpu = cuda.usable(gpu);
  std::printf("preview %dx%d at 100%%, r = 7 (sigma-s 3.5), of a %dx%d 8-bit RGB image; GPU: %s\n", kPaneWidth,
              kPaneHeight, kWidth, kHeight, gpu.c_str());
  std::printf("%-34s %-16s %9s %10s %8s %9s %8s %10s %7s\n", "backend", "mode", "first ms", "slider ms", "p95 ms",
              "pan ms", "read ms", "engine ms", "ratio");
  std::vector<std::string> backends = {"cpu"};
  if (have_gpu) backends.insert(backends.begin(), "cuda");
  if (std::getenv("EDGEWISE_BENCH_BREAKDOWN_ONLY")) backends.clear();
  std::vector<Case> cases;
  for (const auto mode : {edgewise::ColorMode::rgb, edgewise::ColorMode::per_channel, edgewise::ColorMode::lab})
    for (const bool adaptive : {false, true})
      if (!adaptive || mode == edgewise::ColorMode::rgb) cases.push_back(bilateral_case(mode, adaptive));
  for (Case& other : other_cases()) cases.push_back(std::move(other));
  for (const auto& backend : backends)
    for (const Case& measured : cases) {
      const Row row = measure(port, backend, measured);
      std::printf("%-34s %-16s %9.1f %10.1f %8.1f %9.1f %8.1f %10.1f %7.2f\n", row.backend.c_str(), row.mode.c_str(),
                  row.first, row.median, row.p95, row.pan_median, row.read_median, row.engine_median,
                  row.median / row.engine_median);
    }
  cpu_breakdown(port);
  if (have_gpu) {  // how much of a GPU preview is making the backend (once per run)
    std::vector<double> setup;
    for (int i = 0; i < 20; ++i) {
      const auto start = Clock::now();
      std::string why_not;
      if (cuda.usable(why_not)) cuda.make({}).reset();
      setup.push_back(ms_since(start));
    }
    std::printf("making and dropping the CUDA backend: median %.2f ms\n", percentile(setup, 0.5));
    gpu_breakdown(port);
  }
  return 0;
}
