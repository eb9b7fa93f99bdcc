// One preview: the pixels read for a region are filtered by the engine, on
// the backend the user chose, and the visible part comes back as 8-bit
// samples next to the original, ready to draw. Independent of GTK, so the
// tests and the latency benchmark run it on machines without a display.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "image_port.h"
#include "noise_estimate.h"
#include "pixel_stream.h"
#include "preview_region.h"
#include "settings.h"

namespace edgewise_dialog {

using edgewise::Settings;

// Floats in host memory from host_memory_for: pinned where the preview runs
// on a GPU, which then reads them without staging them first.
class HostFloats {
 public:
  HostFloats() = default;
  HostFloats(std::shared_ptr<void> memory, size_t count) : memory_(std::move(memory)), count_(count) {}
  float* data() const { return static_cast<float*>(memory_.get()); }
  size_t size() const { return count_; }

 private:
  std::shared_ptr<void> memory_;
  size_t count_ = 0;
};

// The region's pixels as read from the ImagePort (on the UI thread), once
// per view: every slider move filters them again.
struct PreviewInput {
  PreviewRegion region;
  edgewise::ImageShape shape;  // region.read's size, the image's channels
  HostFloats pixels;
  std::vector<uint8_t> original;  // region.visible of pixels in 8 bits, made once per read
  // The whole image's noise, which parameters at auto follow (a region, let
  // alone a reduced copy, shows different noise). Null: none estimated.
  std::shared_ptr<const edgewise::NoiseEstimate> noise;
};

// Reads what `region` needs through `port`, into memory for the `backend`
// choice the previews will run on ("auto" or an id).
std::shared_ptr<PreviewInput> read_preview_input(ImagePort& port, const PreviewRegion& region,
                                                 std::shared_ptr<const edgewise::NoiseEstimate> noise = nullptr,
                                                 const std::string& backend = "auto");

// The noise of the whole image behind `port` (rows read at full size, on the
// UI thread as every read), for the dialog's auto values and their labels.
edgewise::NoiseEstimate estimate_image_noise(ImagePort& port);

struct PreviewResult {
  uint64_t generation = 0;
  PreviewRegion region;
  int width = 0, height = 0, channels = 0;  // region.visible's size
  std::vector<uint8_t> original, filtered;  // interleaved, 8 bits per sample
  std::string settings;                     // format_arguments() of what was filtered
  std::string backend;                      // the backend that produced it
  std::string notice;                       // a fallback to the CPU, and why
  std::string error;                        // when the filter failed: filtered is empty
  double seconds = 0;                       // engine time
};

// Throws edgewise::Cancelled when `progress` returns false; any other
// failure is reported in the result's error.
// `kept` (may be null) keeps the backend and its buffers for the next
// preview: on the GPU that is most of a preview's time.
PreviewResult render_preview(const Settings& settings, const PreviewInput& input, const edgewise::ProgressFn& progress,
                             edgewise::KeptBackends* kept = nullptr);

}  // namespace edgewise_dialog
