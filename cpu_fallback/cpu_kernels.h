// The CPU backend's band kernels, one per filter family (Plan::family): a
// filter's stem adds its kernel here (cpu_kernels.cpp) and nowhere else in
// this backend.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "band.h"
#include "band_io.h"
#include "pixel_stream.h"
#include "plan.h"

namespace edgewise::cpu {

// Floats for a band, left uninitialised: every sample a kernel reads is
// written first (unpacking fills the whole padded band), so filling it with
// zeros would only touch every page once more, on one thread (2.9 ms of a
// 4 MP rgb r = 2 run of 35 ms with 6 MiB bands). The last
// kBandOverhangFloats are zeroed: lanes past the last row's end read them.
class BandMemory {
 public:
  void resize(size_t floats) {
    data_.reset(new float[floats]);
    std::fill(data_.get() + floats - std::min(floats, kBandOverhangFloats), data_.get() + floats, 0.0f);
  }
  float* data() const { return data_.get(); }

 private:
  std::unique_ptr<float[]> data_;
};

// One family's computation of a band on the CPU. It may overwrite the input
// band, and must write every sample of the output and of each extra output.
class BandKernel {
 public:
  virtual ~BandKernel() = default;
  virtual void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>& extras) = 0;
};

// A family's computation that streams rows: it unpacks the input rows it
// needs itself, each row once, keeps what it computed from them for the
// bands after (the runner submits them in order, top to bottom), and packs
// its output rows while they are in cache. The pyramid filter: its halo is
// many rows deep and would otherwise be unpacked and reduced again by
// every band, and its finest level waits that long for the coarse levels.
// The runner allocates no bands for it. It makes no extra outputs.
class RowStreamKernel {
 public:
  virtual ~RowStreamKernel() = default;
  // `input`: the band's rows as stored (image rows y0 - reach .. y0 + rows
  // + reach, clipped to the image); `output`: its output rows, every
  // sample of which the kernel writes.
  virtual void run(const RowSpan& input, int image_height, const RowSpan& output) = 0;
};

struct KernelContext {
  int band_rows = 0;  // the most output rows a band has
  int threads = 1;
  ParallelRows parallel;  // OpenMP over rows, `threads` wide
  // The running band's BandTask::progress (the runner's, set per band);
  // kernels call it through band_progress() below.
  const std::function<void(double)>* progress = nullptr;
};

// Reports `done` (0 to 1) of the running band, where someone listens.
// Outside parallel regions only: it may throw Cancelled.
inline void band_progress(const KernelContext& context, double done) {
  if (context.progress && *context.progress) (*context.progress)(done);
}

// The same from inside a parallel region, on its thread 0 (the thread that
// submitted the band) only: a stop asked for here is not thrown (no
// exception may leave the region); the next band_progress after the region
// asks again and throws it.
inline void band_progress_inside(const KernelContext& context, double done) {
  try {
    band_progress(context, done);
  } catch (const Cancelled&) {
  }
}

struct KernelEntry {
  const char* family;
  // Floats of its own buffers per band (beyond the plan's), for the budget.
  BandCost (*own_cost)(const Plan& plan);
  // One of the two is set.
  std::unique_ptr<BandKernel> (*make)(const Plan& plan, const KernelContext& context);
  std::unique_ptr<RowStreamKernel> (*make_stream)(const Plan& plan, const KernelContext& context);
  // Bytes a band should hold (the plan's planes and its own buffers), where
  // the family is faster with bands sized for the cache; 0: the backend's
  // default. Bands still hold four reaches at least.
  size_t band_bytes = 0;
};

// The families this backend runs; null when it has none for `family`.
const KernelEntry* find_kernel(const std::string& family);

// The widest instruction set this processor runs ("avx512", "avx2", "generic").
const char* instruction_set();

}  // namespace edgewise::cpu
