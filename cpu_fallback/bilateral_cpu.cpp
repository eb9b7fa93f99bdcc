// Threading is OpenMP: it ships with the compiler (no extra dependency), and
// a static split of a band's rows across threads keeps results independent
// of the thread count, since each pixel is computed by one thread alone.
#include "bilateral_cpu.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "backend.h"
#include "banded_pass.h"
#include "color_lab.h"

namespace edgewise {
namespace cpu {
namespace {

// Converts the colour planes of `pixels` samples in place.
void planes_to_lab(float* r, float* g, float* b, size_t pixels, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (ptrdiff_t i = 0; i < ptrdiff_t(pixels); ++i) rgb_to_lab(r[i], g[i], b[i], r[i], g[i], b[i]);
}

void planes_from_lab(float* L, float* a, float* b, size_t pixels, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (ptrdiff_t i = 0; i < ptrdiff_t(pixels); ++i) lab_to_rgb(L[i], a[i], b[i], L[i], a[i], b[i]);
}

class CpuBandFilter : public BandFilter {
 public:
  CpuBandFilter(const Plan& plan, int threads)
      : kernel_(select_row_kernel(plan.params)), threads_(threads) {}

  void filter_band(const Plan& plan, PaddedBand& in, OutputBand& out) override {
    const BilateralParams& p = plan.params;
    if (p.lab) planes_to_lab(in.plane(0), in.plane(1), in.plane(2), in.plane_stride, threads_);

    const RowFunction rows = kernel_.rows;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (int y = 0; y < out.rows; ++y) rows(plan, in, out, y, y + 1);

    // A sigma map is not a colour: it stays as computed.
    if (p.lab && !p.output_sigma) planes_from_lab(out.plane(0), out.plane(1), out.plane(2), out.plane_stride, threads_);
    if (p.has_alpha) copy_alpha(plan, in, out);
  }

 private:
  // Alpha passes through unchanged.
  static void copy_alpha(const Plan& plan, const PaddedBand& in, const OutputBand& out) {
    const int r = plan.radius, alpha = plan.params.color_channels;
    for (int y = 0; y < out.rows; ++y)
      std::memcpy(out.plane(alpha) + size_t(y) * size_t(out.width),
                  in.plane(alpha) + size_t(y + r) * size_t(in.width) + size_t(r),
                  size_t(out.width) * sizeof(float));
  }

  RowKernel kernel_;
  int threads_;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& options)
      : threads_(options.threads > 0 ? options.threads : omp_get_num_procs()) {}

  std::string name() const override {
    return "cpu (" + std::string(select_row_kernel(BilateralParams{}).isa) + ", " +
           std::to_string(threads_) + " threads)";
  }

  void run_pass(const Plan& plan, PixelSource& source, PixelSink& sink, const ProgressFn& progress,
                double progress_base, double progress_span) override {
    CpuBandFilter filter(plan, threads_);
    const int threads = threads_;
    const ParallelRows parallel = [threads](int count, const std::function<void(int, int)>& body) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int i = 0; i < count; ++i) body(i, i + 1);
    };
    run_banded_pass(plan, source, sink, filter, progress, progress_base, progress_span, parallel);
  }

 private:
  int threads_;
};

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
  return std::make_unique<cpu::CpuBackend>(options);
}

}  // namespace edgewise
