// The one entry every front end calls: validate, plan, pick a backend, run
// the passes, fall back to the CPU when the GPU fails.
#pragma once

#include <functional>
#include <string>

#include "backend.h"
#include "filter_spec.h"
#include "image_buffer.h"
#include "pixel_stream.h"
#include "plan.h"

namespace edgewise {

struct RunOptions {
  BackendChoice backend = BackendChoice::automatic;
  BackendOptions backend_options;
  PlanOptions plan_options;
  ProgressFn progress;                              // may be empty
  std::function<void(const std::string&)> notice;  // messages for the user (fallback)
};

struct RunReport {
  std::string backend;          // the backend that produced the output
  std::string fallback_reason;  // non-empty when auto fell back to the CPU
};

// Throws std::invalid_argument for a bad spec or shape, BackendError when
// the requested backend cannot run, Cancelled when progress says stop.
// Iterations beyond the first keep one float copy of the image (see README).
RunReport run_filter(const FilterSpec& spec, const ImageShape& shape, PixelSource& source,
                     PixelSink& sink, const RunOptions& options = {});

// The same for whole images in memory: in and out have the same shape and
// may differ in sample type. A GPU backend moves the raw samples itself.
RunReport run_filter(const FilterSpec& spec, const ImageBuffer& in, const ImageBuffer& out,
                     const RunOptions& options = {});

BackendChoice parse_backend(const std::string& text, std::string& error);

}  // namespace edgewise
