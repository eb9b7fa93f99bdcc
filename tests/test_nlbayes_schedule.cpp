// The collaborative denoiser's schedule (core/filters/nlbayes_schedule.h)
// against an independent count: the CPU filter run on an image with one row
// changed, once for every row, tells which output rows depend on which input
// rows. Every output row must depend on exactly the rows its schedule says
// its band reads (none outside: the schedule misses no margin; every one
// inside: it reads none it does not need), and the reach must be the largest
// such distance where every row holds a reference (an upper bound where the
// reference grid leaves rows out). Several scale counts, patch sizes, search
// radii and reference steps, grey and colour.
//
// For every read row to show in the output, every candidate of a window is a
// member of its group (group size 256): a changed row then changes the
// statistics of every group that reads it, and so every pixel those groups
// estimate; a bilinear tap and a 2 x 2 mean never weigh a row by 0. On one
// image a row at the end of a chain (step 1's group, its basic estimate,
// step 2's statistics) may still change nothing, so the rows read are
// compared with the union of two images' dependencies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "nlbayes.h"
#include "nlbayes_schedule.h"
#include "test_support.h"

namespace edgewise_test {
namespace {

using edgewise::NlbPlan;
using edgewise::NlbRowRange;

struct Case {
  int channels;  // 1 grey, 3 colour
  int patch;     // 0: auto
  int radius;
  int step;  // 0: auto
  int scales;
};

std::string describe(const Case& c) {
  return std::to_string(c.channels) + " channels, patch " + std::to_string(c.patch) + ", radius " +
         std::to_string(c.radius) + ", step " + std::to_string(c.step) + ", scales " + std::to_string(c.scales);
}

FilterSpec spec_of(const Case& c) {
  FilterSpec spec(edgewise::nlbayes_filter());
  EXPECT_EQ(edgewise::set_param(spec, "sigma-n", 5.0), "");
  EXPECT_EQ(edgewise::set_param(spec, "patch-size", double(c.patch)), "");
  EXPECT_EQ(edgewise::set_param(spec, "group-size", 256.0), "");
  EXPECT_EQ(edgewise::set_param(spec, "search-radius", double(c.radius)), "");
  EXPECT_EQ(edgewise::set_param(spec, "reference-step", double(c.step)), "");
  EXPECT_EQ(edgewise::set_param(spec, "scales", double(c.scales)), "");
  return spec;
}

bool same_row(const FloatImage& a, const FloatImage& b, int y) {
  const size_t row = size_t(a.shape().width) * size_t(a.shape().channels);
  return std::memcmp(a.pixels().data() + size_t(y) * row, b.pixels().data() + size_t(y) * row, row * sizeof(float)) ==
         0;
}

// Per output row, the input rows a change of which changed it: [first, end),
// empty where none did.
std::vector<NlbRowRange> measured_dependencies(const FilterSpec& spec, const FloatImage& image) {
  const ImageShape& shape = image.shape();
  const FloatImage base = run_cpu(spec, image);
  std::vector<NlbRowRange> depends(size_t(shape.height), NlbRowRange{shape.height, 0});
  for (int row = 0; row < shape.height; ++row) {
    FloatImage changed = image;
    for (int x = 0; x < shape.width; ++x)
      for (int c = 0; c < shape.channels; ++c) changed.at(x, row, c) = 1.0f - 0.8f * changed.at(x, row, c);
    const FloatImage out = run_cpu(spec, changed);
    for (int y = 0; y < shape.height; ++y)
      if (!same_row(base, out, y)) {
        NlbRowRange& range = depends[size_t(y)];
        range.first = std::min(range.first, row);
        range.end = std::max(range.end, row + 1);
      }
  }
  return depends;
}

TEST(NlBayesSchedule, ReadsWhatTheOutputDependsOn) {
  EW_SEEDED_RNG(rng);
  // Step 1 estimates a group only where it holds at least as many patches
  // as a patch has pixels (nlbayes.h), so that every window here does:
  // (2R + 1)^2 >= p^2, on the coarsest scale too (width / 2^(scales - 1)
  // >= p + 2R).
  const Case cases[] = {
      {1, 3, 2, 1, 1},  // every row a reference: the reach is reached
      {1, 5, 2, 1, 2},  //
      {3, 3, 1, 1, 3},  //
      {1, 4, 2, 0, 2},  // references every other row (auto)
      {3, 0, 2, 3, 1},  // auto patches (4, then 3), every third row
      {3, 2, 1, 2, 2},  //
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    const FilterSpec spec = spec_of(c);
    // Wide enough that the coarsest scale holds whole patches; tall enough
    // for rows that no border clamps, at every alignment to the scales'
    // 2 x 2 blocks.
    const int reach = edgewise::filter_reach(spec);
    const ImageShape shape{24, 2 * reach + 2 * (1 << c.scales) + 9, c.channels};
    const std::unique_ptr<edgewise::Plan> made = edgewise::make_plan(spec, shape);
    const NlbPlan& plan = static_cast<const NlbPlan&>(*made);
    ASSERT_EQ(plan.params.scales, c.scales);
    EXPECT_LE(plan.reach, reach);
    // The schedule holds for every image; whether a row it reads shows in a
    // given output row depends on the image (seed 15125925906828067335:
    // input row 3 changed nothing in output row 15 on its first image,
    // whichever way it was changed). "Reads no row it does not need" is a
    // claim about some image, so it is measured on the union over two.
    std::vector<NlbRowRange> depends = measured_dependencies(spec, random_image(rng, shape));
    const std::vector<NlbRowRange> second = measured_dependencies(spec, random_image(rng, shape));
    for (size_t y = 0; y < depends.size(); ++y) {
      depends[y].first = std::min(depends[y].first, second[y].first);
      depends[y].end = std::max(depends[y].end, second[y].end);
    }
    int farthest = 0;
    for (int y = 0; y < shape.height; ++y) {
      SCOPED_TRACE("output row " + std::to_string(y));
      const NlbRowRange read =
          edgewise::nlbayes_schedule(plan.params, shape.width, shape.height, y, y + 1).scale[0].input;
      const NlbRowRange& measured = depends[size_t(y)];
      EXPECT_TRUE(read.contains(measured)) << "measured rows " << measured.first << " to " << measured.end
                                           << ", the schedule's " << read.first << " to " << read.end;
      // Near the top and bottom, windows are cut and hold too few patches
      // for step 1 (which then keeps a group's input): rows read that
      // change nothing.
      if (read.first > 0 && read.end < shape.height) {
        EXPECT_EQ(measured.first, read.first);
        EXPECT_EQ(measured.end, read.end);
      }
      farthest = std::max({farthest, y - measured.first, measured.end - 1 - y});
    }
    EXPECT_LE(farthest, plan.reach);
    if (c.step == 1) {
      EXPECT_EQ(farthest, plan.reach);
    }
  }
}

// The reach and the region grid before the noise is known (FilterInfo) are
// the plan's for the channels and scales that read the most: sigma never
// changes the rows read, and the plan's reach follows its schedule.
TEST(NlBayesSchedule, FilterReachIsThePlansBound) {
  for (const double sigma : {1.0, 20.0, 90.0})
    for (const int scales : {1, 2, 3}) {
      FilterSpec spec(edgewise::nlbayes_filter());
      ASSERT_EQ(edgewise::set_param(spec, "sigma-n", sigma), "");
      ASSERT_EQ(edgewise::set_param(spec, "scales", double(scales)), "");
      int most = 0;
      for (const int channels : {1, 3}) {
        const std::unique_ptr<edgewise::Plan> plan = edgewise::make_plan(spec, {400, 300, channels});
        EXPECT_EQ(plan->reach, edgewise::nlbayes_reach(static_cast<const NlbPlan&>(*plan).params));
        most = std::max(most, plan->reach);
        EXPECT_EQ(edgewise::nlbayes_filter().region_grid(spec) %
                      edgewise::nlbayes_row_period(static_cast<const NlbPlan&>(*plan).params),
                  0);
      }
      EXPECT_EQ(edgewise::filter_reach(spec), most) << "sigma " << sigma << ", scales " << scales;
    }
}

}  // namespace
}  // namespace edgewise_test
