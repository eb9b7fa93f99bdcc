// The Fourier bilateral filter's band kernel on the CPU. Colour planes to
// working units in place (Lab in lab mode), clamped and centred; the
// blurred alpha once (a pass of one image); then per colour channel, its
// terms in passes of up to kFourierGroupTerms, each the column pass over
// strips of W columns and the row pass over blocks of W output rows
// (OpenMP; each pixel by one thread in a fixed order, so results do not
// depend on the thread count), D and E carried from pass to pass in the
// block layout; the last pass writes the output; Lab back, alpha through.
#include "fourier_cpu.h"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "color_rows.h"
#include "fourier_math.h"

namespace edgewise::cpu {

void FourierBuffer::reserve(size_t floats) {
  if (floats <= size_) return;
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t wanted = floats * sizeof(float);
  const size_t alignment = wanted >= kHuge ? kHuge : 64;
  const size_t bytes = (wanted + alignment - 1) / alignment * alignment;
  data_.reset(static_cast<float*>(std::aligned_alloc(alignment, bytes)));
  if (!data_) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (alignment == kHuge) madvise(data_.get(), bytes, MADV_HUGEPAGE);
#endif
  size_ = floats;
}

std::vector<float> fourier_pole_powers(const FourierParams& p) {
  const size_t n = size_t(p.radius) + 1;
  std::vector<float> powers(p.recursive ? 4 * n : 0);
  for (int i = 0; i < 2 && p.recursive; ++i) {
    const std::complex<double> z(p.pole_re[i], p.pole_im[i]);
    std::complex<double> power = 1.0;
    for (size_t m = 0; m < n; ++m, power *= z) {
      powers[2 * size_t(i) * n + m] = float(power.real());
      powers[(2 * size_t(i) + 1) * n + m] = float(power.imag());
    }
  }
  return powers;
}

namespace {

// The channel's N terms in passes of at most kFourierGroupTerms, as even as
// possible (N = 14: 7 and 7), so no pass is much shorter than the others.
int pass_count(int terms) { return (terms + kFourierGroupTerms - 1) / kFourierGroupTerms; }
int pass_first(int terms, int pass) {
  const int passes = pass_count(terms), even = terms / passes, extra = terms % passes;
  return 1 + pass * even + std::min(pass, extra);
}
int pass_terms(int terms, int pass) { return pass_first(terms, pass + 1) - pass_first(terms, pass); }
// The most images a pass of this plan blurs.
int plan_images(const FourierParams& p) { return 2 * pass_terms(p.terms, 0); }

FourierGroupTerms term_group(const FourierPlan& plan, int c, int first, int count) {
  const FourierParams& p = plan.params;
  FourierGroupTerms terms;
  terms.first = first;
  terms.count = count;
  terms.base = p.channel[c].turns_per_unit;
  terms.first_frequency = float(double(first) * double(p.channel[c].turns_per_unit));
  for (int t = 0; t < count; ++t) {
    terms.cosine[t] = plan.cosine[plan.coefficient(c, first + t)];
    terms.sine[t] = plan.sine[plan.coefficient(c, first + t)];
  }
  return terms;
}

// Floats of one thread's scratch (FourierScratch) for W lanes and `images`
// images a pass; `rows`: the most output rows of a band.
struct ScratchFloats {
  size_t strip, ring, after, tile, lanes, transposed;
  size_t total() const { return strip + ring + after + tile + lanes + 2 * transposed; }
};
ScratchFloats scratch_floats(const FourierParams& p, int lanes, int images, int width, int rows) {
  const size_t per_pixel = size_t(images) * size_t(lanes);
  ScratchFloats s;
  s.strip = size_t(rows + 2 * p.radius) * size_t(lanes) * 2;
  s.ring = size_t(p.recursive ? rows + 2 * p.radius : 2 * p.radius + 1) * per_pixel;
  s.after = p.recursive ? size_t(rows) * per_pixel : 0;
  s.tile = size_t(lanes) * per_pixel;
  s.lanes = p.recursive ? size_t(width) * per_pixel : 0;
  s.transposed = size_t(width) * size_t(lanes);
  return s;
}

class FourierKernel : public BandKernel {
 public:
  FourierKernel(const FourierPlan& plan, const KernelContext& context)
      : plan_(plan),
        context_(context),
        passes_(select_fourier_passes()),
        powers_(fourier_pole_powers(plan.params)),
        scratch_(size_t(threads())) {
    const FourierParams& p = plan.params;
    if (p.coarse_step > 1) return;  // run_coarse sizes its own buffers
    const int lanes = passes_.lanes, width = plan.shape.width;
    const size_t blocks = size_t((context.band_rows + lanes - 1) / lanes);
    const size_t plane = blocks * size_t(lanes) * size_t(width);
    blurred_.reserve(plane * size_t(plan_images(p)));
    if (p.has_alpha) alpha_mass_.reserve(plane);
    if (pass_count(p.terms) > 1) sums_.reserve(2 * plane);
    const ScratchFloats s = scratch_floats(p, lanes, plan_images(p), width, context.band_rows);
    for (FourierScratch& scratch : scratch_) {
      scratch.strip.reserve(s.strip);
      scratch.ring.reserve(s.ring);
      scratch.after.reserve(s.after);
      scratch.tile.reserve(s.tile);
      scratch.lanes.reserve(s.lanes);
      scratch.samples.reserve(s.transposed);
      scratch.result.reserve(s.transposed);
    }
  }

  void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>&) override {
    const FourierParams& p = plan_.params;
    prepare(input);
    if (p.coarse_step > 1) {
      run_coarse(input, output);
      finish_pixels(input, output);
      return;
    }
    FourierPass pass;
    pass.params = &p;
    pass.taps = plan_.taps.data();
    pass.powers = powers_.data();
    pass.alpha = p.has_alpha ? input.row(p.color_channels, 0) : nullptr;
    pass.stride = size_t(input.width);
    pass.rows = input.rows;
    pass.width = output.width;
    pass.reach = plan_.reach;
    pass.out_rows = output.rows;
    pass.blurred = blurred_.data();
    pass.alpha_mass = p.has_alpha ? alpha_mass_.data() : nullptr;
    pass.sums = sums_.data();
    pass.output_stride = output.row_stride;
    if (p.has_alpha) {
      pass.samples = input.row(0, 0);
      run_pass(pass);  // terms.count 0: A
    }
    for (int c = 0; c < p.color_channels; ++c) {
      pass.channel = &p.channel[c];
      pass.samples = input.row(c, 0);
      pass.output = output.row(c, 0);
      pass.a0 = plan_.cosine[plan_.coefficient(c, 0)];
      const int passes = pass_count(p.terms);
      for (int g = 0; g < passes; ++g) {
        pass.terms = term_group(plan_, c, pass_first(p.terms, g), pass_terms(p.terms, g));
        pass.first = g == 0;
        pass.last = g == passes - 1;
        run_pass(pass);
      }
    }
    finish_pixels(input, output);
  }

 private:
  int threads() const { return std::max(1, context_.threads); }

  // Working units in place: Lab, the unit, clamped and centred.
  void prepare(PaddedBand& band) const {
    const FourierParams& p = plan_.params;
#pragma omp parallel for schedule(static) num_threads(threads())
    for (int i = 0; i < band.rows; ++i) {
      if (p.lab) {
        color_rows().to_lab(band.row(0, i), band.row(1, i), band.row(2, i), size_t(band.width));
      }
      for (int c = 0; c < p.color_channels; ++c) {
        float* row = band.row(c, i);
        for (int x = 0; x < band.width; ++x) row[x] = fourier_centred(p.channel[c], row[x] * p.unit);
      }
    }
  }

  void run_pass(const FourierPass& pass) {
    const FourierPasses passes = passes_;
    const int lanes = passes.lanes;
    const int strips = (pass.width + lanes - 1) / lanes, blocks = (pass.out_rows + lanes - 1) / lanes;
#pragma omp parallel num_threads(threads())
    {
      FourierScratch& scratch = scratch_[size_t(omp_get_thread_num())];
      // Dynamic: a strip or block is the same work on any thread (results do
      // not depend on which), and on a shared machine the threads do not
      // progress alike; static halves left one waiting at each barrier.
#pragma omp for schedule(dynamic, 4)
      for (int strip = 0; strip < strips; ++strip) passes.columns(pass, strip * lanes, scratch);
#pragma omp for schedule(dynamic, 1)
      for (int block = 0; block < blocks; ++block) passes.rows(pass, block, scratch);
    }
  }

  // Reduced resolution (fourier_coarse_passes.h): per colour channel the
  // cells, their blur along rows and down columns, then the output rows.
  void run_coarse(const PaddedBand& input, const OutputBand& output) {
    const FourierParams& p = plan_.params;
    const FourierPasses passes = passes_;
    const int R = p.coarse_radius, width = output.width, lanes = passes.lanes;
    FourierCoarsePass pass;
    pass.params = &p;
    pass.alpha = p.has_alpha ? input.row(p.color_channels, 0) : nullptr;
    pass.stride = size_t(input.width);
    pass.first_row = input.first_row;
    pass.width = width;
    pass.height = plan_.shape.height;
    pass.vector_width = (width + lanes - 1) / lanes * lanes;
    pass.out_first_row = output.first_row;
    int first_row_cell, last_row_cell;
    float weight;
    fourier_coarse_position(p, output.first_row, first_row_cell, weight);
    fourier_coarse_position(p, output.first_row + output.rows - 1, last_row_cell, weight);
    const int first_column_cell = fourier_coarse_first(p);
    pass.planes = 2 * p.terms + (p.has_alpha ? 1 : 0);
    pass.inner_w = fourier_coarse_last(p, width) - first_column_cell + 1;
    pass.inner_h = last_row_cell + 1 - first_row_cell + 1;
    pass.grid_w = pass.inner_w + 2 * R;
    pass.grid_h = pass.inner_h + 2 * R;
    pass.cell_x0 = first_column_cell - R;
    pass.cell_y0 = first_row_cell - R;
    const size_t planes = size_t(pass.planes);
    cells_.reserve(planes * size_t(pass.grid_h) * size_t(pass.grid_w));
    rows_blurred_.reserve(planes * size_t(pass.grid_h) * size_t(pass.inner_w));
    // + a vector: coarse_expand loads W cells from a row's last ones.
    coarse_blurred_.reserve(planes * size_t(pass.inner_h) * size_t(pass.inner_w) + kFourierMaxLanes);
    pass.cells = cells_.data();
    pass.rows_blurred = rows_blurred_.data();
    pass.blurred = coarse_blurred_.data();
    vector_cell_.assign(size_t(pass.vector_width / lanes), 0);
    column_lane_.assign(size_t(pass.vector_width), 0);
    column_weight_.assign(size_t(pass.vector_width), 0.0f);
    for (int x = 0; x < pass.vector_width; ++x) {
      int cell;
      fourier_coarse_position(p, std::min(x, width - 1), cell, column_weight_[size_t(x)]);
      cell -= first_column_cell;
      if (x % lanes == 0) vector_cell_[size_t(x / lanes)] = cell;
      column_lane_[size_t(x)] = uint32_t(cell - vector_cell_[size_t(x / lanes)]);
    }
    pass.vector_cell = vector_cell_.data();
    pass.column_lane = column_lane_.data();
    pass.column_weight = column_weight_.data();
    pass.output_stride = output.row_stride;
    // Output rows in chunks of whole cell rows' worth, so that a chunk
    // expands each blurred cell row it uses once (and two at its start).
    const int chunk = std::max(4 * p.coarse_step, 16), chunks = (output.rows + chunk - 1) / chunk;
    for (int c = 0; c < p.color_channels; ++c) {
      pass.channel = &p.channel[c];
      pass.cosine = &plan_.cosine[plan_.coefficient(c, 0)];
      pass.sine = &plan_.sine[plan_.coefficient(c, 0)];
      pass.samples = input.row(c, 0);
      pass.output = output.row(c, 0);
#pragma omp parallel num_threads(threads())
      {
        FourierScratch& scratch = scratch_[size_t(omp_get_thread_num())];
        // + s - 1 columns: the sums of s columns read past the last plane's row.
        scratch.coarse_sums.reserve(planes * size_t(pass.vector_width) + size_t(p.coarse_step));
        scratch.coarse_lines.reserve(2 * planes * size_t(pass.vector_width));
#pragma omp for schedule(dynamic, 1)
        for (int row = 0; row < pass.grid_h; ++row) passes.coarse_cells(pass, row, scratch);
#pragma omp for schedule(dynamic, 8)
        for (int i = 0; i < pass.planes * pass.grid_h; ++i)
          passes.coarse_blur_row(pass, i / pass.grid_h, i % pass.grid_h);
#pragma omp for schedule(dynamic, 8)
        for (int i = 0; i < pass.planes * pass.inner_h; ++i)
          passes.coarse_blur_column(pass, i / pass.inner_h, i % pass.inner_h);
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < chunks; ++k)
          passes.coarse_output(pass, k * chunk, std::min(chunk, output.rows - k * chunk), scratch);
      }
    }
  }

  // Lab back to R'G'B', alpha passed through.
  void finish_pixels(const PaddedBand& input, const OutputBand& output) const {
    const FourierParams& p = plan_.params;
#pragma omp parallel for schedule(static) num_threads(threads())
    for (int j = 0; j < output.rows; ++j) {
      if (p.lab) {
        color_rows().from_lab(output.row(0, j), output.row(1, j), output.row(2, j), size_t(output.width));
      }
      if (p.has_alpha)
        std::memcpy(output.row(p.color_channels, j), input.row(p.color_channels, j + plan_.reach),
                    size_t(output.width) * sizeof(float));
    }
  }

  const FourierPlan& plan_;
  KernelContext context_;
  FourierPasses passes_;
  std::vector<float> powers_;
  std::vector<FourierScratch> scratch_;
  FourierBuffer blurred_, alpha_mass_, sums_;
  FourierBuffer cells_, rows_blurred_, coarse_blurred_;  // reduced resolution
  std::vector<int> vector_cell_;
  std::vector<uint32_t> column_lane_;
  std::vector<float> column_weight_;
};

}  // namespace

BandCost fourier_own_cost(const Plan& plan) {
  // Per output row: the column-blurred images, A, D and E between passes,
  // and each thread's images, anticausal halves and strip; fixed: the rest of each thread's
  // scratch. Counted for two threads and the widest vectors.
  const auto& p = static_cast<const FourierPlan&>(plan).params;
  const size_t width = size_t(plan.shape.width), images = size_t(plan_images(p));
  if (p.coarse_step > 1) {
    // The grid's three buffers: a cell row per s output rows, 2R + 2 more
    // rows fixed; each thread's sums and two expanded lines.
    const size_t planes = size_t(2 * p.terms + 1), s = size_t(p.coarse_step), R = size_t(p.coarse_radius);
    const size_t grid_w = width / s + 2 * R + 3, per_cell_row = planes * 3 * grid_w;
    const size_t lines = 3 * planes * (width + kFourierMaxLanes);
    return {(2 * R + 2) * per_cell_row + 2 * lines, (per_cell_row + s - 1) / s};
  }
  const ScratchFloats s = scratch_floats(p, kFourierMaxLanes, int(images), int(width), 0);
  const size_t per_row = width * (images + (p.has_alpha ? 1 : 0) + (pass_count(p.terms) > 1 ? 2 : 0)) +
                         2 * ((p.recursive ? 2 * images : 0) + 2) * kFourierMaxLanes;
  return {2 * s.total(), per_row};
}

std::unique_ptr<BandKernel> make_fourier_kernel(const Plan& plan, const KernelContext& context) {
  return std::make_unique<FourierKernel>(static_cast<const FourierPlan&>(plan), context);
}

}  // namespace edgewise::cpu
