// The one entry every front end calls: validate and plan the spec, pick a
// backend from the list, run the executor, and in auto mode rerun on the
// fallback backend (the CPU) when another one fails.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend.h"
#include "executor.h"
#include "filter_registry.h"
#include "filter_spec.h"
#include "image_buffer.h"
#include "noise_estimate.h"
#include "pixel_stream.h"

namespace edgewise {

struct RunOptions {
  std::string backend = "auto";  // "auto" or a backend's id
  BackendOptions backend_options;
  int band_rows = 0;                               // 0: from the backend's memory budget; results do not depend on it
  ProgressFn progress;                             // may be empty
  std::function<void(const std::string&)> notice;  // messages for the user (fallback)
  RunObserver* observer = nullptr;                 // may be null
  const BackendList* backends = nullptr;           // null: installed_backends()
  // The image's noise, for parameters at auto (kNoiseAuto). Null: estimated
  // from the input when the spec needs it. A front end that filters part of
  // an image (the dialog's preview) passes the whole image's estimate.
  const NoiseEstimate* noise = nullptr;
  // Backends to reuse and keep for the next run (see KeptBackends). Null:
  // made for this run and dropped after it.
  KeptBackends* kept = nullptr;
};

// A filter's extra output (FilterInfo::outputs) wanted from a run, written
// to `buffer` as that output's channels (see output_shape).
struct ExtraImage {
  std::string name;
  ImageBuffer buffer;
};

struct RunReport {
  std::string backend;          // the backend that produced the output
  std::string fallback_reason;  // non-empty when auto fell back to the CPU
  // For a spec with auto parameters: the noise sigma their rules started
  // from (auto_noise_sigma) and the values chosen ("sigma-r 14.2"); else -1 and "".
  double noise_sigma = -1;
  std::string auto_values;
  // Set when the noise could not be measured and the auto values follow
  // the estimate's fallback rule: why (NoiseEstimate::fallback_reason).
  // The run also says so through RunOptions::notice.
  std::string noise_fallback;
  // For a spec with auto parameters: which reading of the noise they
  // followed ("learned", "statistical"; NoiseEstimate::reading), and the
  // line about it when the learned one was not used or is unsure
  // (NoiseEstimate::reading_note, also sent through RunOptions::notice).
  std::string noise_reading;
  std::string noise_reading_note;
  // For whole images in memory with auto parameters: the largest change of
  // any sample, in code values of the 8-bit scale (0-255); else -1.
  double largest_change = -1;
};

// The line a front end shows when auto values came from the fallback rule
// ("" when they did not).
std::string noise_fallback_notice(const RunReport& report);
// The line a front end shows when a run at auto changed no sample by more
// than one code value ("" when it did, or was not at auto).
std::string unchanged_notice(const RunReport& report);

// Parameters at auto are set from the image's noise first (RunOptions::noise,
// or an estimate of the input). Throws std::invalid_argument for a bad spec or shape, BackendError when
// the requested backend cannot run, Cancelled when progress says stop. The
// source and the sink are distinct images.
RunReport run_filter(const FilterSpec& spec, const ImageShape& shape, PixelSource& source, PixelSink& sink,
                     const RunOptions& options = {});

// The same for whole images in memory: in and out have the same shape and
// may differ in sample type (and may be the same buffer). A GPU backend
// moves the raw samples and converts them on the device.
RunReport run_filter(const FilterSpec& spec, const ImageBuffer& in, const ImageBuffer& out,
                     const RunOptions& options = {}, const std::vector<ExtraImage>& extras = {});

// The shape an extra output has for this spec and input.
ImageShape output_shape(const FilterSpec& spec, const ImageShape& input, const std::string& output);

}  // namespace edgewise
