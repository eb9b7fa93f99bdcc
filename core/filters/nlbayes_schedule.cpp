// The collaborative denoiser's schedule (nlbayes_schedule.h) and the reach
// and row period derived from it.
#include "nlbayes_schedule.h"

#include <algorithm>
#include <numeric>

namespace edgewise {

namespace {

NlbRowRange clamped(int first, int end, int height) { return {std::max(0, first), std::min(height, end)}; }

NlbRowRange hull(const NlbRowRange& a, const NlbRowRange& b) {
  if (a.rows() == 0) return b;
  if (b.rows() == 0) return a;
  return {std::min(a.first, b.first), std::max(a.end, b.end)};
}

// A step that must deliver rows `out`: a reference at row r has members in
// rows [r - R, r + R + p), so the references from R + p - 1 rows above out's
// first row to R - 1 rows below its last one reach it.
NlbStepRows step_rows(const NlbStep& step, int width, int height, const NlbRowRange& out) {
  NlbStepRows rows;
  rows.patch = nlb_patch_side(step.patch, width, height);
  rows.out = out;
  const int radius = step.search_radius;
  rows.grid = {nlb_grid_first_from(out.first - radius - rows.patch + 1, height, rows.patch, step.step),
               nlb_grid_first_from(out.end + radius, height, rows.patch, step.step)};
  rows.read = nlb_group_rows(rows.grid, height, rows.patch, step);
  return rows;
}

}  // namespace

NlbSchedule nlbayes_schedule(const NlbParams& params, int width, int height, int out0, int out1) {
  NlbSchedule schedule;
  schedule.scales = params.scales;
  schedule.steps = params.steps;
  const NlbStep* steps[2] = {&params.first, &params.second};
  NlbRowRange out{out0, out1};
  for (int k = 0; k < params.scales; ++k) {
    NlbScaleRows& scale = schedule.scale[k];
    scale.width = width;
    scale.height = height;
    scale.out = out;
    scale.denoised = out;
    const int coarse_height = (height + 1) / 2;
    NlbRowRange coarse_out;
    if (k + 1 < params.scales) {
      // The coarse rows the bilinear taps of out read; then the 2 x 2
      // means Dn(D_k) on them take fine rows 2c and 2c + 1 of each: up to
      // two rows outside out on either side (one on one side, two on the
      // other, by the parity of out's first and last rows).
      int first, second, unused_tap;
      float unused_weight;
      nlb_upsample_taps(out.first, coarse_height, first, unused_tap, unused_weight);
      nlb_upsample_taps(out.end - 1, coarse_height, unused_tap, second, unused_weight);
      coarse_out = {first, second + 1};
      scale.denoised = clamped(2 * coarse_out.first, 2 * coarse_out.end, height);
    }
    NlbRowRange deliver = scale.denoised;
    for (int i = params.steps - 1; i >= 0; --i) {
      scale.step[i] = step_rows(*steps[i], width, height, deliver);
      deliver = hull(deliver, scale.step[i].read);  // step 1 delivers the basic estimate step 2 reads
    }
    scale.input = deliver;
    out = coarse_out;
    width = (width + 1) / 2;
    height = coarse_height;
  }
  // From the coarsest back: a coarse row is the mean of fine rows 2y and
  // 2y + 1 (the last row alone where the fine height is odd).
  for (int k = params.scales - 2; k >= 0; --k) {
    const NlbRowRange& coarse = schedule.scale[k + 1].input;
    NlbScaleRows& fine = schedule.scale[k];
    fine.input = hull(fine.input, clamped(2 * coarse.first, 2 * coarse.end, fine.height));
  }
  return schedule;
}

// The largest distance from a band's output rows to the rows its schedule
// reads, for any image: the schedule of one output row in the middle of an
// image too large for anything to be clamped, at every alignment of that
// row to the 2 x 2 blocks of every scale (a range's first read row follows
// its first row, its last one its last row, so one-row bands at every
// alignment bound every band). Every row is taken as a reference row (a
// reference step of 1): the last reference of an image, at height - p, may
// lie on any row, and more references only read more rows.
int nlbayes_reach(const NlbParams& params) {
  NlbParams every_row = params;
  every_row.first.step = every_row.second.step = 1;
  constexpr int kMiddle = 1 << 24;
  int reach = 0;
  for (int offset = 0; offset < (1 << kNlbMaxScales); ++offset) {
    const int row = kMiddle + offset;
    const NlbRowRange input = nlbayes_schedule(every_row, 2 * kMiddle, 2 * kMiddle, row, row + 1).scale[0].input;
    reach = std::max({reach, row - input.first, input.end - (row + 1)});
  }
  return reach;
}

int nlbayes_row_period(const NlbParams& params) {
  return (std::lcm(params.first.step, params.second.step) * kNlbSumGridRows) << (params.scales - 1);
}

}  // namespace edgewise
