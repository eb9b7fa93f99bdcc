// The unit of work a backend receives: a horizontal band of the image in
// planar float, padded by the radius on every side with clamp-to-edge copies,
// so kernels never test for borders.
#pragma once

#include <cstddef>
#include <functional>

#include "plan.h"

namespace edgewise {

// Floats allocated after a padded band's last plane, so a backend may load a
// whole vector at a row's end (lanes past the row are computed, never stored).
constexpr size_t kBandOverhangFloats = 16;

struct PaddedBand {
  int y0 = 0;              // first output row of the band in the image
  int rows = 0;            // output rows; the band holds rows + 2r
  int width = 0;           // padded width, image width + 2r
  int planes = 0;          // channels, colour planes then alpha
  size_t plane_stride = 0; // floats between two planes
  float* data = nullptr;   // plane p, padded row i: data + p*plane_stride + i*width

  float* plane(int p) const { return data + size_t(p) * plane_stride; }
};

struct OutputBand {
  int y0 = 0;
  int rows = 0;
  int width = 0;           // image width
  int planes = 0;
  size_t plane_stride = 0;
  float* data = nullptr;   // plane p, row i: data + p*plane_stride + i*width

  float* plane(int p) const { return data + size_t(p) * plane_stride; }
};

// Runs body(begin, end) over [0, count) split into pieces, possibly on several
// threads; the CPU backend supplies OpenMP, the default is one call. Used for
// the per-row copies of a band so that they are not single-threaded.
using ParallelRows = std::function<void(int count, const std::function<void(int begin, int end)>& body)>;

// A backend's computation for one band. It may overwrite the input band (the
// Lab conversion does) and must write every sample of every output plane.
class BandFilter {
 public:
  virtual ~BandFilter() = default;
  virtual void filter_band(const Plan& plan, PaddedBand& input, OutputBand& output) = 0;
};

}  // namespace edgewise
