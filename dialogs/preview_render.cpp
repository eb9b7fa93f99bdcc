#include "preview_render.h"

#include <chrono>
#include <cstring>
#include <exception>

#include "engine.h"
#include "sample_convert.h"

namespace edgewise_dialog {

namespace {

// The visible part of an interleaved image of `from`'s size, as 8 bits.
template <class Sample>
std::vector<uint8_t> crop(const Sample* pixels, const Rect& from, const Rect& visible, int channels) {
  std::vector<uint8_t> out(size_t(visible.width) * size_t(visible.height) * size_t(channels));
  uint8_t* dst = out.data();
  const size_t row_samples = size_t(visible.width) * size_t(channels);
  for (int y = visible.y; y < visible.bottom(); ++y, dst += row_samples) {
    const Sample* row = pixels + (size_t(y - from.y) * size_t(from.width) + size_t(visible.x - from.x)) * channels;
    if constexpr (sizeof(Sample) == 1)
      std::memcpy(dst, row, row_samples);
    else
      for (size_t i = 0; i < row_samples; ++i) dst[i] = edgewise::float_to_u8(row[i]);
  }
  return out;
}

// Outside the part the filter changes (GIMP's selection), the original.
void keep_original_outside(PreviewResult& result) {
  const Rect& visible = result.region.visible;
  const Rect inside = intersect(result.region.affected, visible);
  const size_t channels = size_t(result.channels);
  // Row by row, the spans left and right of `inside` (the whole row above
  // or below it): a preview inside the selection copies nothing.
  auto keep = [&](int y, int x0, int x1) {
    if (x1 <= x0) return;
    const size_t at = (size_t(y - visible.y) * size_t(visible.width) + size_t(x0 - visible.x)) * channels;
    std::memcpy(result.filtered.data() + at, result.original.data() + at, size_t(x1 - x0) * channels);
  };
  for (int y = visible.y; y < visible.bottom(); ++y) {
    if (inside.width <= 0 || inside.height <= 0 || y < inside.y || y >= inside.bottom()) {
      keep(y, visible.x, visible.right());
      continue;
    }
    keep(y, visible.x, inside.x);
    keep(y, inside.right(), visible.right());
  }
}

}  // namespace

std::shared_ptr<PreviewInput> read_preview_input(ImagePort& port, const PreviewRegion& region,
                                                 std::shared_ptr<const edgewise::NoiseEstimate> noise,
                                                 const std::string& backend) {
  auto input = std::make_shared<PreviewInput>();
  input->region = region;
  input->noise = std::move(noise);
  input->shape = {region.read.width, region.read.height, port.shape().channels};
  const size_t samples = size_t(region.read.width) * size_t(region.read.height) * size_t(input->shape.channels);
  input->pixels =
      HostFloats(edgewise::host_memory_for(edgewise::installed_backends(), backend, samples * sizeof(float)), samples);
  port.read(region.read, region.scale, input->pixels.data());
  input->original = crop(input->pixels.data(), region.read, region.visible, input->shape.channels);
  return input;
}

namespace {

// Whole rows of the image at full size, as the estimator reads them.
class PortRows : public edgewise::PixelSource {
 public:
  explicit PortRows(ImagePort& port) : port_(port), width_(port.shape().width) {}
  void read_rows(int y, int rows, float* dst) override { port_.read({0, y, width_, rows}, 1.0, dst); }

 private:
  ImagePort& port_;
  int width_;
};

}  // namespace

edgewise::NoiseEstimate estimate_image_noise(ImagePort& port) {
  PortRows rows(port);
  return edgewise::estimate_noise(rows, port.shape());
}

PreviewResult render_preview(const Settings& settings, const PreviewInput& input, const edgewise::ProgressFn& progress,
                             edgewise::KeptBackends* kept) {
  PreviewResult result;
  result.region = input.region;
  result.width = input.region.visible.width;
  result.height = input.region.visible.height;
  result.channels = input.shape.channels;
  result.settings = edgewise::format_arguments(settings);
  result.original = input.original;

  edgewise::RunOptions options;
  options.backend = settings.backend;
  // The engine's own bands: on the CPU about 150 rows of an 800x600 view
  // at r = 7, so a newer request cancels this one within a quarter of it;
  // on the GPU one band, as before. The 16-row bands used until stop 23
  // made a CPU preview 10-17 % slower than the engine on the same region:
  // every band is several OpenMP regions, and on the worker thread the
  // team's wake-ups between them cost that much (OMP_WAIT_POLICY=active
  // removed the difference; bench_preview, its table and CPU breakdown).
  options.progress = progress;
  options.notice = [&result](const std::string& text) { result.notice = text; };
  options.noise = input.noise.get();
  options.kept = kept;
  // Filtered straight into 8 bits: the GPU then packs on the device and
  // copies a quarter of the bytes back.
  std::vector<uint8_t> filtered(input.pixels.size());
  const edgewise::ImageBuffer in{input.pixels.data(), input.shape, edgewise::SampleType::f32, 0};
  const edgewise::ImageBuffer out{filtered.data(), input.shape, edgewise::SampleType::u8, 0};
  const auto start = std::chrono::steady_clock::now();
  try {
    const edgewise::RunReport report =
        edgewise::run_filter(edgewise::spec_at_scale(settings.spec, input.region.scale), in, out, options);
    result.backend = report.backend;
  } catch (const edgewise::Cancelled&) {
    throw;
  } catch (const std::exception& error) {
    result.error = error.what();
    return result;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.filtered = crop(filtered.data(), input.region.read, input.region.visible, input.shape.channels);
  keep_original_outside(result);
  return result;
}

}  // namespace edgewise_dialog
