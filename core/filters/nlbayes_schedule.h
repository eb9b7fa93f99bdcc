// The collaborative denoiser's schedule (core/filters/nlbayes.h states the
// algorithm): for a band's output rows, which rows each scale and each step
// computes and which rows they read, written once for both backends
// (cpu_fallback/nlbayes_cpu.cpp and cuda/nlbayes.cu execute it; neither
// computes a row range of its own) and for the reach and the region grid
// (nlbayes.cpp), so that the halo a band is given is the one its steps read.
//
// From the output rows back, per scale (finest first):
//   - out: the scale's result rows (scale 0: the band's output rows; a
//     coarser scale: the rows the bilinear taps of the finer one's out read,
//     nlb_upsample_taps);
//   - denoised: the rows its two steps deliver: out, and where a coarser
//     scale follows, the fine rows of the coarse rows the taps read, because
//     out_k = D_k + U(out_{k+1} - Dn(D_k)) takes the 2 x 2 means Dn(D_k)
//     there (up to two rows outside out);
//   - step 2's out is denoised; its reference grid rows are those whose
//     groups' members (within R of the reference, a patch tall) reach it;
//     it reads the rows those groups span, of the noisy input and of the
//     basic estimate, which is therefore step 1's out;
//   - step 1's grid and read rows follow from its out the same way;
//   - input: the noisy rows the scale needs, its steps' reads and, where a
//     coarser scale follows, the fine rows of the coarser one's input (each
//     coarse row is the mean of fine rows 2y and 2y + 1).
// A row's value never depends on the range it is computed in (a pixel's sums
// add the same groups in the same order, nlbayes_cpu.cpp), so ranges larger
// than these give the same output; smaller ones read rows nobody computed.
#pragma once

#include "hostdevice.h"
#include "nlbayes.h"
#include "nlbayes_math.h"

namespace edgewise {

// Rows [first, end) of one scale.
struct NlbRowRange {
  int first = 0, end = 0;
  EW_HD int rows() const { return end > first ? end - first : 0; }
  EW_HD bool contains(const NlbRowRange& other) const {
    return other.rows() == 0 || (first <= other.first && other.end <= end);
  }
};

// The rows the groups of reference grid rows `grid` (indices) span on a
// scale `height` rows tall: a member lies at most R rows from its reference
// and inside the image (nlb_search_range), and is a patch tall.
EW_HD NlbRowRange nlb_group_rows(const NlbRowRange& grid, int height, int patch, const NlbStep& step) {
  if (grid.rows() == 0) return {};
  const int top = nlb_grid_position(grid.first, height, patch, step.step) - step.search_radius;
  const int bottom = nlb_grid_position(grid.end - 1, height, patch, step.step) + step.search_radius + patch;
  return {top > 0 ? top : 0, bottom < height ? bottom : height};
}

// One step of one scale.
struct NlbStepRows {
  int patch = 0;     // the step's patch side at this scale (nlb_patch_side)
  NlbRowRange out;   // the rows whose sums it adds and divides
  NlbRowRange grid;  // reference grid rows (indices) whose groups reach out
  NlbRowRange read;  // the rows those groups read: noisy input, and step 2's basic estimate
};

// One scale: its size and its row ranges (the header comment says why each).
struct NlbScaleRows {
  int width = 0, height = 0;
  NlbRowRange input, denoised, out;
  NlbStepRows step[2];  // step[steps - 1].out is denoised
};

struct NlbSchedule {
  int scales = 1, steps = 2;
  NlbScaleRows scale[kNlbMaxScales];
};

// The schedule of output rows [out0, out1) of an image of width x height
// pixels (scale 0), with the plan's values.
NlbSchedule nlbayes_schedule(const NlbParams& params, int width, int height, int out0, int out1);

// The rows after which the schedule's arithmetic repeats: every scale's
// reference grid, the CPU's slabs of kNlbSumGridRows grid rows and the
// 2 x 2 blocks of every coarser scale start on each multiple of it, so that
// a part of the image that starts there computes every pixel as the whole
// image does (the region grid).
int nlbayes_row_period(const NlbParams& params);

}  // namespace edgewise
