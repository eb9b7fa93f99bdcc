// The Fourier bilateral filter on the CPU: its band kernel (fourier_cpu.cpp)
// and the two passes compiled once per instruction set (fourier_passes.h).
// A vector holds one image's values at W neighbouring pixels (W = 16 with
// AVX-512, 8 with AVX2, 4 in the baseline build): W columns of a row in the
// column pass, W rows of a column in the row pass. So every lane does
// useful work whatever the term count, the term values come from one sine
// pair and rotations, and D and E need no sums across lanes. Between the
// passes the column-blurred images are stored transposed, in blocks of W
// rows (FourierPass::blurred), which the row pass reads one column at a time.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "cpu_kernels.h"
#include "fourier.h"

namespace edgewise::cpu {

BandCost fourier_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_fourier_kernel(const Plan& plan, const KernelContext& context);

// Terms a pass blurs at once: its images are cos and sin of each (16 at
// most), stored between the two passes (64 B a pixel). N = 6, sigma-r 25's
// automatic count, takes one pass.
constexpr int kFourierGroupTerms = 8;
constexpr int kFourierMaxImages = 2 * kFourierGroupTerms;
constexpr int kFourierMaxLanes = 16;  // the widest vector (AVX-512), for buffer sizes

// One pass's terms k = first .. first + count - 1 for one colour channel,
// or (count 0) the alpha pass, whose one image is alpha.
struct FourierGroupTerms {
  int first = 0, count = 0;
  float base = 0;                         // term 1's frequency 1 / T: the rotations' step
  float first_frequency = 0;              // term `first`'s, first / T
  float cosine[kFourierGroupTerms] = {};  // a_k
  float sine[kFourierGroupTerms] = {};    // b_k
};

inline int fourier_images(const FourierGroupTerms& terms) { return terms.count ? 2 * terms.count : 1; }

// 64-byte aligned floats for the vector buffers (std::vector's are not).
class FourierBuffer {
 public:
  float* data() const { return data_.get(); }
  size_t size() const { return size_; }
  // Buffers of 2 MiB and more in huge pages where the kernel offers them
  // (madvise): the passes walk them a column at a time, a page a step with
  // 4 KiB pages.
  void reserve(size_t floats);

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
  size_t size_ = 0;
};

// One pass over one colour channel (or alpha) of a band.
struct FourierPass {
  const FourierParams* params = nullptr;
  const FourierChannel* channel = nullptr;  // null in the alpha pass
  const float* taps = nullptr;              // the direct taps (not recursive)
  // The recursion's pole powers z_i^m, m = 0..r: Re and Im of section 0,
  // then of section 1, r + 1 floats each (fourier_pole_powers).
  const float* powers = nullptr;
  FourierGroupTerms terms;
  float a0 = 0;                    // a_0 of the channel: D starts at a_0 A
  bool first = true, last = true;  // the channel's first and last pass
  // The band: centred samples and alpha (or null), band row i at + i * stride.
  const float* samples = nullptr;
  const float* alpha = nullptr;
  size_t stride = 0;
  int rows = 0, width = 0;
  int reach = 0;  // output row j is band row j + reach
  int out_rows = 0;
  // Block layout: output rows in blocks of W; block b, column x, image l
  // at ((b * width + x) * images + l) * W, one float a row of the block.
  float* blurred = nullptr;     // the column pass's images
  float* alpha_mass = nullptr;  // A (1 image), written by the alpha pass; null without alpha
  float* sums = nullptr;        // D and E (2 images) between passes of one channel, or null
  // The last pass writes the channel's output: output row j at output + j * output_stride.
  float* output = nullptr;
  size_t output_stride = 0;
};

// One colour channel of a band at reduced resolution (params->coarse_step
// > 1; fourier_coarse_passes.h). Planes: alpha (with an alpha plane), then
// cos and sin of each term k = 1..N, each times alpha.
struct FourierCoarsePass {
  const FourierParams* params = nullptr;
  const FourierChannel* channel = nullptr;
  const float* cosine = nullptr;  // a_k of the channel, k = 0..N
  const float* sine = nullptr;    // b_k
  // The band: centred samples and alpha (or null), band row i at + i *
  // stride, band row 0 is image row first_row; rows beyond the image
  // repeat its edge rows.
  const float* samples = nullptr;
  const float* alpha = nullptr;
  size_t stride = 0;
  int first_row = 0, width = 0, height = 0;  // height: the image's
  int vector_width = 0;                      // width rounded up to whole vectors: a line of the scratch
  int out_first_row = 0;                     // image row of output row 0
  // The grid: cells [cell_x0, cell_x0 + grid_w) x [cell_y0, cell_y0 +
  // grid_h); the inner ones (what the pixels interpolate between) are R
  // (the cell Gaussian's radius) in from every side, inner_w x inner_h.
  int planes = 0;
  int cell_x0 = 0, cell_y0 = 0, grid_w = 0, grid_h = 0, inner_w = 0, inner_h = 0;
  float* cells = nullptr;         // plane l, grid row r at (l grid_h + r) grid_w
  float* rows_blurred = nullptr;  // plane l, grid row r at (l grid_h + r) inner_w
  float* blurred = nullptr;       // plane l, inner row r at (l inner_h + r) inner_w
  // Per vector v of W pixel columns (x = v W ..): the inner cell left of its
  // first pixel; per column x (vector_width of them, the last repeated):
  // its left inner cell less its vector's, and the right cell's weight.
  const int* vector_cell = nullptr;
  const uint32_t* column_lane = nullptr;
  const float* column_weight = nullptr;
  float* output = nullptr;  // output row j at output + j * output_stride
  size_t output_stride = 0;
};

// The recursion's pole powers for FourierPass::powers (in double, then
// rounded): where a walk starts with r + 1 samples behind it, its state is
// their sum weighted by these.
std::vector<float> fourier_pole_powers(const FourierParams& p);

// One thread's working memory, sized by the band kernel (fourier_scratch_floats).
struct FourierScratch {
  FourierBuffer strip, ring, after, tile, lanes, samples, result;
  FourierBuffer coarse_sums, coarse_lines;  // reduced resolution: planes x vector_width, twice that
};

using FourierColumnPass = void (*)(const FourierPass& pass, int x0, FourierScratch& scratch);
using FourierRowPass = void (*)(const FourierPass& pass, int block, FourierScratch& scratch);

struct FourierPasses {
  int lanes;                  // W
  FourierColumnPass columns;  // columns [x0, x0 + W) of every output row, into `blurred`
  FourierRowPass rows;        // output rows [block W, block W + W): along the rows, combined into D and E
  // Reduced resolution: a grid row of cells; the blur of one plane's grid
  // row (along it) or inner row (down the columns); output rows.
  void (*coarse_cells)(const FourierCoarsePass& pass, int row, FourierScratch& scratch);
  void (*coarse_blur_row)(const FourierCoarsePass& pass, int plane, int row);
  void (*coarse_blur_column)(const FourierCoarsePass& pass, int plane, int row);
  void (*coarse_output)(const FourierCoarsePass& pass, int first, int count, FourierScratch& scratch);
};

namespace generic {
FourierPasses fourier_passes();
}
namespace avx2 {
FourierPasses fourier_passes();
}
namespace avx512 {
FourierPasses fourier_passes();
}

// The machine's passes (instruction_set()).
FourierPasses select_fourier_passes();

}  // namespace edgewise::cpu
