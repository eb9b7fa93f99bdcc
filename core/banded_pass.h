// One filter pass over an image, band by band with halos. Peak memory is
// band_memory_bytes(plan) whatever the image size. The result does not depend
// on the band height: every output pixel sees the same padded neighbourhood.
#pragma once

#include "band.h"
#include "pixel_stream.h"
#include "plan.h"

namespace edgewise {

// Progress reported is progress_base + progress_span * (fraction of rows).
void run_banded_pass(const Plan& plan, PixelSource& source, PixelSink& sink, BandFilter& filter,
                     const ProgressFn& progress, double progress_base = 0.0,
                     double progress_span = 1.0, const ParallelRows& parallel = {});

// The clamp-to-edge gather and the interleaving, shared with backends that
// schedule bands themselves (the CUDA streams).
class BandGatherer {
 public:
  explicit BandGatherer(const Plan& plan, ParallelRows parallel = {});
  // Reads the rows band y0..y0+rows needs (with halo) from source and lays
  // them out, padded and planar, into band (whose data the caller owns).
  void gather(PixelSource& source, int y0, int rows, PaddedBand& band);
  // Interleaves an output band into rows and hands them to the sink.
  void scatter(const OutputBand& band, PixelSink& sink);

 private:
  void for_rows(int count, const std::function<void(int, int)>& body) const;

  const Plan& plan_;
  ParallelRows parallel_;
  std::vector<float> staging_;
};

PaddedBand describe_padded_band(const Plan& plan, int y0, int rows, float* data);
OutputBand describe_output_band(const Plan& plan, int y0, int rows, float* data);
size_t padded_band_floats(const Plan& plan);
size_t output_band_floats(const Plan& plan);

}  // namespace edgewise
