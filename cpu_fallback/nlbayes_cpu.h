// The collaborative denoiser on the CPU: its band kernel (nlbayes_cpu.cpp:
// the opponent planes, the scales, the two steps' reference rows in slabs
// over OpenMP threads, the sums in a fixed order) and the per-instruction-set
// group function (nlbayes_groups.h: search, selection, statistics, solve and
// aggregation of one row of reference patches).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cpu_kernels.h"
#include "nlbayes.h"

namespace edgewise::cpu {

// Bands of about this many bytes: the halo of a step is a search window and
// a patch on each side (and each step recomputes its halo's groups), so tall
// bands waste less than the usual 48 MiB ones would.
constexpr size_t kNlbBandBytes = size_t(128) << 20;

BandCost nlbayes_own_cost(const Plan& plan);
std::unique_ptr<BandKernel> make_nlbayes_kernel(const Plan& plan, const KernelContext& context);

// Rows [row0, row0 + rows) of one scale (width x height pixels) in planes:
// `channels` colour planes in code values (opponent, or grey), then alpha
// when the image has it.
struct NlbRows {
  int width = 0, height = 0;
  int row0 = 0, rows = 0;
  int channels = 0;
  bool alpha = false;
  std::vector<float> data;

  void resize(int scale_width, int scale_height, int first, int count, int colours, bool with_alpha) {
    width = scale_width;
    height = scale_height;
    row0 = first;
    rows = count;
    channels = colours;
    alpha = with_alpha;
    data.resize(size_t(colours + (with_alpha ? 1 : 0)) * size_t(count) * size_t(scale_width));
  }
  float* row(int plane, int y) {
    return data.data() + (size_t(plane) * size_t(rows) + size_t(y - row0)) * size_t(width);
  }
  const float* row(int plane, int y) const {
    return data.data() + (size_t(plane) * size_t(rows) + size_t(y - row0)) * size_t(width);
  }
};

// Sees a scale's basic estimate (its first step's result, rows [row0, row0 +
// rows) of that scale: the rows its second step reads) before that scale's
// second step runs.
using NlbBasicObserver = std::function<void(int scale, const NlbRows& basic)>;

// A test hook (tests/test_nlbayes.cpp): the band kernel on the whole image
// as one band, on `threads` threads (`image` and `result`: interleaved 0-1
// floats of plan.shape), telling `observer` each scale's basic estimate.
// A float and a double first step may take a near tie apart, and the
// second step's groups then differ over a whole search window; fed the
// estimate the CPU's second step read, scale by scale, the reference's
// second step compares on the same input. Production runs never observe.
void nlbayes_run_observed(const NlbPlan& plan, const float* image, float* result, int threads,
                          const NlbBasicObserver& observer);

// One step of one scale: what its groups read.
struct NlbStepJob {
  const NlbParams* params = nullptr;
  const NlbNoiseTable* noise = nullptr;
  const NlbStep* step = nullptr;
  int scale = 0;
  int patch = 0;                   // the step's patch side at this scale
  const NlbRows* noisy = nullptr;  // the scale's input
  const NlbRows* basic = nullptr;  // step 2: the basic estimate; null in step 1
};

// Where a slab of reference rows adds its groups: the numerators of each
// colour plane and the denominator for image rows [row0, row0 + rows);
// members' pixels outside those rows are not needed and not added.
struct NlbSums {
  int row0 = 0, rows = 0, width = 0, channels = 0;
  float* data = nullptr;  // channels numerator planes, then the denominator
  float* plane_row(int plane, int y) const {
    return data + (size_t(plane) * size_t(rows) + size_t(y - row0)) * size_t(width);
  }
};

// One thread's working memory for a group (grown on demand, kept).
struct NlbScratch {
  std::vector<float> distance;
  std::vector<uint32_t> bits;
  std::vector<int> member_x, member_y;
  std::vector<float> weight;
  std::vector<float> noisy, basic, centred, solved;  // members in lanes (nlbayes_groups.h)
  std::vector<float> matrix;
  std::vector<float> estimate;
};

// Processes every reference patch of grid row `reference_y` of the job's
// step, adding its groups to `sums` in raster order.
using NlbRowFunction = void (*)(const NlbStepJob& job, int reference_y, NlbScratch& scratch, const NlbSums& sums);

namespace generic {
NlbRowFunction select_nlbayes();
}
namespace avx2 {
NlbRowFunction select_nlbayes();
}
namespace avx512 {
NlbRowFunction select_nlbayes();
}
NlbRowFunction select_nlbayes_row_function();

}  // namespace edgewise::cpu
