// Filtering part of an image, for every front end that does: the GEGL
// operation (the part GEGL asks for) and the GIMP plug-in (a drawable's
// selection, written to its shadow buffer). Free of GEGL and GIMP, so that
// it is tested where neither is (the GPU machine:
// tests/gpu/test_cuda_region_job.cpp): the part filtered through the
// engine as it comes out of the whole image (core/region.h), on the
// backend asked for with the engine's fallback, and never an exception.
// Whatever fails, the part wanted ends up filtered or holding the input
// unchanged, with the reason; it is never left half-written.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine.h"
#include "region.h"

namespace edgewise {

// Pixels of any rectangle of the image (a GeglBuffer: gegl/buffer_rects.h),
// as interleaved 0..1 floats: R'G'B' or grey, then alpha when the image
// has it.
class RectSource {
 public:
  virtual ~RectSource() = default;
  // Fills `rect` (inside the image) into dst, `row_floats` floats apart.
  virtual void read(const PixelRect& rect, float* dst, size_t row_floats) = 0;
};

class RectSink {
 public:
  virtual ~RectSink() = default;
  virtual void write(const PixelRect& rect, const float* src, size_t row_floats) = 0;
};

struct RegionJob {
  FilterSpec spec;
  ImageShape image;  // the whole input, its origin at (0, 0)
  PixelRect wanted;  // what to write; only its part inside the image is written
  // The whole image's noise, for parameters at auto; null: measured here on
  // the whole image. A caller filtering many parts measures it once
  // (estimate_image_noise), so every part follows the same values.
  const NoiseEstimate* noise = nullptr;
  std::string backend = "auto";
  int threads = 0;                        // CPU threads, 0 = all cores
  const BackendList* backends = nullptr;  // null: installed_backends()
  ProgressFn progress;                    // may be empty
  // Each of the engine's notices as it comes (a progress bar's text while
  // the CPU reruns), besides RegionOutcome::notices; may be empty.
  std::function<void(const std::string&)> notice;
  RunObserver* observer = nullptr;  // may be null (the plug-in's EDGEWISE_TIMING)
};

struct RegionOutcome {
  bool filtered = false;             // else the part holds the input unchanged, or nothing was wanted
  std::string error;                 // why it was not filtered, one message ("" when it was, or nothing was wanted)
  std::vector<std::string> notices;  // the engine's: a backend that failed and the rerun on the CPU
  RunReport report;                  // when filtered
  PixelRect read;                    // the part read: wanted grown by the reach (once planned)
};

// The part of `wanted` inside the image copied from source to sink
// unchanged (a few rows at a time), for a job that cannot run: "" when
// done, else why not. Never throws.
std::string pass_through(RectSource& source, RectSink& sink, const ImageShape& image, const PixelRect& wanted) noexcept;

// Filters job.wanted of the image `source` holds into `sink`. Never throws.
RegionOutcome filter_region(const RegionJob& job, RectSource& source, RectSink& sink) noexcept;

// The whole image's noise, read in bands (core/noise_estimate.h). Throws
// what the estimator throws.
NoiseEstimate estimate_image_noise(RectSource& source, const ImageShape& image, int threads);

}  // namespace edgewise
